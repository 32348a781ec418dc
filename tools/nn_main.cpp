// The `nn` command: runs a script, a -c string, prints a pipeline stage
// (--emit), or starts the REPL. Command-line parsing uses CLI11.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "passes/passes.h"
#include "repl/repl.h"
#include "stdlib/check_eager.h"
#include "stdlib/help.h"
#include "stdlib/state.h"

namespace {

// Ctrl-C while a script runs: the code stops at its next cancellation point
// with a located "interrupted" error. A signal handler reaches only process
// state, hence this pointer to the state's flag; a second Ctrl-C (the
// handler resets itself) ends the process as usual.
std::atomic<bool>* gInterruptFlag = nullptr;

void onSigint(int) {
  if (gInterruptFlag) gInterruptFlag->store(true);
}

void interruptOnSigint(nn::State& state) {
  gInterruptFlag = &state.interpreter().interrupt();
  struct sigaction sa {};
  sa.sa_handler = onSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
}

// The modules shipped with nn (optim, metrics, ...: stdlib/lib): beside the
// binary in a build tree (build/lib), or in share/nn/lib of the prefix it
// is installed in.
std::string libraryDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return NN_STDLIB_DIR;
  std::filesystem::path dir = exe.parent_path();
  if (std::filesystem::is_directory(dir / "lib", ec) && std::filesystem::exists(dir / "lib" / "optim.nn", ec))
    return (dir / "lib").string();
  std::filesystem::path installed = dir.parent_path() / "share" / "nn" / "lib";
  return std::filesystem::is_directory(installed, ec) ? installed.string() : std::string(NN_STDLIB_DIR);
}

std::vector<std::string> searchPathFromEnv() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("NN_PATH")) {
    std::stringstream ss(env);
    for (std::string d; std::getline(ss, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  dirs.push_back(libraryDir());
  return dirs;
}

// Prints a failed run's error; the exit status of the command.
int report(const nn::State& state, const nn::Status& status) {
  std::cout.flush();
  if (status.ok()) return 0;
  const nn::Diagnostic& d = status.error().diagnostic;
  if (d.errorClass == nn::ErrorClass::SystemExit) {  // exit(): its status, its message if any
    if (!d.message.empty()) std::cerr << d.message << "\n";
    return d.exitStatus;
  }
  state.render(status.error(), std::cerr);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nn — a scripting language for neural computation.\n"
               "Runs FILE.nn with ARGS in argv, or starts the REPL when no FILE is given.",
               "nn"};
  app.footer("Environment: NN_PATH=dir1:dir2 adds module search folders.");
  std::string code, mode = "graph", emit, printAfter, schedule = "auto", check, fusion, jit = "on", jitCache = "on";
  bool version = false, printAfterAll = false, explainRecompile = false, stats = false, explainJit = false;
  int cpuDevices = 1;
  std::string deviceFallback;
  app.add_option("-c", code, "Run CODE as a script");
  app.add_option("--mode", mode, "Execution mode")->check(CLI::IsMember({"eager", "graph"}));
  app.add_option("--schedule", schedule,
                 "Graph mode: run independent operations in parallel where it pays (auto), wherever possible "
                 "(parallel), or in program order (serial)")
      ->check(CLI::IsMember({"auto", "parallel", "serial"}));
  std::string partition = "merge";
  app.add_option("--partition", partition,
                 "Graph mode: run a block whose operations are on several devices as one merged graph, devices "
                 "working at once (merge, the default), or each device's part in turn (split)")
      ->check(CLI::IsMember({"merge", "split"}));
  app.add_option("--jit", jit,
                 "Graph mode and @jit functions: compile fused elementwise chains, loops and functions of numbers "
                 "to native code with LLVM once they have run often enough to repay the compile time (on, the "
                 "default), at their first run (always), or never (off)")
      ->check(CLI::IsMember({"on", "always", "off"}));
  app.add_option("--fusion", fusion,
                 "Graph mode: run chains of elementwise operations as one fused node (on) or op by op (off); "
                 "by default on with the JIT, off without it (fused nodes the JIT does not compile run op by op "
                 "over cache-sized tiles)")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--jit-cache", jitCache,
                 "Graph mode: keep compiled kernels in $XDG_CACHE_HOME/nn (default ~/.cache/nn) for later runs (on, "
                 "the default) or not (off)")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--cpu-devices", cpuDevices,
                 "How many CPU devices exist: cpu, then logical devices cpu:1 ... cpu:N-1, each with its own memory "
                 "accounting and worker thread (for placement and testing)")
      ->check(CLI::Range(1, 64));
  app.add_option("--device-fallback", deviceFallback, "Map a device that does not exist to this one, with a warning")
      ->check(CLI::IsMember({"cpu"}));
  app.add_flag("--explain-jit", explainJit, "Graph mode: say at each fused node the JIT does not compile why");
  bool explainPlacement = false;
  app.add_flag("--explain-placement", explainPlacement,
               "Graph mode: as each function is compiled, print the device of each of its operations with its line, "
               "and each copy between devices with the value it moves and its size (on stderr)");
  app.add_option("--check", check, "Run FILE in graph and eager mode and report the first value that differs")
      ->check(CLI::IsMember({"eager"}));
  app.add_option("--emit", emit,
                 "Print a pipeline stage of FILE instead of running it; llvm: run FILE in graph mode and print the "
                 "optimised LLVM IR of each fused kernel as the JIT compiles it")
      ->check(CLI::IsMember({"tokens", "ast", "ir", "ir-opt", "llvm"}));
  app.add_option("--print-ir-after", printAfter, "Print the IR after the named pass");
  app.add_flag("--print-ir-after-all", printAfterAll, "Print the IR after every pass");
  app.add_flag("--explain-recompile", explainRecompile, "Graph mode: say at the call site why a function is recompiled");
  app.add_flag("--stats", stats, "After the script: compile times, memory estimates and executor figures on stderr");
  std::vector<std::string> warnings;
  app.add_option("-W", warnings,
                 "-Wno-lost-update: no warning for updates of a tensor that nothing can see; "
                 "-Wfail-if-reached: graph mode warns at compile time where a line will fail if it is reached")
      ->check(CLI::IsMember({"lost-update", "no-lost-update", "fail-if-reached", "no-fail-if-reached"}))
      ->allow_extra_args(false);
  app.add_flag("--version", version, "Print the version and exit");
  bool reference = false;
  app.add_flag("--builtin-reference", reference, "Print the builtin reference (docs/builtins.md) and exit");
  app.prefix_command();  // FILE and everything after it belong to the script
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and succeeds; a bad command line is status 1 like
    // every other error (not CLI11's own codes).
    int code = app.exit(e);
    return code == 0 ? 0 : 1;
  }
  if (version) {
    std::cout << "nn " << NN_VERSION << "\n";
    return 0;
  }
  if (reference) {
    std::cout << nn::stdlib::builtinReferenceMarkdown();
    return 0;
  }
  std::vector<std::string> rest = app.remaining();
  nn::StateOptions options;
  options.mode = mode == "eager" ? nn::ExecMode::Eager : nn::ExecMode::Graph;
  options.searchPath = searchPathFromEnv();
  options.argv = rest;
  options.printIrAfter = printAfterAll ? "all" : printAfter;
  options.explainRecompile = explainRecompile;
  options.schedule = schedule == "serial"     ? nn::rt::Schedule::Serial
                     : schedule == "parallel" ? nn::rt::Schedule::Parallel
                                              : nn::rt::Schedule::Auto;
  options.stats = stats;
  options.partition = partition == "split" ? nn::rt::Partition::Split : nn::rt::Partition::Merge;
  options.jit = jit != "off";
  options.jitAtFirstRun = jit == "always";
  options.fusion = fusion.empty() ? options.jit : fusion == "on";
  options.explainJit = explainJit;
  options.explainPlacement = explainPlacement;
  options.jitCache = jitCache == "on";
  options.emitLlvm = emit == "llvm";
  options.cpuDevices = cpuDevices;
  options.deviceFallback = deviceFallback;
  for (const std::string& w : warnings) {
    if (w.ends_with("lost-update")) options.warnLostUpdates = w == "lost-update";
    if (w.ends_with("fail-if-reached")) options.warnFailIfReached = w == "fail-if-reached";
  }
  if (!printAfter.empty() && !nn::passes::findPass(printAfter)) {
    std::cerr << "error: unknown pass '" << printAfter << "'\n";
    return 1;
  }
  if (!code.empty() && options.argv.empty()) options.argv.push_back("-c");
  nn::State state(options, std::cout, std::cerr);

  if (!emit.empty() && rest.empty()) {
    std::cerr << "error: --emit needs a FILE\n";
    return 1;
  }
  if (!emit.empty() && !options.emitLlvm) {
    nn::Stage stage = emit == "tokens" ? nn::Stage::Tokens
                      : emit == "ast"  ? nn::Stage::Ast
                      : emit == "ir"   ? nn::Stage::Ir
                                       : nn::Stage::IrOpt;
    return report(state, state.emit(rest[0], stage));
  }
  if (!check.empty()) {
    if (rest.empty()) {
      std::cerr << "error: --check needs a FILE\n";
      return 1;
    }
    return nn::checkAgainstEager(options, rest[0], std::cout, std::cerr);
  }
  if (!code.empty() || !rest.empty()) interruptOnSigint(state);
  if (!code.empty()) return report(state, state.runString(code, "<string>"));
  if (!rest.empty()) return report(state, state.runFile(rest[0]));
  return nn::runRepl(state, std::cin, isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
}
