// Failure injection: an allocation failing at any point of a run (the Nth
// tensor allocation, N = 0, 1, 2, ... until the run completes) is a located
// "out of memory" error, never a crash, and the state runs the next input
// as if nothing had happened; in eager and in graph mode.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>

#include "stdlib/state.h"

namespace {

const char* kScript =
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
    nn::Status s = state.runString(kScript, "inject.nn");
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
