// Ctrl-C reaches running code: the nn REPL runs in a child process fed
// through a pipe, the test sends SIGINT while a long computation runs, and
// expects a located "interrupted" error followed by a working prompt. The
// signal is repeated until the error appears, so a signal that arrives
// before the computation starts (and is cleared with the next input) does
// not make the test wait for the computation to finish. A signal that
// arrives while the REPL waits for piped input must not end the session.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace {

struct Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
};

Child spawnRepl() {
  int in[2], out[2], err[2];
  if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    execl(NN_BINARY, NN_BINARY, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  return {pid, in[1], out[0], err[0]};
}

void send(const Child& c, const std::string& text) {
  ASSERT_EQ(write(c.in, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

// Reads what is available on `fd` within `ms` milliseconds.
void drain(int fd, std::string& into, int ms) {
  pollfd p{fd, POLLIN, 0};
  char buf[4096];
  while (poll(&p, 1, ms) > 0) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return;
    into.append(buf, static_cast<size_t>(n));
    ms = 0;
  }
}

// Runs `program` (after `setup`) in the REPL, interrupts it, then checks the
// session goes on. Returns stderr and stdout of the session.
std::pair<std::string, std::string> interruptRun(const std::string& setup, const std::string& program) {
  Child c = spawnRepl();
  EXPECT_GT(c.pid, 0);
  std::string out, err;
  send(c, setup + "print('started')\n");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (out.find("started") == std::string::npos && std::chrono::steady_clock::now() < deadline) drain(c.out, out, 50);
  send(c, program);
  // The first signal waits until the input is compiled and running (it
  // would stop the first call otherwise, before any recursion).
  drain(c.err, err, 300);
  // A signal is repeated only after a second without the error, so a late
  // extra signal rarely reaches the next input (which clears it anyway).
  while (err.find("interrupted") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    kill(c.pid, SIGINT);
    for (int i = 0; i < 10 && err.find("interrupted") == std::string::npos; ++i) drain(c.err, err, 100);
  }
  send(c, "print('alive')\n");
  close(c.in);
  int status = 0;
  while (waitpid(c.pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
    drain(c.out, out, 20);
    drain(c.err, err, 20);
  }
  drain(c.out, out, 100);
  drain(c.err, err, 100);
  if (std::chrono::steady_clock::now() >= deadline) kill(c.pid, SIGKILL);
  close(c.out);
  close(c.err);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << err;
  return {err, out};
}

TEST(Interrupt, StopsDeepRecursionWithALocatedError) {
  auto [err, out] = interruptRun("def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n", "fib(60)\n");
  EXPECT_NE(err.find("error: interrupted"), std::string::npos) << err;
  EXPECT_NE(err.find("--> <stdin>:"), std::string::npos) << err;
  EXPECT_NE(err.find("called from"), std::string::npos) << err;
  EXPECT_NE(out.find("alive"), std::string::npos) << out;
}

// In graph mode the recursion runs as native code once it is hot: the
// code reads the flag at each call, and the interpreted run of the call
// it declines raises with the call trace.
TEST(Interrupt, StopsNativeRecursionWithALocatedError) {
  auto [err, out] = interruptRun(":mode graph\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n",
                                 "fib(60)\n");
  EXPECT_NE(err.find("error: interrupted"), std::string::npos) << err;
  EXPECT_NE(err.find("--> <stdin>:"), std::string::npos) << err;
  EXPECT_NE(err.find("called from"), std::string::npos) << err;
  EXPECT_NE(out.find("alive"), std::string::npos) << out;
}

TEST(Interrupt, StopsAGraphModeLoop) {
  auto [err, out] = interruptRun(
      ":mode graph\n"
      "def spin(n):\n    i = 0\n    x = zeros(4)\n    while i < n:\n        x = x * 0.5 + 1.0\n        i += 1\n"
      "    return x\n\n",
      "spin(1000000000000)\n");
  EXPECT_NE(err.find("error: interrupted"), std::string::npos) << err;
  EXPECT_NE(err.find("--> <stdin>:"), std::string::npos) << err;
  EXPECT_NE(out.find("alive"), std::string::npos) << out;
}

}  // namespace
