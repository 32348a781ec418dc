// The JIT engine (jit.h): one LLVM 14 ORC LLJIT per interpreter state, for
// the host CPU (its target machine and features: AVX2 and FMA on these
// machines). A kernel's module goes through LLVM's O3 pipeline (loop and
// SLP vectorisation for the host's vector width) and into the JIT's main
// library, whose symbols resolve against this process (libm's expf, tanh,
// ...). Each kernel gets a fresh LLVMContext, so compiling never shares
// LLVM state with another thread's modules; the engine itself is used
// under one mutex. LLVM reports errors as values (llvm::Error), never as
// exceptions; every one becomes a reason string here.
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>
#include <mutex>

#include "runtime/jit/codegen.h"

namespace nn::rt::jit {

struct Engine::Impl {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::unique_ptr<llvm::TargetMachine> machine;
  EngineHooks hooks;
  mutable std::mutex mutex;
  uint64_t next = 0;
  EngineStats stats;

  // n's kernel module for the host, optimised; null with `why`.
  std::unique_ptr<llvm::Module> build(llvm::LLVMContext& ctx, const ir::Node& n, const std::string& name,
                                      FusedKernel& kernel, std::string& why) {
    std::unique_ptr<llvm::Module> m = buildFusedModule(ctx, n, name, kernel, why);
    if (!m) return nullptr;
    m->setDataLayout(machine->createDataLayout());
    m->setTargetTriple(machine->getTargetTriple().str());
    for (llvm::Function& f : *m) {
      if (f.isDeclaration()) continue;
      f.addFnAttr("target-cpu", machine->getTargetCPU());
      f.addFnAttr("target-features", machine->getTargetFeatureString());
    }
    optimize(*m);
    return m;
  }

  void optimize(llvm::Module& m) {
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    // A fused loop is bound by memory, not by its loop overhead: unrolling
    // and interleaving the vector body did not make the chain benchmark
    // faster and tripled the machine-code time (4 kernels: 100 -> 30 ms).
    tuning.LoopUnrolling = false;
    tuning.LoopInterleaving = false;
    llvm::PassBuilder builder(machine.get(), tuning);
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
  }
};

namespace {

std::string message(llvm::Error e) { return llvm::toString(std::move(e)); }

}  // namespace

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

std::unique_ptr<Engine> Engine::create(EngineHooks hooks, std::string& error) {
  // Registering the host target is idempotent and internally synchronised.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!host) {
    error = message(host.takeError());
    return nullptr;
  }
  host->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  auto impl = std::make_unique<Impl>();
  impl->hooks = std::move(hooks);
  auto machine = host->createTargetMachine();
  if (!machine) {
    error = message(machine.takeError());
    return nullptr;
  }
  impl->machine = std::move(*machine);
  auto lljit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*host).create();
  if (!lljit) {
    error = message(lljit.takeError());
    return nullptr;
  }
  impl->lljit = std::move(*lljit);
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      impl->lljit->getDataLayout().getGlobalPrefix());
  if (!process) {
    error = message(process.takeError());
    return nullptr;
  }
  impl->lljit->getMainJITDylib().addGenerator(std::move(*process));
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

std::shared_ptr<const FusedKernel> Engine::compileFused(const ir::Node& n) {
  std::string why;
  std::shared_ptr<const FusedKernel> kernel = compile(n, why);
  if (!kernel && impl_->hooks.notCompiled) impl_->hooks.notCompiled(n, why);
  return kernel;
}

std::shared_ptr<const FusedKernel> Engine::compile(const ir::Node& n, std::string& why) {
  auto start = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::string name = "nn_fused_" + std::to_string(impl_->next++);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto kernel = std::make_shared<FusedKernel>();
  std::unique_ptr<llvm::Module> m = impl_->build(*ctx, n, name, *kernel, why);
  if (!m) return nullptr;
  if (impl_->hooks.compiled) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    impl_->hooks.compiled(n, os.str());
  }
  if (llvm::Error e = impl_->lljit->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)))) {
    why = "LLVM: " + message(std::move(e));
    return nullptr;
  }
  auto symbol = impl_->lljit->lookup(name);
  if (!symbol) {
    why = "LLVM: " + message(symbol.takeError());
    return nullptr;
  }
  kernel->fn = reinterpret_cast<FusedFn>(static_cast<uintptr_t>(symbol->getAddress()));
  kernel->compileMillis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++impl_->stats.kernels;
  impl_->stats.compileMillis += kernel->compileMillis;
  return kernel;
}

std::string Engine::llvmText(const ir::Node& n, std::string& why) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  llvm::LLVMContext ctx;
  FusedKernel kernel;
  std::unique_ptr<llvm::Module> m = impl_->build(ctx, n, "nn_fused", kernel, why);
  if (!m) return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  m->print(os, nullptr);
  return os.str();
}

EngineStats Engine::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace nn::rt::jit
