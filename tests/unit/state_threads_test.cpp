// Two interpreter states in two threads at once: each has its own devices,
// random generator, compile cache and pass context (runtime/context.h), so
// they share no mutable data and each computes exactly what it computes
// alone. CI runs these tests under ThreadSanitizer (-DNN_SANITIZE=thread),
// which reports any data race between the states or inside the shared
// thread pool they both submit graph nodes to.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "stdlib/state.h"

namespace {

// Graph mode with the parallel schedule forced (independent nodes run on
// the pool even where the default schedule would judge them too small), specialisation and recompilation, a seeded generator, constant
// folding, allocation on the state's device, and an error caught inside.
const char* kThreadsScript =
    "def layer(x, w, b):\n"
    "    return relu(x @ w + b)\n"
    "def model(x, ws):\n"
    "    h = x\n"
    "    for w in ws:\n"
    "        h = layer(h, w, 0.5)\n"
    "    return h.sum()\n"
    "seed(SEED)\n"
    "ws = [randn(32, 32) * 0.1 for i in range(4)]\n"
    "total = 0.0\n"
    "for step in range(12):\n"
    "    x = rand(8, 32)\n"
    "    a = model(x, ws)\n"
    "    b = model(x[:4], ws)\n"
    "    total = total + float(a) + float(b)\n"
    "print(f'{total:.6f}', 2 ** 10 + 3 * 7)\n"
    "def branches(x, w):\n"
    "    p = relu(x @ w)\n"
    "    q = tanh(x @ w.T)\n"
    "    return (p * q).sum()\n"
    "w = randn(64, 64)\n"
    "for i in range(6):\n"
    "    print(f'{float(branches(rand(64, 64), w)):.4f}')\n";

std::string scriptWithSeed(int seed) {
  std::string s = kThreadsScript;
  size_t at = s.find("SEED");
  return s.substr(0, at).append(std::to_string(seed)).append(s.substr(at + 4));
}

struct Outcome {
  bool ok = false;
  std::string out, err;
};

nn::StateOptions parallelGraph() {
  nn::StateOptions o;
  o.schedule = nn::rt::Schedule::Parallel;
  return o;
}

Outcome runAlone(const std::string& code) {
  std::ostringstream out, err;
  nn::State state(parallelGraph(), out, err);
  nn::Status st = state.runString(code, "threads.nn");
  if (!st.ok()) state.render(st.error(), err);
  return {st.ok(), out.str(), err.str()};
}

TEST(States, TwoStatesInTwoThreadsComputeWhatEachComputesAlone) {
  const std::string codeA = scriptWithSeed(1), codeB = scriptWithSeed(2);
  Outcome aloneA = runAlone(codeA), aloneB = runAlone(codeB);
  ASSERT_TRUE(aloneA.ok) << aloneA.err;
  ASSERT_TRUE(aloneB.ok) << aloneB.err;
  ASSERT_NE(aloneA.out, aloneB.out);  // the seeds differ: the states' generators are their own
  for (int round = 0; round < 3; ++round) {
    Outcome a, b;
    std::thread ta([&] { a = runAlone(codeA); });
    std::thread tb([&] { b = runAlone(codeB); });
    ta.join();
    tb.join();
    EXPECT_EQ(a.out, aloneA.out) << a.err;
    EXPECT_EQ(b.out, aloneB.out) << b.err;
  }
}

// Errors, interrupts and seeds of one state never reach the other.
TEST(States, AnErrorOrInterruptInOneStateLeavesTheOtherRunning) {
  std::ostringstream outA, errA, outB, errB;
  nn::State a(parallelGraph(), outA, errA), b(parallelGraph(), outB, errB);
  nn::Status failed, fine;
  std::atomic<bool> aDone{false};
  std::thread ta([&] {
    failed = a.runString("seed(3)\nx = zeros(4)\nwhile True:\n    x = x * 0.5 + 1.0\n", "spin.nn");
    aDone = true;
  });
  std::thread tb([&] {
    fine = b.runString("seed(3)\nprint(float(rand(3).sum()) > 0.0, (ones(2, 3) @ ones(3, 2)).sum())\n", "b.nn");
    // Stops only a's loop (repeated: a may not have started yet).
    while (!aDone) {
      a.interpreter().interrupt().store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  tb.join();
  ta.join();
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(outB.str(), "True 12.0\n");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "interrupted");
  EXPECT_EQ(failed.error().file, "spin.nn");
}

}  // namespace
