// REPL loop: input assembly, the ':' commands, libedit line editing and the
// history file, and Ctrl-C handling (cancels the line being typed or
// interrupts the running program).
#include "repl/repl.h"

#include <editline/readline.h>
#include <signal.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "frontend/parse.h"
#include "stdlib/help.h"

namespace nn {
namespace {

rt::Interpreter* gInterp = nullptr;
volatile sig_atomic_t gInterrupted = 0;

void onSigint(int) {
  gInterrupted = 1;
  if (gInterp) gInterp->interrupt().store(true);
}

std::string historyPath() {
  const char* home = std::getenv("HOME");
  return home ? std::string(home) + "/.nn_history" : std::string();
}

const char* kHelp =
    "nn REPL commands:\n"
    "  :help        show this help\n"
    "  :help NAME   show the signature and description of a builtin or function\n"
    "  :ast         show the AST of the last input\n"
    "  :ir NAME     show the IR of function NAME\n"
    "  :ir-opt NAME show the optimised IR graph mode compiled last for NAME\n"
    "  :llvm NAME   show the LLVM IR of that version's fused kernels\n"
    "  :placement NAME  show where that version's operations run and what it copies between devices\n"
    "  :mode [MODE] show the mode, or run in eager (the default here) or graph mode\n"
    "  :quit        leave (Ctrl-D also leaves)\n"
    "Blocks continue after a ':' line until an empty line. Ctrl-C cancels the input line.\n";

// Tab indents where indentation can go (at the start of the line or after
// whitespace) and completes file names elsewhere, as IPython's does.
// libedit binds keys only to its own functions, so the indentation is the
// one "completion" offered there, with nothing appended after it.
char** indentOrComplete(const char*, int, int) {
  bool indent = rl_point == 0 || std::isspace(static_cast<unsigned char>(rl_line_buffer[rl_point - 1]));
  rl_completion_append_character = indent ? '\0' : ' ';
  if (!indent) return nullptr;
  auto** matches = static_cast<char**>(std::malloc(2 * sizeof(char*)));  // libedit frees them
  matches[0] = strdup("    ");
  matches[1] = nullptr;
  return matches;
}

class LineReader {
 public:
  LineReader(std::istream& in, bool interactive) : in_(in), interactive_(interactive) {
    if (interactive_) {
      rl_attempted_completion_function = indentOrComplete;
      history_ = historyPath();
      using_history();
      if (!history_.empty()) read_history(history_.c_str());
    }
  }
  ~LineReader() {
    if (interactive_ && !history_.empty()) write_history(history_.c_str());
  }

  // Returns nullopt at end of input. A line cancelled with Ctrl-C comes
  // back as cancelled() == true.
  std::optional<std::string> read(const char* prompt) {
    cancelled_ = false;
    if (!interactive_) {
      std::string line;
      if (!std::getline(in_, line)) return std::nullopt;
      return line;
    }
    gInterrupted = 0;
    char* raw = readline(prompt);
    if (gInterrupted) {
      cancelled_ = true;
      std::free(raw);
      std::cout << "\n";
      return std::string();
    }
    if (!raw) return std::nullopt;
    std::string line(raw);
    std::free(raw);
    return line;
  }
  bool cancelled() const { return cancelled_; }
  void remember(const std::string& entry) {
    if (interactive_ && !entry.empty()) add_history(entry.c_str());
  }

 private:
  std::istream& in_;
  bool interactive_;
  bool cancelled_ = false;
  std::string history_;
};

// A Python str literal of s.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
  return q + "'";
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Errors are shown as the state renders them; the session goes on.
void show(const State& state, const Status& status) {
  std::cout.flush();
  if (!status.ok()) state.render(status.error(), std::cerr);
}

}  // namespace

int runRepl(State& state, std::istream& in, bool interactive) {
  gInterp = &state.interpreter();
  struct sigaction sa {};
  sa.sa_handler = onSigint;
  sigemptyset(&sa.sa_mask);
  // Interactive: no SA_RESTART, so readline's blocked read returns and the
  // line is cancelled. Piped input: restart the read, because stdio turns an
  // interrupted read into end of input and the session would end.
  sa.sa_flags = interactive ? 0 : SA_RESTART;
  struct sigaction old {};
  sigaction(SIGINT, &sa, &old);

  if (interactive) std::cout << "nn " << NN_VERSION << " — :help for help, Ctrl-D to exit\n";
  // The REPL runs eagerly (values and errors as each op runs) until :mode graph.
  state.interpreter().setGraphMode(false);
  LineReader reader(in, interactive);
  int exitStatus = 0;
  while (true) {
    auto first = reader.read(">>> ");
    if (!first) break;
    if (reader.cancelled()) continue;
    std::string cmd = trim(*first);
    if (cmd.empty()) continue;
    if (cmd[0] == ':') {
      reader.remember(cmd);
      if (cmd == ":quit" || cmd == ":q" || cmd == ":exit") break;
      if (cmd == ":help") std::cout << kHelp;
      else if (cmd.rfind(":help ", 0) == 0) {
        // A builtin's name (Tensor.sum too) is looked up as text; anything
        // else is evaluated, so a function of the session answers too.
        std::string name = trim(cmd.substr(6));
        show(state, state.replInput(stdlib::builtinDoc(name) ? "help(" + quoted(name) + ")\n" : "help(" + name + ")\n"));
      } else if (cmd == ":ast") std::cout << state.lastAst();
      else if (cmd.rfind(":llvm", 0) == 0) {
        std::string name = trim(cmd.substr(5));
        show(state, name.empty() ? State::failure("usage: :llvm NAME") : state.printFunctionLlvm(name));
      } else if (cmd.rfind(":placement", 0) == 0) {
        std::string name = trim(cmd.substr(10));
        show(state, name.empty() ? State::failure("usage: :placement NAME") : state.printFunctionPlacement(name));
      } else if (cmd.rfind(":ir-opt", 0) == 0) {
        std::string name = trim(cmd.substr(7));
        show(state, name.empty() ? State::failure("usage: :ir-opt NAME") : state.printFunctionIr(name, true));
      } else if (cmd.rfind(":ir", 0) == 0) {
        std::string name = trim(cmd.substr(3));
        show(state, name.empty() ? State::failure("usage: :ir NAME") : state.printFunctionIr(name));
      } else if (cmd.rfind(":mode", 0) == 0) {
        std::string mode = trim(cmd.substr(5));
        if (mode.empty()) std::cout << "mode: " << (state.interpreter().graphMode() ? "graph" : "eager") << "\n";
        else if (mode == "eager" || mode == "graph") state.interpreter().setGraphMode(mode == "graph");
        else show(state, State::failure("usage: :mode eager|graph"));
      } else {
        show(state, State::failure("unknown command '" + cmd + "' (try :help)"));
      }
      std::cout.flush();
      continue;
    }
    std::string buffer = *first + "\n";
    bool cancelled = false;
    while (frontend::needsMoreInput(buffer)) {
      auto more = reader.read("... ");
      if (!more) break;
      if (reader.cancelled()) {
        cancelled = true;
        break;
      }
      buffer += *more + "\n";
    }
    if (cancelled) continue;
    reader.remember(buffer.substr(0, buffer.find_last_not_of('\n') + 1));
    state.interpreter().interrupt().store(false);
    Status status = state.replInput(buffer);
    if (!status.ok() && status.error().diagnostic.errorClass == ErrorClass::SystemExit) {
      if (!status.error().diagnostic.message.empty()) std::cerr << status.error().diagnostic.message << "\n";
      exitStatus = status.error().diagnostic.exitStatus;
      break;
    }
    show(state, status);
    std::cout.flush();
  }
  if (interactive) std::cout << "\n";
  sigaction(SIGINT, &old, nullptr);
  gInterp = nullptr;
  return exitStatus;
}

}  // namespace nn
