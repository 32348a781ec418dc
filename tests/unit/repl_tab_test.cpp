// The interactive REPL on a pseudo-terminal: Tab at the start of a line
// indents (libedit would otherwise complete a file name there), and Ctrl-D
// at the prompt leaves.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace {

// Reads what the child writes until `want` appears or 10 s pass.
std::string readUntil(int fd, const std::string& want) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (out.find(want) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

void type(int fd, const std::string& s) { ASSERT_EQ(write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size())); }

// Waits (10 s at most) until the line editor has the terminal: the prompt
// is written while the terminal is still in line mode, and a Ctrl-D typed
// then is taken by the line mode and lost (as in CPython's REPL). The
// master side reads the terminal's settings.
bool lineEditorReading(int master) {
  for (int i = 0; i < 1000; ++i) {
    termios t{};
    if (tcgetattr(master, &t) == 0 && !(t.c_lflag & ICANON)) return true;
    usleep(10000);
  }
  return false;
}

}  // namespace

TEST(ReplTerminal, TabIndentsAtTheStartOfALine) {
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("HOME", "/nonexistent", 1);  // no history file
    setenv("TERM", "dumb", 1);
    execl(NN_BINARY, NN_BINARY, static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string banner = readUntil(master, ">>> ");
  ASSERT_NE(banner.find(">>> "), std::string::npos) << banner;
  type(master, "if True:\r");
  readUntil(master, "... ");
  type(master, "\tprint(40 + 2)\r");
  readUntil(master, "... ");
  type(master, "\r");
  std::string out = readUntil(master, "42\r\n>>> ");
  EXPECT_NE(out.find("42\r\n>>> "), std::string::npos) << out;
  EXPECT_EQ(out.find("error"), std::string::npos) << out;
  EXPECT_TRUE(lineEditorReading(master));
  type(master, "\x04");  // Ctrl-D leaves
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 100 && !exited; ++i) {
    exited = waitpid(pid, &status, WNOHANG) == pid;
    if (!exited) usleep(50000);
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  EXPECT_TRUE(exited && WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  close(master);
}
