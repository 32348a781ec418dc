// The interpreter state: compiles sources through the front end, runs them
// on the eager interpreter, resolves imports along the search path, and
// renders every error through the diagnostics engine.
#include "stdlib/state.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include "frontend/lower.h"
#include "frontend/parse.h"
#include "ir/placement.h"
#include "ir/text.h"
#include "passes/passes.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"
#include "runtime/allocator.h"
#include "runtime/device_plugin.h"
#include "runtime/host_memory.h"
#include "runtime/dtype.h"
#include "runtime/jit/jit.h"
#include "runtime/status_line.h"

namespace nn {

namespace fs = std::filesystem;
using rt::Value;

State::State(StateOptions options, std::ostream& out, std::ostream& err)
    : options_(std::move(options)),
      context_(rt::ThreadPool::shared()),
      out_(out),
      err_(err),
      statusLine_(std::make_shared<rt::StatusLine>(out, err, &err == &std::cerr && ::isatty(STDERR_FILENO))),
      interp_(std::make_unique<rt::Interpreter>(*this, context_)) {
  std::vector<Value> args;
  for (const auto& a : options_.argv) args.push_back(Value::str(a));
  argvValue_ = rt::makeList(std::move(args));
  interp_->setGraphMode(options_.mode == ExecMode::Graph);
  interp_->compileCache().options().explainRecompile = options_.explainRecompile;
  if (!options_.printIrAfter.empty())
    interp_->compileCache().options().afterPass = [this](const char* pass, const ir::Graph& g) {
      if (options_.printIrAfter != "all" && options_.printIrAfter != pass) return;
      out_ << "// IR after " << pass << " (specialised)\n";
      ir::print(g, out_);
    };
  if (options_.explainPlacement)
    interp_->compileCache().options().compiled = [this](const ir::Function& version) {
      std::lock_guard<std::mutex> lock(emitMutex_);
      ir::printPlacement(version, err_);
    };
  interp_->setSchedule(options_.schedule);
  interp_->setPartition(options_.partition);
  context_.passes().fuse = options_.mode == ExecMode::Graph && options_.fusion;
  // Eager mode too: the loops and functions of numbers of @jit functions
  // (math's, random's) compile as graph mode's do.
  context_.setJit(options_.jit);
  context_.jitOptions.compileAtFirstRun = options_.jitAtFirstRun || options_.emitLlvm;
  if (options_.jitCache)
    context_.jitOptions.cacheDir = options_.jitCacheDir.empty() ? rt::jit::defaultCacheDir() : options_.jitCacheDir;
  if (options_.explainJit)
    context_.jitOptions.notCompiled = [this](const ir::Node& n, const std::string& why) {
      Diagnostic d;
      d.severity = Severity::Note;
      d.loc = n.loc();
      d.message = "not compiled by the JIT: " + why;
      interp_->warnOnce(d);
    };
  if (options_.emitLlvm)
    context_.jitOptions.compiled = [this](const ir::Node& n, const std::string& llvm) {
      std::lock_guard<std::mutex> lock(emitMutex_);
      out_ << "; the fused kernel of " << formatLoc(sm_, n.loc()) << "\n" << llvm;
    };
  if (options_.warnFailIfReached)
    context_.passes().failIfReached = [this](const Diagnostic& d) { interp_->warnOnce(d); };
  for (int i = 1; i < options_.cpuDevices; ++i)
    context_.addDevice(std::make_unique<rt::WorkerCpuDevice>("cpu:" + std::to_string(i)));
  context_.deviceFallback = options_.deviceFallback;
  if (options_.devicePlugins)
    for (const std::string& path : rt::devicePluginPaths(options_.pluginPath)) {
      std::string why = rt::loadDevicePlugin(context_, path);
      if (!why.empty()) context_.pluginNotes.push_back(path + ": " + why);
    }
}

std::string State::lastAst() {
  // Parsed again when asked: dumping every compiled module's AST costs a
  // tenth of the compile time of a large one.
  if (!lastAstFile_) return "";
  std::ostringstream dump;
  ast::dump(*frontend::parseModule(sm_, *lastAstFile_), dump);
  return dump.str();
}

State::~State() {
  // Globals go first, then the compiled code and its constants; what they
  // were the last to reach may be cycles, freed here rather than leaked.
  argvValue_ = rt::Value();
  main_ = nullptr;
  modules_.clear();
  interp_.reset();
  context_.cycles().collect();
}

Status State::guarded(const std::function<void()>& body) {
  // Whatever escapes the implementation ends here as an Error; exceptions
  // other than NnError were already located where a node ran or a pass
  // compiled (runNode, the compile cache), so these are the last resort.
  Diagnostic d;
  rt::HostMemoryScope scope(&context_.memoryCap());
  try {
    body();
    return Status();
  } catch (const NnError& e) {
    d = e.diag();
  } catch (const rt::MemoryLimitExceeded& e) {
    d.message = e.what();
    d.errorClass = ErrorClass::MemoryError;
  } catch (const std::bad_alloc&) {
    d.message = "out of memory";
  } catch (const std::exception& e) {
    d.message = std::string("internal error: ") + e.what();
  } catch (...) {
    d.message = "internal error: unknown exception";
  }
  out_.flush();
  return Status(toError(d));
}

Error State::toError(const Diagnostic& d) const {
  Error e;
  e.message = d.message;
  if (d.loc.valid()) {
    e.file = sm_.path(d.loc.file);
    e.line = d.loc.line;
    e.column = d.loc.col;
  }
  for (const SourceLoc& c : d.callers) e.trace.push_back(formatLoc(sm_, c));
  e.diagnostic = d;
  return e;
}

void State::render(const Error& e, std::ostream& os) const {
  statusLine_->clear();
  renderDiagnostic(sm_, e.diagnostic, os);
}

Status State::failure(std::string message) {
  Error e;
  e.message = std::move(message);
  e.diagnostic.message = e.message;
  return Status(std::move(e));
}

void State::printStats() {
  if (!options_.stats) return;
  out_.flush();
  rt::jit::Engine* jit = context_.jitIfMade();
  interp_->compileCache().printStats(err_, [jit](const ir::Node& n) { return jit ? jit->compileMillis(n) : 0.0; });
  auto& s = interp_->stats();
  err_ << "stats: parallel executor ran " << s.parallelBlocks.load() << " blocks, " << s.poolNodes.load()
       << " nodes on the pool\n";
  if (jit) {
    rt::jit::EngineStats js = jit->stats();
    err_ << "stats: jit compiled " << js.kernels << " fused kernels, loaded " << js.cached
         << " from the cache, shared " << js.shared << ", in " << std::fixed << std::setprecision(1) << js.compileMillis
         << " ms; " << js.loops << " loop" << (js.loops == 1 ? "" : "s") << " as native glue, " << js.functions
         << " function" << (js.functions == 1 ? "" : "s") << " as native code\n"
         << std::defaultfloat;
  }
  err_ << "stats: tensor memory peak " << context_.cpu().allocator().peakBytes() << " bytes\n";
  for (const std::string& note : context_.pluginNotes) err_ << "stats: device plugin not used: " << note << "\n";
}

void State::report(const Diagnostic& d) {
  statusLine_->clear();
  out_.flush();
  renderDiagnostic(sm_, d, err_);
}

std::unique_ptr<ir::Graph> State::compile(uint32_t file, bool echo, const rt::ModuleInstance* into, bool mainScript) {
  auto ast = frontend::parseModule(sm_, file);
  lastAstFile_ = file;
  frontend::LowerOptions lo;
  lo.echoExpressions = echo;
  lo.builtins = &stdlib::builtinNames();
  lo.hostFunctions = &hostFunctionNames_;
  lo.lostUpdateWarnings = options_.warnLostUpdates;
  lo.mainScript = mainScript;
  if (into)
    for (const std::string& name : into->globalNames()) lo.knownGlobals.insert(name);
  auto g = frontend::lowerModule(*ast, sm_, lo);
  // Top-level code is compiled ahead in graph mode; the REPL runs it eagerly.
  g->setStrictTypes(options_.mode == ExecMode::Graph && !echo);
  g->setTemplates(true);
  passes::runPipeline(*g, context_.passes(), [&](const char* pass) {
    if (options_.printIrAfter == "all" || options_.printIrAfter == pass) {
      out_ << "// IR after " << pass << "\n";
      ir::print(*g, out_);
    }
  });
  return g;
}

// Reads a script or module: a regular file only (a directory would read
// as empty, a FIFO or a device could block or never end); on failure the
// reason, as strerror words it.
static bool readFile(const std::string& path, std::string& text, std::string& why) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec) {
    why = ec.message();
    return false;
  }
  if (st.type() == fs::file_type::directory) {
    why = std::strerror(EISDIR);
    return false;
  }
  if (st.type() != fs::file_type::regular) {
    why = "not a regular file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

rt::ModuleInstance& State::mainModule(const std::string& path) {
  if (!main_) {
    auto m = std::make_unique<rt::ModuleInstance>("__main__", path);
    main_ = m.get();
    modules_["__main__"] = std::move(m);
  }
  return *main_;
}

Status State::runFile(const std::string& path) {
  std::string text, why;
  if (!readFile(path, text, why)) return failure("cannot open file '" + path + "': " + why);
  uint32_t file = sm_.add(path, std::move(text));
  Status ok = guarded([&] {
    rt::ModuleInstance& m = mainModule(path);
    // Names an earlier run of this state defined (the embedding API's
    // nn_run_string, then nn_run_file) stay defined.
    auto g = compile(file, false, &m, /*mainScript=*/true);
    interp_->runMain(m, *m.addGraph(std::move(g)));
  });
  printStats();
  return ok;
}

Status State::runString(const std::string& code, const std::string& name) {
  uint32_t file = sm_.add(name, code);
  return guarded([&] {
    rt::ModuleInstance& m = mainModule(name);
    auto g = compile(file, false, nullptr);
    interp_->runMain(m, *m.addGraph(std::move(g)));
  });
}

Status State::replInput(const std::string& code) {
  uint32_t file = sm_.add("<stdin>", code);
  return guarded([&] {
    rt::ModuleInstance& m = mainModule("<stdin>");
    auto g = compile(file, true, &m);
    interp_->runMain(m, *m.addGraph(std::move(g)));
  });
}

Status State::runChunk(const std::string& code, const std::string& name) {
  uint32_t file = sm_.add(name, code);
  return guarded([&] {
    rt::ModuleInstance& m = mainModule(name);
    auto g = compile(file, false, &m);
    interp_->runMain(m, *m.addGraph(std::move(g)));
  });
}

Status State::call(const rt::Value& callee, std::vector<rt::Value> args, const std::vector<std::string>& kwnames,
                   std::vector<rt::Value> kwargs, rt::Value& result) {
  return guarded([&] { result = interp_->call(callee, std::move(args), kwnames, std::move(kwargs), SourceLoc{}); });
}

const rt::Value* State::global(const std::string& name) {
  if (const rt::Value* v = main_ ? main_->findGlobal(name) : nullptr) return v;
  auto host = hostFunctions_.find(name);
  return host == hostFunctions_.end() ? nullptr : &host->second;
}

void State::registerHostFunction(const std::string& name, rt::Value fn) {
  hostFunctions_[name] = std::move(fn);
  hostFunctionNames_.insert(name);
}

rt::Value State::hostFunction(const std::string& name, SourceLoc loc) {
  auto it = hostFunctions_.find(name);
  return it == hostFunctions_.end() ? rt::Host::hostFunction(name, loc) : it->second;
}

void State::setGlobal(const std::string& name, rt::Value v) { mainModule("<host>").setGlobal(name, std::move(v)); }

Status State::emit(const std::string& path, Stage stage) {
  std::string text, why;
  if (!readFile(path, text, why)) return failure("cannot open file '" + path + "': " + why);
  return emitText(path, std::move(text), stage);
}

Status State::emitText(const std::string& name, std::string text, Stage stage) {
  uint32_t file = sm_.add(name, std::move(text));
  return guarded([&] {
    switch (stage) {
      case Stage::Tokens: frontend::dumpTokens(sm_, file, out_); break;
      case Stage::Ast: ast::dump(*frontend::parseModule(sm_, file), out_); break;
      case Stage::Ir: {
        frontend::LowerOptions lo;
        lo.builtins = &stdlib::builtinNames();
        ir::print(*frontend::lowerModule(*frontend::parseModule(sm_, file), sm_, lo), out_);
        break;
      }
      case Stage::IrOpt: ir::print(*compile(file, false, nullptr), out_); break;
    }
  });
}

Status State::printFunctionPlacement(const std::string& name) {
  const Value* v = main_ ? main_->findGlobal(name) : nullptr;
  if (!v || !v->is(rt::Kind::Function)) return failure("'" + name + "' is not a function defined in this session");
  const ir::Function* compiled = interp_->compileCache().latest(*v->as<rt::FunctionObj>().fn);
  if (!compiled) {
    out_ << "// not compiled yet: call it in graph mode (:mode graph) to see where its operations run\n";
    return Status();
  }
  ir::printPlacement(*compiled, out_);
  return Status();
}

Status State::printFunctionIr(const std::string& name, bool optimized) {
  const Value* v = main_ ? main_->findGlobal(name) : nullptr;
  if (!v || !v->is(rt::Kind::Function)) return failure("'" + name + "' is not a function defined in this session");
  const ir::Function* fn = v->as<rt::FunctionObj>().fn;
  if (optimized) {
    if (const ir::Function* compiled = interp_->compileCache().latest(*fn)) fn = compiled;
    else out_ << "// not compiled yet: call it in graph mode (:mode graph) to see a specialised version\n";
  }
  ir::print(*fn, out_);
  return Status();
}

static void collectFused(const ir::Block& b, std::vector<const ir::Node*>& out) {
  for (const auto& n : b.nodes()) {
    if (n->op() == ir::Op::Fused) out.push_back(n.get());
    for (size_t k = 0; k < n->numBlocks(); ++k) collectFused(*n->block(k), out);
  }
}

Status State::printFunctionLlvm(const std::string& name) {
  const Value* v = main_ ? main_->findGlobal(name) : nullptr;
  if (!v || !v->is(rt::Kind::Function)) return failure("'" + name + "' is not a function defined in this session");
  const ir::Function* fn = interp_->compileCache().latest(*v->as<rt::FunctionObj>().fn);
  if (!fn) return failure("'" + name + "' is not compiled yet: call it in graph mode (:mode graph) first");
  std::vector<const ir::Node*> fused;
  collectFused(*fn->body(), fused);
  if (fused.empty()) {
    out_ << "; '" << name << "' has no fused kernels (no chain of elementwise ops over one shape)\n";
    return Status();
  }
  rt::jit::Engine* engine = context_.jit();
  if (!engine) return failure("the JIT is off (nn --jit off)");
  for (const ir::Node* n : fused) {
    std::string why;
    std::string llvm = engine->optimisedIr(*n, why);
    if (llvm.empty()) out_ << "; the fused node of " << formatLoc(sm_, n->loc()) << " is not compiled: " << why << "\n";
    else out_ << "; the fused kernel of " << formatLoc(sm_, n->loc()) << "\n" << llvm;
  }
  return Status();
}

std::optional<Value> State::ownBuiltin(const std::string& name) const {
  if (name == "argv") return argvValue_;
  if (name == "_stdout") return Value::stream(1);
  if (name == "_stderr") return Value::stream(2);
  if (name != "bool")
    if (auto dt = rt::dtypeFromName(name)) return Value::dtype(static_cast<int>(*dt));
  return std::nullopt;
}

Value State::builtin(const std::string& name, SourceLoc loc) {
  if (std::optional<Value> own = ownBuiltin(name)) return *own;
  const Value* b = stdlib::findBuiltin(name);
  if (!b) fail(loc, "name '" + name + "' is not defined");
  return *b;
}

const Value* State::sharedBuiltin(const std::string& name) {
  return ownBuiltin(name) ? nullptr : stdlib::findBuiltin(name);
}

Value State::runTensorOp(rt::Interpreter& interp, ir::Op op, std::vector<Value>& params, SourceLoc loc) {
  return stdlib::runTensorOp(interp, op, params, loc);
}

Value State::attribute(const Value& obj, const std::string& name, SourceLoc loc) {
  return stdlib::attribute(obj, name, loc);
}

const rt::MethodsNamed* State::methodsNamed(const std::string& name) { return stdlib::methodsNamed(name); }

Value State::importModule(const std::string& name, bool bindTop, rt::ModuleInstance& from, SourceLoc loc) {
  std::string rel = name;
  for (char& c : rel)
    if (c == '.') c = '/';
  rel += ".nn";
  std::vector<std::string> dirs;
  fs::path fromPath(from.path());
  dirs.push_back(fromPath.has_parent_path() ? fromPath.parent_path().string() : std::string("."));
  // Then the main script's folder, as Python's sys.path[0].
  if (main_ && &from != main_) {
    fs::path mainPath(main_->path());
    std::string mainDir = mainPath.has_parent_path() ? mainPath.parent_path().string() : std::string(".");
    if (mainDir != dirs[0]) dirs.push_back(mainDir);
  }
  for (const auto& d : options_.searchPath) dirs.push_back(d);
  std::string found;
  for (const auto& d : dirs) {
    fs::path p = fs::path(d) / rel;
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      found = fs::weakly_canonical(p, ec).string();
      break;
    }
  }
  if (found.empty()) {
    std::string searched;
    for (const auto& d : dirs) searched += (searched.empty() ? "" : ", ") + d;
    fail(loc, "module '" + name + "' not found (looked for " + rel + " in: " + searched + ")");
  }
  rt::ModuleInstance* mod = nullptr;
  auto it = modules_.find(found);
  if (it != modules_.end()) {
    mod = it->second.get();  // a module runs once
  } else {
    std::string text, why;
    if (!readFile(found, text, why)) fail(loc, "cannot read module file '" + found + "': " + why);
    auto owned = std::make_unique<rt::ModuleInstance>(name, found);
    mod = owned.get();
    modules_[found] = std::move(owned);
    uint32_t file = sm_.add(found, std::move(text));
    try {
      auto g = compile(file, false, nullptr);
      interp_->runMain(*mod, *mod->addGraph(std::move(g)));
    } catch (NnError& e) {
      e.diag().callers.push_back(loc);
      throw;
    }
  }
  auto moduleValue = [](rt::ModuleInstance* m) {
    auto o = std::make_shared<rt::ModuleObj>();
    o->module = m;
    return Value::object(rt::Kind::Module, std::move(o));
  };
  if (!bindTop) return moduleValue(mod);
  // `import a.b.c` binds `a`; each package level is a namespace module.
  std::vector<std::string> parts;
  std::stringstream ss(name);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  Value child = moduleValue(mod);
  for (size_t i = parts.size() - 1; i-- > 0;) {
    std::string pkgName;
    for (size_t j = 0; j <= i; ++j) pkgName += (j ? "." : "") + parts[j];
    auto& slot = modules_["package:" + pkgName];
    if (!slot) slot = std::make_unique<rt::ModuleInstance>(pkgName, "");
    slot->setGlobal(parts[i + 1], child);
    child = moduleValue(slot.get());
  }
  return child;
}

}  // namespace nn
