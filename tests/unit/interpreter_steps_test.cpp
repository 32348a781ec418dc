// The interpreter's decoded steps (runtime/interpreter_steps.h) on IR text:
// which inline path each node gets, the slots it names, its kills, and the
// loop condition's arguments that are read.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "ir/text.h"
#include "runtime/interpreter_steps.h"

namespace {

using namespace nn::rt;

// A for loop over range(n): the condition reads only the counter; the body
// reads the range's item and counts.
const char* kLoop =
    "func @f(%n: any) {\n"
    "  %0 = const {value = 0} : int\n"
    "  %1 = builtin {name = \"range\"} : func\n"
    "  %2 = call %1, %n : any\n"
    "  %4 = iter %2 : any\n"
    "  %6 = iter_len %4 : int\n"
    "  %7 = const {value = 1} : int\n"
    "  %h = const {value = 0.5} : float\n"
    "  %8, %9 = loop %0, %0 : int, any {\n"
    "  ^cond(%11: int, %12: any):\n"
    "    %13 = lt %11, %6 : bool\n"
    "    condition %13\n"
    "  ^body(%14: int, %15: any):\n"
    "    %16 = iter_item %4, %14 : any\n"
    "    %18 = add %14, %7 : int\n"
    "    yield %18, %16\n"
    "  }\n"
    "  %20 = mul %9, %h : any\n"
    "  return %20\n"
    "}\n";

TEST(InterpreterSteps, KindsSlotsKillsAndTheArgumentsAConditionReads) {
  nn::SourceManager sm;
  auto g = nn::ir::parse(sm, sm.add("t.ir", kLoop));
  ASSERT_TRUE(g);
  const nn::ir::Function& f = *g->function("f");
  const nn::ir::Block& body = *f.body();
  const BlockSteps& top = stepsOf(body);
  EXPECT_EQ(stepsOf(body).steps.data(), top.steps.data()) << "decoded once, then kept with the block";
  ASSERT_EQ(top.steps.size(), 9u);
  EXPECT_EQ(top.terminator, body.terminator());
  EXPECT_EQ(top.steps[0].kind, StepKind::ConstInt);
  EXPECT_EQ(top.steps[0].imm.i, 0);
  EXPECT_EQ(top.steps[0].result, body.nodes()[0]->result(0)->id());
  EXPECT_EQ(top.steps[2].kind, StepKind::Call);  // range(n)
  EXPECT_EQ(top.steps[2].a, body.nodes()[1]->result(0)->id());
  EXPECT_EQ(top.steps[4].kind, StepKind::IterLen);
  EXPECT_EQ(top.steps[4].a, body.nodes()[3]->result(0)->id());
  EXPECT_EQ(top.steps[6].kind, StepKind::ConstFloat);
  EXPECT_EQ(top.steps[6].imm.f, 0.5);
  const nn::ir::Node& loop = *body.nodes()[7];
  EXPECT_EQ(top.steps[7].kind, StepKind::Generic);
  EXPECT_EQ(top.steps[8].kind, StepKind::Number);
  EXPECT_EQ(top.steps[8].a, loop.result(1)->id());
  // Every value the node was the last to read is released after it, in
  // the order of its kills.
  for (size_t k = 0; k < top.steps.size(); ++k) {
    const nn::ir::Node& n = *top.steps[k].node;
    std::vector<uint32_t> kills(top.kills.begin() + top.steps[k].killsBegin, top.kills.begin() + top.steps[k].killsEnd);
    EXPECT_EQ(kills, n.kills()) << k;
  }

  const BlockSteps& cond = stepsOf(*loop.block(0));
  EXPECT_EQ(cond.firstArg, loop.block(0)->arg(0)->id());
  EXPECT_EQ(cond.argsRead, std::vector<uint32_t>{0});
  ASSERT_EQ(cond.steps.size(), 1u);
  EXPECT_EQ(cond.steps[0].kind, StepKind::Number);
  EXPECT_EQ(cond.steps[0].b, body.nodes()[4]->result(0)->id());

  const BlockSteps& loopBody = stepsOf(*loop.block(1));
  EXPECT_EQ(loopBody.argsRead, std::vector<uint32_t>{0});  // %15 is carried, never read
  ASSERT_EQ(loopBody.steps.size(), 2u);
  EXPECT_EQ(loopBody.steps[0].kind, StepKind::IterItem);
  EXPECT_EQ(loopBody.steps[0].a, body.nodes()[3]->result(0)->id());
  EXPECT_EQ(loopBody.steps[1].kind, StepKind::Number);
}

// `math.sqrt(x)`: the global and the module's member are read inline (once
// their nodes' first runs have found the entries), and the call of what
// they found made from its step.
TEST(InterpreterSteps, AModuleMemberIsReadInline) {
  nn::SourceManager sm;
  auto g = nn::ir::parse(sm, sm.add("t.ir",
                                    "func @f(%x: any) {\n"
                                    "  %0 = load_global {name = \"math\"} : any\n"
                                    "  %1 = getattr %0 {name = \"sqrt\"} : any\n"
                                    "  %2 = call %1, %x : any\n"
                                    "  return %2\n"
                                    "}\n"));
  ASSERT_TRUE(g);
  const nn::ir::Block& body = *g->function("f")->body();
  const BlockSteps& steps = stepsOf(body);
  ASSERT_EQ(steps.steps.size(), 3u);
  EXPECT_EQ(steps.steps[0].kind, StepKind::LoadGlobal);
  EXPECT_EQ(steps.steps[1].kind, StepKind::ModuleAttr);
  EXPECT_EQ(steps.steps[1].a, body.nodes()[0]->result(0)->id());
  EXPECT_EQ(steps.steps[1].result, body.nodes()[1]->result(0)->id());
  EXPECT_EQ(steps.steps[2].kind, StepKind::Call);
  EXPECT_EQ(steps.steps[2].a, body.nodes()[1]->result(0)->id());
}

// An if names its condition; a call with keywords, and a recursive call
// through self_closure (whose result's type execCall checks), are generic.
TEST(InterpreterSteps, IfsAndCallsByPosition) {
  nn::SourceManager sm;
  auto g = nn::ir::parse(sm, sm.add("t.ir",
                                    "func @f(%x: any, %g: any) {\n"
                                    "  %0 = self_closure : func\n"
                                    "  %1 = call %0, %x : any\n"
                                    "  %2 = call %g, %x, %1 {kw = [\"b\"]} : any\n"
                                    "  %3 = call %g, %2 : any\n"
                                    "  %4 = if %3 : any {\n"
                                    "  ^then():\n"
                                    "    yield %x\n"
                                    "  ^else():\n"
                                    "    yield %2\n"
                                    "  }\n"
                                    "  return %4\n"
                                    "}\n"));
  ASSERT_TRUE(g);
  const nn::ir::Block& body = *g->function("f")->body();
  const BlockSteps& steps = stepsOf(body);
  ASSERT_EQ(steps.steps.size(), 5u);
  EXPECT_EQ(steps.steps[1].kind, StepKind::Generic);
  EXPECT_EQ(steps.steps[2].kind, StepKind::Generic);
  EXPECT_EQ(steps.steps[3].kind, StepKind::Call);  // of a parameter
  EXPECT_EQ(steps.steps[3].a, body.arg(1)->id());
  EXPECT_EQ(steps.steps[4].kind, StepKind::If);
  EXPECT_EQ(steps.steps[4].a, body.nodes()[3]->result(0)->id());
}

// Graph mode's pool may run one eager function's block on two threads at
// once: both decode it, one plan is published, and both use that one.
TEST(InterpreterSteps, TwoThreadsDecodeOneBlockAtOnce) {
  nn::SourceManager sm;
  auto g = nn::ir::parse(sm, sm.add("t.ir", kLoop));
  ASSERT_TRUE(g);
  const nn::ir::Block& body = *g->function("f")->body();
  std::atomic<bool> go{false};
  const BlockSteps* seen[2] = {nullptr, nullptr};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      while (!go.load()) {
      }
      seen[t] = &stepsOf(body);
    });
  go = true;
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(seen[0], body.interpreterPlan());
  EXPECT_EQ(seen[0]->steps.size(), 9u);
}

// Renumbering the function (after a pass changed it) drops the steps,
// which name the old ids.
TEST(InterpreterSteps, RenumberingDropsThem) {
  nn::SourceManager sm;
  auto g = nn::ir::parse(sm, sm.add("t.ir", kLoop));
  ASSERT_TRUE(g);
  nn::ir::Function& f = *g->function("f");
  const BlockSteps& before = stepsOf(*f.body());
  EXPECT_EQ(f.body()->interpreterPlan(), &before);
  f.number();
  EXPECT_EQ(f.body()->interpreterPlan(), nullptr);
}

}  // namespace
