// Failure injection: an allocation failing at any point of a run (the Nth
// tensor allocation, N = 0, 1, 2, ... until the run completes) is a located
// "out of memory" error, never a crash, and the state runs the next input
// as if nothing had happened; in eager and in graph mode. A save whose
// write fails midway (the file size limit, RLIMIT_FSIZE, reached) or that
// has nowhere to write is a located error that leaves the previous file
// intact and no temporary behind. An interrupt at any moment of a graph-mode
// run (serial or parallel executor, native loops) stops it with a located
// "interrupted" error and leaves no tensor alive; one during time.sleep
// stops the sleep, and a script may catch it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "stdlib/state.h"
#include "temp_dir.h"

namespace {

const char* kInjectedScript =
    "x = ones(32, 16)\n"
    "def step(w, x):\n"
    "    h = relu(x @ w + 0.5)\n"
    "    return softmax(h, axis=1).sum() + h.mean()\n"
    "w = randn(16, 8)\n"
    "total = 0.0\n"
    "for i in range(3):\n"
    "    total += float(step(w, x))\n"
    "g = grad(lambda w: step(w, x))(w)\n"
    "print(total > 0, g.shape)\n";

void injectEverywhere(nn::ExecMode mode) {
  bool completed = false;
  long failures = 0;
  for (long n = 0; n < 2000 && !completed; ++n) {
    std::ostringstream out, err;
    nn::StateOptions options;
    options.mode = mode;
    nn::State state(options, out, err);
    state.interpreter().context().cpu().allocator().failAfter(n);
    nn::Status s = state.runString(kInjectedScript, "inject.nn");
    state.interpreter().context().cpu().allocator().failAfter(-1);
    if (s.ok()) {
      completed = true;
      EXPECT_EQ(out.str(), "True (16, 8)\n");
      break;
    }
    ++failures;
    EXPECT_NE(s.error().message.find("out of memory"), std::string::npos) << "allocation " << n << ": " << s.error().message;
    EXPECT_EQ(s.error().file, "inject.nn") << "allocation " << n << ": " << s.error().message;
    EXPECT_GE(s.error().line, 1u);
    nn::Status after = state.runString("print(sum([1, 2, 3]))\n", "after.nn");
    EXPECT_TRUE(after.ok()) << "allocation " << n << ": the state is not usable after the failure";
  }
  EXPECT_TRUE(completed) << "the script never ran to its end";
  EXPECT_GT(failures, 10) << "too few allocations were made to fail";
  std::cout << failures << " allocation points failed as located errors\n";
}

}  // namespace

TEST(FailureInjection, EveryAllocationFailureIsALocatedErrorEager) { injectEverywhere(nn::ExecMode::Eager); }
TEST(FailureInjection, EveryAllocationFailureIsALocatedErrorGraph) { injectEverywhere(nn::ExecMode::Graph); }

namespace {

namespace fs = std::filesystem;

using nn::test::TempDir;

// The file size limit for this process, lowered for one scope (the hard
// limit is kept, so it can be raised back), with SIGXFSZ ignored so that a
// write past it fails with EFBIG instead of killing the test.
struct FileSizeLimit {
  rlimit before{};
  struct sigaction oldAction{};
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &before);
    struct sigaction ignore{};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &ignore, &oldAction);
    rlimit lowered = before;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &before);
    sigaction(SIGXFSZ, &oldAction, nullptr);
  }
};

}  // namespace

TEST(FailureInjection, ASaveFailingMidwayKeepsThePreviousFile) {
  TempDir dir("nn_inject");
  std::string path = (dir.path / "model.npz").string();
  std::ostringstream out, err;
  nn::State state(nn::StateOptions{}, out, err);
  ASSERT_TRUE(state.runString("save('" + path + "', {'w': ones(4, 4)})\n", "first.nn").ok());
  auto before = fs::file_size(path);
  nn::Status s;
  {
    FileSizeLimit limit(64 * 1024);
    s = state.runString("params = {'w': ones(256, 256), 'b': zeros(256)}\nsave('" + path + "', params)\n", "second.nn");
  }
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot write '" + path + "'"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().file, "second.nn");
  EXPECT_EQ(s.error().line, 2u);
  EXPECT_EQ(fs::file_size(path), before);
  out.str("");
  ASSERT_TRUE(state.runString("print(load('" + path + "')['w'].shape)\n", "check.nn").ok());
  EXPECT_EQ(out.str(), "(4, 4)\n");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
}

TEST(FailureInjection, ASaveWithNowhereToWriteIsALocatedError) {
  std::ostringstream out, err;
  nn::State state(nn::StateOptions{}, out, err);
  // /proc accepts no new files, not even from root.
  for (std::string path : {"/proc/nn_model.npy", "/nonexistent_dir_nn/model.npy"}) {
    nn::Status s = state.runString("x = ones(3)\nsave('" + path + "', x)\n", "nowhere.nn");
    ASSERT_FALSE(s.ok()) << path;
    EXPECT_NE(s.error().message.find("cannot write '" + path + "'"), std::string::npos) << s.error().message;
    EXPECT_EQ(s.error().line, 2u);
    EXPECT_FALSE(fs::exists(path));
  }
}

namespace {

// A training loop of `steps` steps; the script prints True.
std::string trainingScript(int steps) {
  return "def step(w, x):\n"
         "    h = relu(x @ w + 0.5)\n"
         "    return softmax(h, axis=1).sum() + tanh(h).mean()\n"
         "def train(n):\n"
         "    x = ones(64, 32)\n"
         "    w = randn(32, 16)\n"
         "    total = 0.0\n"
         "    for i in range(n):\n"
         "        total += float(step(w, x))\n"
         "        w = w - 0.01 * grad(lambda w: step(w, x))(w)\n"
         "    k = 0\n"
         "    while k < 20000:\n"
         "        k += 1\n"
         "    return total > 0 and k == 20000\n"
         "print(train(" +
         std::to_string(steps) + "))\n";
}

// Runs the training script in fresh states, interrupting the i-th run after
// 3i/4runs of the time an uninterrupted run takes.
void interruptEverywhere(nn::rt::Schedule schedule, bool jit) {
  auto options = [&] {
    nn::StateOptions o;
    o.mode = nn::ExecMode::Graph;
    o.schedule = schedule;
    o.jit = jit;
    o.jitAtFirstRun = jit;
    o.jitCache = false;
    return o;
  };
  // The shortest of three uninterrupted runs (the first pays for start-up
  // work the others do not), so that most interrupts land inside a run.
  // The script is lengthened until a run takes 100 ms: a release build runs
  // 40 steps in a few milliseconds, less than the interrupting thread may
  // wait for a core on a loaded machine, so that every run would end before
  // its interrupt.
  std::string script;
  std::chrono::steady_clock::duration whole;
  for (int steps = 40;; steps *= 2) {
    script = trainingScript(steps);
    whole = std::chrono::steady_clock::duration::max();
    for (int i = 0; i < 3; ++i) {
      auto started = std::chrono::steady_clock::now();
      std::ostringstream out, err;
      nn::State state(options(), out, err);
      ASSERT_TRUE(state.runString(script, "train.nn").ok());
      ASSERT_EQ(out.str(), "True\n");
      whole = std::min(whole, std::chrono::steady_clock::now() - started);
    }
    if (whole >= std::chrono::milliseconds(100) || steps >= 40 * 1024) break;
  }
  const int runs = 16;
  int interrupted = 0;
  // Interrupts spread over the first three quarters of a run. A run that
  // ends first (this machine was busier when `whole` was measured) halves
  // the later delays, so that the spread lands inside the runs whatever
  // the load.
  int64_t share = 3 * 1024;
  for (int i = 0; i < runs; ++i) {
    std::ostringstream out, err;
    nn::State state(options(), out, err);
    auto& flag = state.interpreter().interrupt();
    std::thread interrupter([&] {
      std::this_thread::sleep_for(whole * i * share / (runs * 4 * 1024));
      flag.store(true);
    });
    nn::Status s = state.runString(script, "train.nn");
    interrupter.join();
    flag.store(false);
    if (s.ok()) {
      EXPECT_EQ(out.str(), "True\n");
      share = std::max<int64_t>(share / 2, 1);
    } else {
      ++interrupted;
      EXPECT_EQ(s.error().message, "interrupted") << "run " << i;
      EXPECT_EQ(s.error().file, "train.nn") << "run " << i;
      EXPECT_GE(s.error().line, 1u);
    }
    EXPECT_EQ(state.interpreter().context().cpu().allocator().liveBytes(), 0u)
        << "run " << i << ": tensors outlived the " << (s.ok() ? "run" : "interrupted run");
    out.str("");
    ASSERT_TRUE(state.runString("print(sum([1, 2, 3]))\n", "after.nn").ok()) << "run " << i;
    EXPECT_EQ(out.str(), "6\n");
  }
  EXPECT_GE(interrupted, runs / 4) << "too few runs were interrupted";
}

}  // namespace

TEST(FailureInjection, InterruptsAnywhereInGraphMode) { interruptEverywhere(nn::rt::Schedule::Auto, false); }
TEST(FailureInjection, InterruptsAnywhereInTheParallelExecutor) { interruptEverywhere(nn::rt::Schedule::Parallel, false); }
TEST(FailureInjection, InterruptsAnywhereInNativeCode) { interruptEverywhere(nn::rt::Schedule::Auto, true); }

// Ctrl-C (the interrupt flag) during time.sleep stops the sleep at once,
// and `except KeyboardInterrupt` catches it, with `finally` run after, as
// in Python (a training loop's handler saves the model); in both modes.
// The flag is set once the script has written a marker file just before
// its sleep (compiling takes longer than any fixed delay under ASan).
void interruptASleep(nn::ExecMode mode) {
  TempDir dir("nn_inject");
  fs::path marker = dir.path / "sleeping.npy";
  std::string script =
      "import time\n"
      "def wait():\n"
      "    try:\n"
      "        save('" + marker.string() + "', ones(1))\n"
      "        time.sleep(60)\n"
      "    finally:\n"
      "        print('finally')\n"
      "try:\n"
      "    wait()\n"
      "except KeyboardInterrupt as e:\n"
      "    print('caught', e)\n";
  nn::StateOptions o;
  o.mode = mode;
  o.searchPath = {NN_LIB_SOURCE_DIR};
  std::ostringstream out, err;
  nn::State state(o, out, err);
  auto& flag = state.interpreter().interrupt();
  auto started = std::chrono::steady_clock::now();
  std::thread interrupter([&] {
    while (!fs::exists(marker) && std::chrono::steady_clock::now() - started < std::chrono::seconds(30))
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    flag.store(true);
  });
  nn::Status s = state.runString(script, "sleep.nn");
  interrupter.join();
  EXPECT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(out.str(), "finally\ncaught interrupted\n");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30)) << "the sleep was not interrupted";
}

TEST(FailureInjection, InterruptsStopASleepAndAreCaughtInEagerMode) { interruptASleep(nn::ExecMode::Eager); }
TEST(FailureInjection, InterruptsStopASleepAndAreCaughtInGraphMode) { interruptASleep(nn::ExecMode::Graph); }
