// Graph-mode runtime pieces on IR text: execution plans (dependencies over
// data and order edges, lanes, when a block is worth running in
// parallel), pre-resolved ops, and the memory-plan estimate.
#include <gtest/gtest.h>
#include <omp.h>

#include "ir/text.h"
#include "runtime/device.h"
#include "runtime/execution_plan.h"
#include "runtime/execution_queue.h"
#include "runtime/memory_plan.h"
#include "test_device.h"

namespace {

using namespace nn::rt;

// A pool of two threads that take 5 microseconds to hand a node to.
const PoolFacts kTwoWorkers{2, [] { return 5000.0; }, {}, {}};

std::unique_ptr<nn::ir::Graph> parseText(nn::SourceManager& sm, const std::string& text) {
  return nn::ir::parse(sm, sm.add("t.ir", text));
}

// Two independent matmul chains with a print between them (tensors small
// enough that each kernel runs on one core, too small to be worth handing
// to another thread).
const char* kTwoChains =
    "func @f(%a: f32[8, 8], %b: f32[8, 8]) {\n"
    "  %0 = matmul %a, %a : f32[8, 8]\n"
    "  %1 = matmul %b, %b : f32[8, 8]\n"
    "  %2 = builtin {name = \"print\"} : func\n"
    "  %3 = call %2, %0 : none order(-> %4)\n"
    "  %5 = matmul %0, %1 : f32[8, 8]\n"
    "  %6 = call %2, %5 : none order(%4 -> %7)\n"
    "  return %5\n"
    "}\n";

TEST(ExecutionPlan, DependenciesLanesAndParallelism) {
  nn::SourceManager sm;
  auto g = parseText(sm, kTwoChains);
  auto p = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice(), kTwoWorkers, {});
  ASSERT_EQ(p->nodes.size(), 6u);
  EXPECT_EQ(p->deps, (std::vector<uint32_t>{0, 0, 0, 2, 2, 3}));  // print: builtin + %0; last print: order edge too
  EXPECT_EQ(p->lane[0], Lane::Pool);
  EXPECT_EQ(p->lane[2], Lane::Inline);
  EXPECT_EQ(p->lane[3], Lane::Main);
  EXPECT_FALSE(p->parallel);  // the two first matmuls are independent, but 512 MACs each
  ASSERT_TRUE(p->fast[0]);
  EXPECT_TRUE(p->fast[0]->matmul);
  // %0 is read by the print and by the third matmul; %5 is returned.
  EXPECT_EQ(p->readers[p->operandLocal[4][0]], 2u);
  EXPECT_TRUE(p->keep[p->defines[4][0]]);
}

// Independent kernels that each run on one core for tens of microseconds
// (just under the size from which a kernel splits itself) are worth
// running side by side when there is a second worker.
TEST(ExecutionPlan, ParallelWhenOverlapOutweighsHandOff) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%a: f32[128, 200], %b: f32[128, 200]) {\n"
                     "  %0 = exp %a : f32[128, 200]\n"
                     "  %1 = exp %b : f32[128, 200]\n"
                     "  %2 = add %0, %1 : f32[128, 200]\n"
                     "  return %2\n"
                     "}\n");
  const nn::ir::Block& body = *g->functions()[0]->body();
  auto p = buildPlan(body, nn::rt::testDevice(), kTwoWorkers, {});
  EXPECT_EQ(p->lane[0], Lane::Pool);
  EXPECT_GT(p->work[0], 20000.0);  // about a nanosecond per element
  EXPECT_TRUE(p->parallel);
  EXPECT_FALSE(buildPlan(body, nn::rt::testDevice(), PoolFacts{1, [] { return 5000.0; }, {}, {}}, {})->parallel);  // no second worker
  EXPECT_FALSE(buildPlan(body, nn::rt::testDevice(), PoolFacts{2, [] { return 50000.0; }, {}, {}}, {})->parallel);  // a slow hand-off
}

// A block whose nodes are on several devices (as the IR says: copies and
// what is computed from them) is partitioned: it runs as one merged DAG
// whatever the estimate, and a large matmul on a device with a thread of
// its own goes to the pool, where it only waits for that device.
TEST(ExecutionPlan, BlocksOnSeveralDevicesRunAsOneMergedDag) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%a: f32[64, 784], %w: f32[784, 256]) {\n"
                     "  %0 = to %a {device = \"cpu:1\"} : f32[64, 784]\n"
                     "  %1 = to %w {device = \"cpu:1\"} : f32[784, 256]\n"
                     "  %2 = matmul %0, %1 : f32[64, 256]\n"
                     "  %3 = matmul %a, %w : f32[64, 256]\n"
                     "  %4 = to %2 {device = \"cpu\"} : f32[64, 256]\n"
                     "  %5 = add %4, %3 : f32[64, 256]\n"
                     "  return %5\n"
                     "}\n");
  PoolFacts devices{2, [] { return 5000.0; }, [](const std::string& d) { return d == "cpu:1"; }, {}};
  auto p = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice(), devices, {});
  EXPECT_TRUE(p->multiDevice);
  EXPECT_TRUE(p->parallel);
  EXPECT_EQ(p->devices, (std::vector<std::string>{"cpu:1", "cpu"}));
  EXPECT_EQ(p->device, (std::vector<int32_t>{0, 0, 0, -1, 1, -1}));  // %3 reads parameters: the run decides
  EXPECT_EQ(p->lane[2], Lane::Pool);  // on cpu:1's own thread
  if (omp_get_max_threads() >= 2) {
    EXPECT_EQ(p->lane[3], Lane::Main);  // splits itself over this thread's cores
  }
  // Where the device's queue has a thread of its own, its nodes run there.
  WorkerCpuDevice worker("cpu:1");
  PoolFacts threaded = devices;
  threaded.threadQueue = [&](const std::string& d) -> ExecutionQueue* {
    return d == "cpu:1" ? &worker.queue() : nullptr;
  };
  auto q = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice(), threaded, {});
  EXPECT_EQ(q->queues, (std::vector<ExecutionQueue*>{&worker.queue(), nullptr}));
  EXPECT_EQ(q->lane[2], Lane::Device);
  EXPECT_NE(q->lane[4], Lane::Device);  // the copy to cpu
  // One device only: as before.
  auto one = parseText(sm,
                       "func @f(%a: f32[8, 8]) {\n"
                       "  %0 = to %a {device = \"cpu:1\"} : f32[8, 8]\n"
                       "  %1 = matmul %0, %0 : f32[8, 8]\n"
                       "  return %1\n"
                       "}\n");
  EXPECT_FALSE(buildPlan(*one->functions()[0]->body(), nn::rt::testDevice(), devices, {})->multiDevice);
}

// A kernel that splits itself over the cores (a large matmul) runs on the
// block's own thread, as in eager mode, never one core of the pool.
TEST(ExecutionPlan, SelfSplittingKernelsStayOnTheMainLane) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%a: f32[64, 784], %w: f32[784, 256], %v: f32[784, 256]) {\n"
                     "  %0 = matmul %a, %w : f32[64, 256]\n"
                     "  %1 = matmul %a, %v : f32[64, 256]\n"
                     "  %2 = add %0, %1 : f32[64, 256]\n"
                     "  return %2\n"
                     "}\n");
  auto p = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice(), kTwoWorkers, {});
  EXPECT_GT(p->work[0], 12.8e6 * 0.01);  // 12.8M multiply-adds
  if (omp_get_max_threads() > 1) {
    EXPECT_EQ(p->lane[0], Lane::Main);
    EXPECT_EQ(p->lane[1], Lane::Main);
    EXPECT_FALSE(p->parallel);
  } else {
    EXPECT_EQ(p->lane[0], Lane::Pool);  // on one core the kernel cannot split
  }
}

TEST(ExecutionPlan, ChainIsNotParallel) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%a: f32[4]) {\n"
                     "  %0 = const {value = 2.0} : float\n"
                     "  %1 = mul %a, %0 : f32[4]\n"
                     "  %2 = exp %1 : f32[4]\n"
                     "  %3 = add %2, %a : f32[4]\n"
                     "  return %3\n"
                     "}\n");
  auto p = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice(), kTwoWorkers, {});
  EXPECT_FALSE(p->parallel);
  // mul by a literal, exp and add all run pre-resolved.
  for (size_t i = 1; i < 4; ++i) EXPECT_TRUE(p->fast[i]) << i;
  EXPECT_TRUE(p->fast[1]->constant[1].has_value());
}

TEST(ExecutionPlan, UntypedOpsAreNotPreResolved) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%a: any, %b: f32[4], %c: f32[3]) {\n"
                     "  %0 = add %a, %a : any\n"
                     "  %1 = add %b, %c : any\n"
                     "  %2 = make_tuple %0, %1 : tuple\n"
                     "  return %2\n"
                     "}\n");
  auto p = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice(), kTwoWorkers, {});
  EXPECT_FALSE(p->fast[0]);
  EXPECT_FALSE(p->fast[1]);
}

// Liveness-based planning: a chain of elementwise ops over 1 KiB tensors
// needs one buffer beyond the input when each result reuses its dying
// operand; the naive plan keeps all four results.
TEST(MemoryPlan, ChainReusesDyingOperands) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%a: f32[256]) {\n"
                     "  %0 = exp %a : f32[256]\n"
                     "  %1 = neg %0 : f32[256]\n"
                     "  %2 = exp %1 : f32[256]\n"
                     "  %3 = add %2, %a : f32[256]\n"
                     "  return %3\n"
                     "}\n");
  MemoryEstimate m = estimateMemory(*g->functions()[0]);
  EXPECT_EQ(m.naive, 4u * 1024);
  EXPECT_EQ(m.planned, 1024u);
}

}  // namespace
