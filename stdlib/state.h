// An isolated nn interpreter state: sources, loaded modules, the eager
// interpreter and the builtins. The driver, the REPL and the tests all run
// code through it (and the C embedding API will wrap it). Errors are
// rendered through the diagnostics engine to the error stream; the methods
// return false instead of throwing.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "runtime/interpreter.h"
#include "runtime/module.h"

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
  // Graph mode: run independent nodes in parallel, or in program order.
  bool serialSchedule = false;
  // Print compile, executor and memory figures to stderr after a script.
  bool stats = false;
};

enum class Stage { Tokens, Ast, Ir, IrOpt };

class State : public rt::Host {
 public:
  State(StateOptions options, std::ostream& out, std::ostream& err);
  ~State() override;

  // Runs a script file / a string as the main module. Returns success.
  bool runFile(const std::string& path);
  bool runString(const std::string& code, const std::string& name);
  // Prints one pipeline stage of a file instead of running it.
  bool emit(const std::string& path, Stage stage);

  // REPL: compiles and runs one complete input in the persistent main
  // module, echoing expression values. Returns success; state survives errors.
  bool replInput(const std::string& code);
  // The AST dump of the last REPL input, and the IR of a named function.
  const std::string& lastAst() const { return lastAst_; }
  // `optimized`: the version graph mode compiled last for NAME (the
  // generic IR when it has not been called in graph mode yet).
  bool printFunctionIr(const std::string& name, bool optimized = false);

  rt::Interpreter& interpreter() { return *interp_; }
  SourceManager& sources() { return sm_; }

  // rt::Host
  rt::Value builtin(const std::string& name, SourceLoc loc) override;
  rt::Value attribute(const rt::Value& obj, const std::string& name, SourceLoc loc) override;
  rt::Value importModule(const std::string& name, bool bindTop, rt::ModuleInstance& from, SourceLoc loc) override;
  std::ostream& out() override { return out_; }
  void report(const Diagnostic& d) override;

 private:
  std::unique_ptr<ir::Graph> compile(uint32_t file, bool echo, const rt::ModuleInstance* into);
  bool guarded(const std::function<void()>& body);
  void printStats();
  rt::ModuleInstance& mainModule(const std::string& path);

  StateOptions options_;
  std::ostream& out_;
  std::ostream& err_;
  SourceManager sm_;
  std::unique_ptr<rt::Interpreter> interp_;
  std::map<std::string, std::unique_ptr<rt::ModuleInstance>> modules_;  // by file path or package name
  rt::ModuleInstance* main_ = nullptr;
  rt::Value argvValue_;
  std::string lastAst_;
};

}  // namespace nn
