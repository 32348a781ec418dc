// Process spawning with pipes for the test runners.
#include "run_capture.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

Captured runCapture(const std::vector<std::string>& argv, const std::string& input, bool mergeStderr) {
  int inPipe[2], outPipe[2], errPipe[2];
  if (pipe(inPipe) || pipe(outPipe) || pipe(errPipe)) return {};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, inPipe[0], 0);
  posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, mergeStderr ? outPipe[1] : errPipe[1], 2);
  for (int fd : {inPipe[0], inPipe[1], outPipe[0], outPipe[1], errPipe[0], errPipe[1]})
    posix_spawn_file_actions_addclose(&fa, fd);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  Captured c;
  if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ) != 0) {
    c.err = std::string("cannot start ") + argv[0];
    return c;
  }
  posix_spawn_file_actions_destroy(&fa);
  close(inPipe[0]);
  close(outPipe[1]);
  close(errPipe[1]);
  size_t written = 0;
  if (input.empty()) close(inPipe[1]);
  fcntl(inPipe[1], F_SETFL, O_NONBLOCK);
  bool inOpen = !input.empty(), outOpen = true, errOpen = true;
  char buf[65536];
  while (outOpen || errOpen) {
    pollfd fds[3];
    int n = 0;
    int outIdx = -1, errIdx = -1, inIdx = -1;
    if (outOpen) outIdx = n, fds[n++] = {outPipe[0], POLLIN, 0};
    if (errOpen) errIdx = n, fds[n++] = {errPipe[0], POLLIN, 0};
    if (inOpen) inIdx = n, fds[n++] = {inPipe[1], POLLOUT, 0};
    if (poll(fds, n, -1) < 0) break;
    if (inIdx >= 0 && (fds[inIdx].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(inPipe[1], input.data() + written, input.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if (w < 0 || written == input.size()) {
        close(inPipe[1]);
        inOpen = false;
      }
    }
    struct Stream {
      int idx, fd;
      bool* open;
      std::string* dst;
    };
    for (Stream st : {Stream{outIdx, outPipe[0], &outOpen, &c.out}, Stream{errIdx, errPipe[0], &errOpen, &c.err}}) {
      if (st.idx < 0 || !(fds[st.idx].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t r = read(st.fd, buf, sizeof buf);
      if (r > 0) st.dst->append(buf, static_cast<size_t>(r));
      else *st.open = false;
    }
  }
  if (inOpen) close(inPipe[1]);
  close(outPipe[0]);
  close(errPipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  c.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  return lines;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trimRight(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}
