// An isolated nn interpreter state: sources, loaded modules, the eager
// interpreter and the builtins. The driver, the REPL and the tests all run
// code through it, and the C embedding API (include/nn/nn.h) wraps it. No
// exception leaves an entry point: each returns a Status whose Error
// (message, location, call trace) the caller renders with render().
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/interpreter.h"
#include "runtime/module.h"
#include "support/status.h"

namespace nn {

enum class ExecMode { Eager, Graph };

struct StateOptions {
  ExecMode mode = ExecMode::Graph;
  std::vector<std::string> searchPath;  // NN_PATH entries, then the stdlib dir
  std::vector<std::string> argv;        // script path first
  // Print the IR after the named pass ("all": after every pass).
  std::string printIrAfter;
  // Graph mode: report why a call missed the compile cache.
  bool explainRecompile = false;
  // Graph mode: run independent nodes in parallel where it pays (auto), or
  // wherever possible, or in program order (runtime/graph_executor.h).
  rt::Schedule schedule = rt::Schedule::Auto;
  // Load device plugins (runtime/device_plugin.h): those in `pluginPath`'s
  // folders, else in NN_PLUGIN_PATH's, else beside the binary or libnn.so.
  bool devicePlugins = true;
  std::vector<std::string> pluginPath;
  // How graph mode runs a block that spans devices (graph_executor.h).
  rt::Partition partition = rt::Partition::Merge;
  // Print compile, executor and memory figures to stderr after a script.
  bool stats = false;
  // Warn at an update of a tensor that nothing can see (`p -= lr * g` on a
  // loop variable): frontend/lost_updates.h.
  bool warnLostUpdates = true;
  // Graph mode: warn at compile time where an op will fail if it is ever
  // reached (-Wfail-if-reached; it fails at run time, when reached).
  bool warnFailIfReached = false;
  // Graph mode: fuse chains of elementwise ops (passes/fuse_elementwise.cpp)
  // and compile the fused nodes to native code (runtime/jit). Fused nodes
  // the JIT does not compile run op by op over tiles, which is slower than
  // unfused kernels (bench/fusion.nn): the driver fuses by default only
  // with the JIT on.
  bool fusion = true;
  // How many CPU devices exist: `cpu`, then the logical `cpu:1` ...
  // `cpu:N-1` (runtime/device.h's WorkerCpuDevice). --cpu-devices.
  int cpuDevices = 1;
  // A device name to use where a script names one that does not exist
  // (with a warning); empty: that is an error. --device-fallback.
  std::string deviceFallback;
  bool jit = true;
  // Compile every fused node at its first run and every loop at its first
  // iteration, not once hot (runtime/jit/jit.h: Engine::hot): --jit always.
  bool jitAtFirstRun = false;
  // Keep compiled kernels for later runs (runtime/jit/object_cache.h), in
  // jitCacheDir ("": $XDG_CACHE_HOME/nn or ~/.cache/nn).
  bool jitCache = true;
  std::string jitCacheDir;
  // Graph mode: a note at each fused node the JIT does not compile.
  bool explainJit = false;
  // Graph mode: print each compiled version's placement (ir/placement.h)
  // to the error stream as it is compiled.
  bool explainPlacement = false;
  // Graph mode: print each fused kernel's optimised LLVM IR to the output
  // as the JIT compiles it (--emit=llvm), each at its node's first run.
  bool emitLlvm = false;
};

enum class Stage { Tokens, Ast, Ir, IrOpt };

class State : public rt::Host {
 public:
  State(StateOptions options, std::ostream& out, std::ostream& err);
  ~State() override;

  // Runs a script file / a string as the main module.
  Status runFile(const std::string& path);
  Status runString(const std::string& code, const std::string& name);
  // Prints one pipeline stage of a file instead of running it.
  Status emit(const std::string& path, Stage stage);
  // emit() of source text held in memory, named `name` in diagnostics.
  Status emitText(const std::string& name, std::string text, Stage stage);

  // The embedding API (include/nn/nn.h): runs `code` in the persistent main
  // module, as the REPL does but without echoing values, so the names one
  // run defines are there for the next run and for call().
  Status runChunk(const std::string& code, const std::string& name);
  // Calls `callee` (a function value) with `args` and keyword arguments
  // `kwnames` = `kwargs`; its value in `result`.
  Status call(const rt::Value& callee, std::vector<rt::Value> args, const std::vector<std::string>& kwnames,
              std::vector<rt::Value> kwargs, rt::Value& result);
  // A global of the main module (null when not defined), and setting one.
  const rt::Value* global(const std::string& name);
  void setGlobal(const std::string& name, rt::Value v);
  // Registers a host application's function: code compiled from now on
  // resolves `name` to it as to a builtin, ahead of the builtins (ir op
  // host_function, whose calls are effects).
  void registerHostFunction(const std::string& name, rt::Value fn);
  rt::Context& context() { return context_; }

  // REPL: compiles and runs one complete input in the persistent main
  // module, echoing expression values; the state survives errors.
  Status replInput(const std::string& code);
  // The AST dump of the last REPL input, and the IR of a named function.
  std::string lastAst();
  // `optimized`: the version graph mode compiled last for NAME (the
  // generic IR when it has not been called in graph mode yet).
  Status printFunctionIr(const std::string& name, bool optimized = false);
  // The placement of the version graph mode compiled last for NAME
  // (ir/placement.h), or a note that none is compiled yet.
  Status printFunctionPlacement(const std::string& name);
  // The optimised LLVM IR of the fused kernels of the version of function
  // `name` graph mode compiled last (REPL :llvm).
  Status printFunctionLlvm(const std::string& name);

  // Prints an error in the language.md §8 format (source line, caret,
  // "called from" trace) to `os`.
  void render(const Error& e, std::ostream& os) const;
  // An error without a source location (a bad command, a missing file).
  static Status failure(std::string message);

  rt::Interpreter& interpreter() { return *interp_; }
  SourceManager& sources() { return sm_; }

  // rt::Host
  rt::Value builtin(const std::string& name, SourceLoc loc) override;
  const rt::Value* sharedBuiltin(const std::string& name) override;
  rt::Value hostFunction(const std::string& name, SourceLoc loc) override;
  rt::Value attribute(const rt::Value& obj, const std::string& name, SourceLoc loc) override;
  const rt::MethodsNamed* methodsNamed(const std::string& name) override;
  rt::Value importModule(const std::string& name, bool bindTop, rt::ModuleInstance& from, SourceLoc loc) override;
  rt::Value runTensorOp(rt::Interpreter& interp, ir::Op op, std::vector<rt::Value>& params, SourceLoc loc) override;
  std::ostream& out() override { return out_; }
  std::ostream& err() override { return err_; }
  const std::shared_ptr<rt::StatusLine>& statusLine() override { return statusLine_; }
  void report(const Diagnostic& d) override;

 private:
  // The builtin names this state answers with values of its own (argv,
  // the streams) or a dtype; none for the others.
  std::optional<rt::Value> ownBuiltin(const std::string& name) const;
  // `mainScript`: the file is the script being run (lost_updates.h).
  std::unique_ptr<ir::Graph> compile(uint32_t file, bool echo, const rt::ModuleInstance* into,
                                     bool mainScript = false);
  // Runs `body`, turning anything it throws into the returned Error.
  Status guarded(const std::function<void()>& body);
  Error toError(const Diagnostic& d) const;
  void printStats();
  rt::ModuleInstance& mainModule(const std::string& path);

  StateOptions options_;
  std::mutex emitMutex_;  // --emit=llvm: kernels compile on any thread
  // This state's devices, random generator, thread pool handle and pass
  // context (everything that used to be process-wide).
  rt::Context context_;
  std::ostream& out_;
  std::ostream& err_;
  std::shared_ptr<rt::StatusLine> statusLine_;
  SourceManager sm_;
  std::unique_ptr<rt::Interpreter> interp_;
  std::map<std::string, std::unique_ptr<rt::ModuleInstance>> modules_;  // by file path or package name
  rt::ModuleInstance* main_ = nullptr;
  rt::Value argvValue_;
  std::optional<uint32_t> lastAstFile_;
  std::map<std::string, rt::Value> hostFunctions_;
  std::set<std::string> hostFunctionNames_;  // what the front end resolves
};

}  // namespace nn
