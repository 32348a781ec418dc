// IR tests: the builder and op table, the verifier's checks, and the
// printer/parser round trip.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/text.h"
#include "passes/passes.h"

// Inside nn::ir rather than under a using-directive, which would leak into
// the files a unity build compiles after this one.
namespace nn::ir {
namespace {

std::unique_ptr<Graph> parseText(nn::SourceManager& sm, const std::string& text) {
  return parse(sm, sm.add("t.ir", text));
}

TEST(OpTable, NamesRoundTrip) {
  Op op;
  ASSERT_TRUE(opFromName("add", op));
  EXPECT_EQ(op, Op::Add);
  EXPECT_STREQ(opInfo(Op::Loop).name, "loop");
  EXPECT_TRUE(hasTrait(Op::Add, PURE));
  EXPECT_TRUE(hasTrait(Op::StoreGlobal, EFFECT));
  EXPECT_TRUE(hasTrait(Op::Yield, TERM));
  EXPECT_FALSE(opFromName("no_such_op", op));
}

TEST(Builder, BuildsAndVerifiesAFunction) {
  Graph g;
  Function* f = g.addFunction("f", {});
  Value* x = f->addParam("x", Type::any());
  Node* one = build(f->body(), Op::Const, {}, {}, 1);
  one->setAttr("value", int64_t(1));
  Node* add = build(f->body(), Op::Add, {}, {x, one->result(0)}, 1);
  build(f->body(), Op::Return, {}, {add->result(0)}, 0);
  EXPECT_NO_THROW(verify(g));
  EXPECT_EQ(f->number(), 3u);
  std::string text = toString(g);
  EXPECT_NE(text.find("%1 = add %x, %0 : any"), std::string::npos) << text;
}

// An executor's cached fact about a node (a const's attribute, a
// call_method's methods) does not outlive a change to the node's
// attributes, which may move them.
TEST(Node, SettingAnAttributeClearsTheExecutorCache) {
  Graph g;
  Function* f = g.addFunction("f", {});
  Node* c = build(f->body(), Op::Const, {}, {}, 1);
  c->setAttr("value", int64_t(1));
  EXPECT_EQ(c->executorCache(), nullptr);
  c->setExecutorCache(c->attr("value"));
  EXPECT_EQ(c->executorCache(), c->attr("value"));
  c->setAttr("a_name_sorted_first", true);
  EXPECT_EQ(c->executorCache(), nullptr);
}

TEST(Graph, FindsFunctionsByNameThenInItsBase) {
  Graph base;
  Function* first = base.addFunction("f", {});
  base.addFunction("f", {});  // a second of the same name never shadows the first
  Function* g = base.addFunction("g", {});
  Graph version;
  version.setBase(&base);
  Function* own = version.addFunction("g", {});
  EXPECT_EQ(base.function("f"), first);
  EXPECT_EQ(base.function("g"), g);
  EXPECT_EQ(version.function("g"), own);
  EXPECT_EQ(version.function("f"), first);
  EXPECT_EQ(version.function("h"), nullptr);
}

TEST(Verifier, RejectsUseBeforeDefinition) {
  Graph g;
  Function* f = g.addFunction("f", {});
  Node* a = build(f->body(), Op::Neg, {}, {}, 1);
  Node* b = build(f->body(), Op::Const, {}, {}, 1);
  a->addOperand(b->result(0));
  build(f->body(), Op::Return, {}, {a->result(0)}, 0);
  EXPECT_THROW(verify(g), nn::NnError);
}

TEST(Verifier, RejectsWrongArity) {
  nn::SourceManager sm;
  auto g = parseText(sm, "func @f(%x: any) {\n  %0 = add %x : any\n  return %0\n}\n");
  EXPECT_THROW(verify(*g), nn::NnError);
}

TEST(Verifier, RequiresTerminators) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%c: any) {\n  %0 = if %c : any {\n  ^then():\n    yield %c\n  ^else():\n  }\n"
                     "  return %0\n}\n");
  EXPECT_THROW(verify(*g), nn::NnError);
}

// A fused body runs on tiles of its own inputs: it may read nothing else,
// and binds one argument per input.
TEST(Verifier, KeepsFusedBodiesClosed) {
  nn::SourceManager sm;
  // @f(%a, %b) returning a fused node over `inputs` whose body binds `args`
  // and yields %1 * `rhs`.
  auto fused = [&](const std::string& inputs, const std::string& args, const std::string& rhs) {
    return parseText(sm, "func @f(%a: f32[4], %b: f32[4]) {\n  %0 = fused " + inputs + " : f32[4] {\n  ^body(" + args +
                             "):\n    %3 = mul %1, " + rhs + " : f32[4]\n    yield %3\n  }\n  return %0\n}\n");
  };
  EXPECT_THROW(verify(*fused("%a", "%1: f32[4]", "%b")), nn::NnError);
  EXPECT_THROW(verify(*fused("%a, %b", "%1: f32[4]", "%1")), nn::NnError);
  EXPECT_NO_THROW(verify(*fused("%a, %b", "%1: f32[4], %2: f32[4]", "%2")));
}

TEST(Parser, ReportsUnknownOpWithLocation) {
  nn::SourceManager sm;
  try {
    parseText(sm, "func @f() {\n  %0 = frobnicate : any\n}\n");
    FAIL();
  } catch (const nn::NnError& e) {
    EXPECT_EQ(e.diag().loc.line, 2u);
    EXPECT_NE(e.diag().message.find("unknown op 'frobnicate'"), std::string::npos);
  }
}

// %N names a node's result; a parameter so named would print twice as %N
// once the printer numbers the nodes (a fuzzing finding).
TEST(Parser, RejectsNumberedParameterNames) {
  nn::SourceManager sm;
  try {
    parseText(sm, "func @f(%x: int, %9: int) {\n  %0 = add %x, %9 : int\n  return %0\n}\n");
    FAIL();
  } catch (const nn::NnError& e) {
    EXPECT_NE(e.diag().message.find("a parameter's name starts with a letter or '_'"), std::string::npos);
  }
}

TEST(Printer, RoundTripsNestedBlocksAttributesAndLocations) {
  const std::string text =
      "module \"t.nn\"\n\n"
      "func @f(%x: any, %n: int) loc(1:1-1:4) {\n"
      "  %0 = const {value = 0} : int loc(2:9-2:10)\n"
      "  %1, %2 = loop %0, %x : any, any loc(3:5-3:10) {\n"
      "  ^cond(%3: any, %4: any):\n"
      "    %5 = lt %3, %n : any\n"
      "    condition %5\n"
      "  ^body(%6: any, %7: any):\n"
      "    %8 = const {value = 0.5} : float\n"
      "    %9 = mul %7, %8 : any\n"
      "    %10 = if %6 : any {\n"
      "    ^then():\n"
      "      yield %9\n"
      "    ^else():\n"
      "      yield %7\n"
      "    }\n"
      "    %11 = call %x, %9 {kw = [\"sep\"]} : any\n"
      "    %12 = const {value = \"a\\\"b\\n\"} : str\n"
      "    %13 = const {value = none} : none\n"
      "    %14 = const {value = 1e-05} : float\n"
      "    yield %6, %10\n"
      "  }\n"
      "  return %2\n"
      "}\n";
  nn::SourceManager sm;
  auto g = parseText(sm, text);
  verify(*g);
  EXPECT_EQ(toString(*g), text);
}

TEST(Passes, DceRemovesUnusedPureNodesOnly) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%x: f32[2]) {\n  %0 = add %x, %x : f32[2]\n  %1 = neg %0 : f32[2]\n"
                     "  store_global %x {name = \"g\"}\n  %2 = call %x : any\n  return %x\n}\n");
  nn::passes::PassContext ctx;
  EXPECT_TRUE(nn::passes::deadCodeElimination(*g, ctx));
  std::string text = toString(*g);
  EXPECT_EQ(text.find("add"), std::string::npos);
  EXPECT_EQ(text.find("neg"), std::string::npos);
  EXPECT_NE(text.find("store_global"), std::string::npos);
  EXPECT_NE(text.find("call"), std::string::npos);
  EXPECT_FALSE(nn::passes::deadCodeElimination(*g, ctx));
}

TEST(Liveness, LastUsesRespectLoopsAndRepeatedOperands) {
  nn::SourceManager sm;
  auto g = parseText(sm,
                     "func @f(%a: any, %b: any) {\n"
                     "  %0 = mul %a, %a : any\n"
                     "  %1 = add %0, %b : any\n"
                     "  %2 = loop %1 : any {\n"
                     "  ^cond(%3: any):\n"
                     "    %4 = lt %3, %b : bool\n"
                     "    condition %4\n"
                     "  ^body(%5: any):\n"
                     "    %6 = add %5, %b : any\n"
                     "    %7 = neg %6 : any\n"
                     "    yield %6\n"
                     "  }\n"
                     "  return %2\n"
                     "}\n");
  const Function& f = *g->functions().front();
  const auto& top = f.body()->nodes();
  const Node& mul = *top[0];
  const Node& add = *top[1];
  const Node& loop = *top[2];
  // `mul %a, %a`: only the second occurrence is the last use of %a.
  EXPECT_FALSE(mul.operandDies(0));
  EXPECT_TRUE(mul.operandDies(1));
  EXPECT_EQ(mul.kills(), std::vector<uint32_t>{f.body()->arg(0)->id()});
  // %0 dies in the add; %b is still read inside the loop.
  EXPECT_TRUE(add.operandDies(0));
  EXPECT_FALSE(add.operandDies(1));
  // The loop's initial value dies at the loop; %b only after the loop.
  EXPECT_TRUE(loop.operandDies(0));
  const auto& kills = loop.kills();
  EXPECT_NE(std::find(kills.begin(), kills.end(), f.body()->arg(1)->id()), kills.end());
  // Inside the body, %b belongs to the enclosing block: never dying there.
  const Block& body = *loop.block(1);
  EXPECT_TRUE(body.nodes()[0]->operandDies(0));
  EXPECT_FALSE(body.nodes()[0]->operandDies(1));
  // An unused result is dropped at once; a yielded one is handed over.
  EXPECT_EQ(body.nodes()[1]->kills(), std::vector<uint32_t>{body.nodes()[1]->result()->id()});
  EXPECT_TRUE(body.nodes()[2]->operandDies(0));
  EXPECT_TRUE(body.nodes()[2]->kills().empty());
}

// Numbers too large for their field are parse errors, not exceptions
// escaping the parser (fuzzing findings: tests/fuzz/regressions).
TEST(Parser, RejectsNumbersTooLargeForTheirField) {
  nn::SourceManager sm;
  EXPECT_THROW(parseText(sm, "func @f(%x: f32[33333333333333333333]) {\n  return %x\n}\n"), nn::NnError);
  EXPECT_THROW(parseText(sm, "func @f(%x: any) loc(1:1-1:61111111111111111111) {\n  return %x\n}\n"), nn::NnError);
}

}  // namespace
}  // namespace nn::ir
