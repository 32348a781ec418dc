// The JIT engine (jit.h): one LLVM 14 ORC LLJIT per interpreter state, for
// the host CPU (its target machine and features: AVX2 and FMA on these
// machines).
//
// A kernel's module is keyed by a SHA-1 of its unoptimised IR (which holds
// the target CPU and features) and of the engine's fingerprint (LLVM's
// version, the optimisation settings, nn's version). A key already loaded
// in this engine reuses that code; a key in the persistent cache
// (object_cache.h) loads the stored object; otherwise the module goes
// through LLVM's O3 pipeline (loop and SLP vectorisation for the host's
// vector width) and the target machine's code generator, and the object
// is stored for later runs. Objects go into the JIT's main library, whose
// symbols resolve against this process (libm's exp, tanh, ...) and SLEEF's
// functions (sleef_functions.h).
//
// Each kernel gets a fresh LLVMContext; the engine is used under one mutex.
// LLVM reports errors as values (llvm::Error), never as exceptions; each
// one becomes a reason string here, and the node runs op by op.
#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SHA1.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>
#include <mutex>
#include <unordered_map>

#include "runtime/jit/codegen.h"
#include "runtime/jit/object_cache.h"
#include "runtime/sleef_functions.h"

namespace nn::rt::jit {
namespace {

// Bumped whenever the optimisation or code generation settings below
// change, so that cached objects built the old way are never loaded.
constexpr const char* kPipeline = "O3-nounroll-nointerleave-codegen2; glue O1";

std::string message(llvm::Error e) { return llvm::toString(std::move(e)); }

std::string printed(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  return os.str();
}

// Whether `bytes` is an object file that defines `symbol` (a cache entry
// of the right key passed its checksum; this guards against anything else
// reaching the JIT, where a bad object would poison the symbol).
bool definesSymbol(const std::string& bytes, const std::string& symbol) {
  auto object = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(bytes, symbol));
  if (!object) {
    llvm::consumeError(object.takeError());
    return false;
  }
  for (const llvm::object::SymbolRef& s : (*object)->symbols()) {
    auto name = s.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name == symbol) return true;
  }
  return false;
}

}  // namespace

struct Engine::Impl {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::unique_ptr<llvm::TargetMachine> machine;
  EngineOptions options;
  std::unique_ptr<ObjectCache> cache;
  std::string fingerprint;
  std::unordered_map<std::string, uint64_t> loaded;  // addresses by key
  std::unordered_map<const ir::Node*, double> millisByNode;
  mutable std::mutex mutex;
  EngineStats stats;
  bool started = false;
  std::string startError;

  bool start(std::string& why);

  void prepare(llvm::Module& m) {
    m.setDataLayout(machine->createDataLayout());
    m.setTargetTriple(machine->getTargetTriple().str());
    for (llvm::Function& f : m) {
      if (f.isDeclaration()) continue;
      f.addFnAttr("target-cpu", machine->getTargetCPU());
      f.addFnAttr("target-features", machine->getTargetFeatureString());
    }
  }

  // O3 with vectorisation for fused loops (memory bound, worth it); O1 for
  // loop glue, whose calls dominate and whose compile time is the cost.
  void optimize(llvm::Module& m, bool fused) {
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
    builder.buildPerModuleDefaultPipeline(fused ? llvm::OptimizationLevel::O3 : llvm::OptimizationLevel::O1)
        .run(m, mam);
  }

  uint64_t load(llvm::Module& m, const char* entry, const ir::Node& n, bool fused, std::string& why);
  // What `make` makes, for the statistics.
  enum class Kind { Fused, Loop, Function };
  template <class Code, class Fn, class Build>
  std::shared_ptr<const Code> make(const ir::Node& n, const char* entry, Kind kind, Build build, std::string& why,
                                   const ir::Node& chargedTo);

  // Machine code for `m`, or "" with `why`.
  std::string codegen(llvm::Module& m, std::string& why) {
    llvm::orc::SimpleCompiler compiler(*machine);
    auto object = compiler(m);
    if (!object) {
      why = "LLVM: " + message(object.takeError());
      return "";
    }
    return (*object)->getBuffer().str();
  }
};

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

std::unique_ptr<Engine> Engine::create(EngineOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->fingerprint = std::string("nn " NN_VERSION "; LLVM " LLVM_VERSION_STRING "; ") + kPipeline;
  if (!options.cacheDir.empty()) impl->cache = std::make_unique<ObjectCache>(options.cacheDir, options.cacheMaxBytes);
  impl->options = std::move(options);
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

// Sets up LLVM for the host CPU at the first compile (a program whose
// nodes never get hot never pays for it: about 1 ms); false with `why`
// when that failed (then, and for every later kernel).
bool Engine::Impl::start(std::string& why) {
  if (started) {
    why = startError;
    return lljit != nullptr;
  }
  started = true;
  auto fail = [&](llvm::Error e) {
    startError = why = "LLVM: " + message(std::move(e));
    lljit.reset();
    return false;
  };
  // Registering the host target is idempotent and internally synchronised.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!host) return fail(host.takeError());
  // The IR arrives optimised at O3; the code generator's own -O3 took a
  // third longer for the same chain speed (19 kernels: 310 -> 190 ms).
  host->setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  auto tm = host->createTargetMachine();
  if (!tm) return fail(tm.takeError());
  machine = std::move(*tm);
  auto built = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*host).create();
  if (!built) return fail(built.takeError());
  lljit = std::move(*built);
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(lljit->getDataLayout().getGlobalPrefix());
  if (!process) return fail(process.takeError());
  lljit->getMainJITDylib().addGenerator(std::move(*process));
  // SLEEF's functions by their addresses in this process: a host that
  // opened libnn.so with RTLD_LOCAL keeps libsleef's symbols out of the
  // process-wide search above.
  llvm::orc::SymbolMap symbols;
  for (const sleef::Form& form : sleef::forms())
    symbols[lljit->mangleAndIntern(form.symbol)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(form.address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  // nn's special functions, by address the same way.
  int specialCount = 0;
  const FunctionSymbol* specials = specialFunctionSymbols(&specialCount);
  for (int i = 0; i < specialCount; ++i)
    symbols[lljit->mangleAndIntern(specials[i].name)] =
        llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(specials[i].address),
                                 llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  if (llvm::Error e = lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return fail(std::move(e));
  return true;
}

std::string Engine::optimisedIr(const ir::Node& n, std::string& why) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  llvm::LLVMContext ctx;
  FusedKernel kernel;
  if (!impl_->start(why)) return "";
  std::unique_ptr<llvm::Module> m = buildFusedModule(ctx, n, "nn_fused", kernel, why);
  if (!m) return "";
  impl_->prepare(*m);
  impl_->optimize(*m, true);
  return printed(*m);
}

// The address of module m's function `entry` once loaded: code already
// loaded for the same key, the persistent cache's object, or compiled now
// (and stored there). 0 with `why` on failure. Called under the mutex;
// `fused`: counted in the fused kernels' statistics.
uint64_t Engine::Impl::load(llvm::Module& m, const char* entry, const ir::Node& n, bool fused, std::string& why) {
  prepare(m);
  llvm::SHA1 sha;
  sha.update(printed(m));
  sha.update(fingerprint);
  std::string key = llvm::toHex(sha.final(), true);
  if (auto it = loaded.find(key); it != loaded.end()) {
    if (fused) ++stats.shared;
    return it->second;
  }
  std::string symbol = std::string(entry) + "_" + key;
  m.getFunction(entry)->setName(symbol);
  std::optional<std::string> object = cache ? cache->load(key) : std::nullopt;
  if (object && !definesSymbol(*object, symbol)) object.reset();
  bool cached = object.has_value();
  bool report = fused && options.compiled;  // --emit=llvm shows fused kernels
  if (!cached || report) {
    optimize(m, fused);
    if (report) options.compiled(n, printed(m));
  }
  if (!cached) {
    object = codegen(m, why);
    if (object->empty()) return 0;
    if (cache) cache->store(key, *object);
  }
  if (llvm::Error e = lljit->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(*object, symbol))) {
    why = "LLVM: " + message(std::move(e));
    return 0;
  }
  auto address = lljit->lookup(symbol);
  if (!address) {
    why = "LLVM: " + message(address.takeError());
    return 0;
  }
  loaded.emplace(key, address->getAddress());
  if (fused) ++(cached ? stats.cached : stats.kernels);
  return address->getAddress();
}

// `Code` (FusedKernel or GlueFunction) for node n: its module from
// `build`, loaded as function `entry`, timed in the totals and per node
// (as `chargedTo`'s).
template <class Code, class Fn, class Build>
std::shared_ptr<const Code> Engine::Impl::make(const ir::Node& n, const char* entry, Kind kind, Build build,
                                               std::string& why, const ir::Node& chargedTo) {
  bool fused = kind == Kind::Fused;
  auto begin = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex);
  if (!start(why)) return nullptr;
  llvm::LLVMContext ctx;
  auto code = std::make_shared<Code>();
  std::unique_ptr<llvm::Module> m = build(ctx, n, entry, *code, why);
  if (!m) return nullptr;
  uint64_t address = load(*m, entry, n, fused, why);
  if (!address) return nullptr;
  code->fn = reinterpret_cast<Fn>(static_cast<uintptr_t>(address));
  code->compileMillis = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  stats.compileMillis += code->compileMillis;
  millisByNode[&chargedTo] += code->compileMillis;
  if (kind == Kind::Loop) ++stats.loops;
  if (kind == Kind::Function) ++stats.functions;
  return code;
}

std::shared_ptr<const FusedKernel> Engine::compile(const ir::Node& n, std::string& why, const OperandLayouts* layouts,
                                                  const ir::Node* chargedTo) {
  auto build = [layouts](llvm::LLVMContext& ctx, const ir::Node& node, const std::string& name, FusedKernel& kernel,
                         std::string& reason) { return buildFusedModule(ctx, node, name, kernel, reason, layouts); };
  return impl_->make<FusedKernel, FusedFn>(n, "nn_fused", Impl::Kind::Fused, build, why, chargedTo ? *chargedTo : n);
}

std::shared_ptr<const FusedKernel> Engine::compileFused(const ir::Node& n, const OperandLayouts* layouts,
                                                        const ir::Node* chargedTo) {
  std::string why;
  std::shared_ptr<const FusedKernel> kernel = compile(n, why, layouts, chargedTo);
  if (!kernel && impl_->options.notCompiled) impl_->options.notCompiled(n, why);
  return kernel;
}

std::shared_ptr<const GlueFunction> Engine::compileLoop(const ir::Node& n) {
  std::string why;
  std::shared_ptr<const GlueFunction> glue =
      impl_->make<GlueFunction, GlueFn>(n, "nn_glue", Impl::Kind::Loop, buildGlueModule, why, n);
  if (!glue && impl_->options.notCompiled) impl_->options.notCompiled(n, why);
  return glue;
}

std::shared_ptr<const NativeFunction> Engine::compileFunction(const ir::Function& version) {
  std::string why;
  const ir::Node& at = *version.body()->terminator();
  auto build = [&version](llvm::LLVMContext& ctx, const ir::Node&, const std::string& name, NativeFunction&,
                          std::string& reason) { return buildNativeModule(ctx, version, name, reason); };
  std::shared_ptr<const NativeFunction> code =
      impl_->make<NativeFunction, NativeFn>(at, "nn_native", Impl::Kind::Function, build, why, at);
  if (!code && impl_->options.notCompiled) impl_->options.notCompiled(at, why);
  return code;
}

bool Engine::hot(uint64_t runs, uint64_t elements) const {
  return impl_->options.compileAtFirstRun || runs >= kHotRuns || elements >= kHotElements;
}

void Engine::notCompiled(const ir::Node& n, const std::string& why) const {
  if (impl_->options.notCompiled) impl_->options.notCompiled(n, why);
}

EngineStats Engine::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->stats;
}

double Engine::compileMillis(const ir::Node& n) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto it = impl_->millisByNode.find(&n);
  return it == impl_->millisByNode.end() ? 0 : it->second;
}

}  // namespace nn::rt::jit
