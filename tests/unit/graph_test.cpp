// Graph-mode runtime pieces on IR text: execution plans (dependencies over
// data and order edges, lanes, when a block is worth running in
// parallel), pre-resolved ops, and the memory-plan estimate.
#include <gtest/gtest.h>

#include "ir/text.h"
#include "runtime/execution_plan.h"
#include "runtime/memory_plan.h"
#include "test_device.h"

namespace {

using namespace nn::rt;

std::unique_ptr<nn::ir::Graph> parseText(nn::SourceManager& sm, const std::string& text) {
  return nn::ir::parse(sm, sm.add("t.ir", text));
}

// Two independent matmul chains with a print between them (tensors small
// enough that each kernel runs on one core).
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
  auto p = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice());
  ASSERT_EQ(p->nodes.size(), 6u);
  EXPECT_EQ(p->deps, (std::vector<uint32_t>{0, 0, 0, 2, 2, 3}));  // print: builtin + %0; last print: order edge too
  EXPECT_EQ(p->lane[0], Lane::Pool);
  EXPECT_EQ(p->lane[2], Lane::Inline);
  EXPECT_EQ(p->lane[3], Lane::Main);
  EXPECT_TRUE(p->parallel);  // the two first matmuls are independent
  ASSERT_TRUE(p->fast[0]);
  EXPECT_TRUE(p->fast[0]->matmul);
  // %0 is read by the print and by the third matmul; %5 is returned.
  EXPECT_EQ(p->readers[p->operandLocal[4][0]], 2u);
  EXPECT_TRUE(p->keep[p->defines[4][0]]);
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
  auto p = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice());
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
  auto p = buildPlan(*g->functions()[0]->body(), nn::rt::testDevice());
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
