// The op table and the builtin declarations are closed: every builtin the
// standard library registers is declared (a tensor op marked FUNC, or a
// builtins.def entry with its effect class), every declaration has an
// implementation, every tensor method is an op, and the passes' view of
// effects comes from the declarations (time() is an effect).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ir/builtins.h"
#include "ir/op_args.h"
#include "ir/op_signature.h"
#include "passes/effects.h"
#include "runtime/device.h"
#include "runtime/tensor_ops.h"
#include "runtime/value_op.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"
#include "test_device.h"

using namespace nn;
using ir::Op;

namespace {

// Builtin names that are values, not functions.
bool isBuiltinValue(const std::string& name) {
  return name == "argv" || name == "_stdout" || name == "_stderr" || name == "f32" || name == "f64" ||
         name == "i32" || name == "i64";
}

TEST(OpTable, EveryRegisteredBuiltinIsDeclared) {
  for (const std::string& name : stdlib::builtinNames()) {
    if (isBuiltinValue(name)) continue;
    EXPECT_TRUE(ir::builtinFromName(name) || ir::functionOp(name))
        << "builtin '" << name << "' has no declaration in ops.def (FUNC) or builtins.def";
  }
}

TEST(OpTable, EveryDeclarationHasAnImplementation) {
  for (size_t i = 0; i < ir::kNumBuiltins; ++i) {
    const char* name = ir::builtinInfo(static_cast<ir::Builtin>(i)).name;
    EXPECT_TRUE(stdlib::makeBuiltin(name).is(rt::Kind::Builtin)) << "builtins.def declares '" << name << "'";
  }
  rt::Value x = rt::makeTensorValue(rt::fullLike(rt::DType::F32, {2}, 1.0, nn::rt::testDevice()));
  for (size_t i = 0; i < ir::kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    const char* name = ir::opInfo(op).name;
    if (ir::hasTrait(op, ir::FUNC)) {
      EXPECT_TRUE(stdlib::makeBuiltin(name).is(rt::Kind::Builtin)) << "op '" << name << "' is marked FUNC";
    }
    if (ir::hasTrait(op, ir::METHOD)) {
      EXPECT_NO_THROW(EXPECT_TRUE(stdlib::tensorAttribute(x, name, {}).is(rt::Kind::Method)))
          << "op '" << name << "' is marked METHOD";
    }
  }
}

// The IR's list of list, dict, str and tuple method names (bind-methods
// reads it) and the stdlib's method tables name the same methods.
TEST(OpTable, HostMethodNamesAreTheStdlibMethods) {
  const rt::Kind kinds[] = {rt::Kind::List, rt::Kind::Dict, rt::Kind::Str, rt::Kind::Tuple};
  const rt::Value samples[] = {rt::makeList({}), rt::makeDict(), rt::Value::str(""), rt::makeTuple({})};
  for (const rt::Value& v : samples)
    for (const std::string& name : stdlib::attributeNames(v))
      EXPECT_TRUE(ir::isHostMethodName(name)) << rt::typeName(v) << "." << name << " is not in ir::hostMethodNames";
  for (std::string_view name : ir::hostMethodNames()) {
    bool found = false;
    for (rt::Kind k : kinds) found |= stdlib::hostMethod(k, std::string(name)) != nullptr;
    EXPECT_TRUE(found) << "ir::hostMethodNames has '" << name << "', which no list, dict, str or tuple has";
  }
}

// Each tensor op's signature parses, agrees with the operand counts the
// table derives from it at compile time, and comes with a shape rule.
TEST(OpTable, TensorOpSignatures) {
  size_t tensorOps = 0;
  for (size_t i = 0; i < ir::kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    const ir::OpInfo& info = ir::opInfo(op);
    if (info.typeRule != ir::TypeRule::Shape) continue;
    ++tensorOps;
    EXPECT_NE(info.shapeRule, nullptr) << info.name;
    const ir::Signature& sig = ir::signatureOf(op);
    ASSERT_FALSE(sig.params.empty()) << info.name;
    int operands = 0, required = 0;
    for (const ir::Param& p : sig.params) {
      EXPECT_FALSE(p.name.empty()) << info.name;
      if (p.isAttr || p.variadic) continue;
      ++operands;
      required += !p.defaultLiteral;
    }
    EXPECT_EQ(info.maxOperands, operands) << info.name;
    EXPECT_EQ(info.minOperands, required) << info.name;
    // A builtin function, a tensor method or a Python builtin's tensor
    // form: every tensor op is reachable from the language, but for those
    // only gradient rules emit.
    EXPECT_TRUE(info.traits & (ir::FUNC | ir::METHOD | ir::PYTHON | ir::GRADIENT)) << info.name;
  }
  EXPECT_GT(tensorOps, 60u);
  const ir::Signature& conv = ir::signatureOf(Op::Conv2d);
  ASSERT_EQ(conv.params.size(), 7u);
  EXPECT_EQ(conv.params[3].name, "stride");
  EXPECT_TRUE(conv.params[3].isAttr);
  EXPECT_EQ(conv.params[3].type, ir::AttrType::Ints);
  EXPECT_EQ(*conv.params[3].defaultLiteral, "1");
  EXPECT_FALSE(conv.params[2].isAttr);  // the bias is an operand
  EXPECT_TRUE(ir::signatureOf(Op::Zeros).params[0].variadic);
  EXPECT_TRUE(ir::signatureOf(Op::Sum).params[1].optional);
}

// The passes' effect predicate reads the declarations: time() reads the
// clock (an effect and a barrier), len() is pure, rand() draws from the
// generator, min() with a key and vjp() may call user code, grad() only
// makes a function.
// Every tensor op runs through one of the two execute entries: the value
// ops' (runValueOp) or the other tensor ops' implementation table.
// Every op has a gradient rule (its own, or ZeroGradient when no gradient
// flows through it) except those listed here, whose rules are still to be
// written (differentiating through them is a located "not supported yet"
// error) or that graph mode's autodiff pass handles itself (control flow,
// calls, containers). Adding an op without a rule fails this test.
TEST(OpTable, EveryOpHasAGradientRuleOrIsListed) {
  const std::set<std::string> withoutRule = {
      // values, containers, calls, statements and control flow
      "const", "undef", "builtin", "host_function", "self_closure", "make_closure", "make_dict",
      "make_slice", "format", "str_concat", "bitand", "bitor", "bitxor", "lshift", "rshift", "invert", "not",
      "truth", "is", "is_not", "in", "not_in", "unpack", "call", "call_method", "call_unpacked", "delitem",
      "iter_len", "list_append", "load_global", "store_global", "import", "assert", "raise",
      "check_args", "check_result", "lost_update", "echo", "if", "loop", "try", "track", "yield", "condition", "return", "autodiff", "saved_item",
      // formed after autodiff, from ops that have rules
      "fused",
      // tuple-valued: differentiated as slices of x (split, chunk: lower-splits
      // and the tape's pieces) and as gathers of x (sort, topk: gather-sorted
      // and the tape)
      "split", "chunk", "sort", "topk",
      // grid_sample's second derivative in the grid (PyTorch has none either)
      "grid_sample_grad_grid",
      // ctc_loss's second derivative (PyTorch has none either)
      "ctc_loss_grad",
      // det's third derivative (PyTorch's, through the SVD, is NaN where
      // singular values repeat)
      "cofactor_grad",
      // nextafter, the LDL factorisation and Airy's Ai (PyTorch has no
      // derivative for them either)
      "nextafter", "ldl_factor", "airy_ai"};
  std::set<std::string> missing;
  for (size_t i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& info = ir::opInfo(static_cast<Op>(i));
    if (info.gradient == &ir::NoGradient) missing.insert(info.name);
  }
  EXPECT_EQ(missing, withoutRule);
}

TEST(OpTable, EveryTensorOpHasAnExecuteEntry) {
  for (size_t i = 0; i < ir::kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    if (!ir::isTensorOp(op)) continue;
    EXPECT_TRUE(rt::isValueOp(op) || stdlib::tensorOpImpl(op)) << ir::opInfo(op).name << " has no execute entry";
    // A builtin called by name reaches the same implementation.
    if (ir::hasTrait(op, ir::FUNC)) {
      EXPECT_TRUE(stdlib::tensorOpImpl(op)) << ir::opInfo(op).name;
    }
  }
}

// Calls bind to a tensor op's signature by Python's rules: positional
// arguments in order, the rest into the `*name` parameter (or one literal
// tuple of them), keywords by name, defaults for the others; attributes
// are known when their arguments are constants. A call that does not fit
// does not bind.
TEST(OpTable, CallsBindToTheSignature) {
  ir::Graph g;
  ir::Function* f = g.addFunction("f", {});
  ir::Value* x = f->addParam("x", ir::Type::tensor(ir::DType::F32, ir::DimList{ir::Dim::known(2), ir::Dim::known(3)}));
  ir::Value* k = f->addParam("k", ir::Type(ir::TypeKind::Int));
  auto constant = [&](ir::Attr a, ir::TypeKind kind) {
    ir::Node* c = ir::build(f->body(), Op::Const, {}, {}, 1);
    c->setAttr("value", a);
    c->result(0)->setType(ir::Type(kind));
    return c->result(0);
  };
  ir::Value* one = constant(int64_t{1}, ir::TypeKind::Int);
  ir::Value* yes = constant(true, ir::TypeKind::Bool);

  std::optional<ir::OpArgs> sum = ir::bindArgs(Op::Sum, {}, {x, one}, {"keepdims"}, {yes});
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->operand("x"), x);
  EXPECT_EQ(sum->intAttr("axis"), 1);
  EXPECT_EQ(sum->boolAttr("keepdims"), true);
  EXPECT_TRUE(sum->attributesKnown());

  // PyTorch's keyword spellings bind to the same parameters, in every op.
  std::optional<ir::OpArgs> torch = ir::bindArgs(Op::Sum, {}, {x}, {"dim", "keepdim"}, {one, yes});
  ASSERT_TRUE(torch);
  EXPECT_EQ(torch->intAttr("axis"), 1);
  EXPECT_EQ(torch->boolAttr("keepdims"), true);

  std::optional<ir::OpArgs> reshape = ir::bindArgs(Op::Reshape, {}, {x, one, k}, {}, {});
  ASSERT_TRUE(reshape);
  EXPECT_FALSE(reshape->attributesKnown());  // k is known only at run time
  auto dims = reshape->dims("shape");
  ASSERT_TRUE(dims);
  EXPECT_EQ(*dims, (std::vector<std::optional<int64_t>>{1, std::nullopt}));

  std::optional<ir::OpArgs> conv = ir::bindArgs(Op::Conv2d, {}, {x, x}, {"stride"}, {one});
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->operand("b"), nullptr);  // defaults to None
  EXPECT_EQ(conv->intAttr("groups"), 1);
  EXPECT_EQ(conv->intAttr("stride"), 1);

  EXPECT_FALSE(ir::bindArgs(Op::Softmax, {}, {x}, {"axes"}, {one}));      // unknown keyword
  EXPECT_FALSE(ir::bindArgs(Op::Softmax, {}, {x, one}, {"axis"}, {one}));  // axis twice
  EXPECT_FALSE(ir::bindArgs(Op::Softmax, {}, {x}, {"axis", "dim"}, {one, one}));  // axis twice, once as dim
  EXPECT_FALSE(ir::bindArgs(Op::Linear, {}, {x}, {}, {}));                 // w missing
  EXPECT_FALSE(ir::bindArgs(Op::Flatten, {}, {x, one, one, one}, {}, {}));  // too many
}

// An op node and a call of its builtin are one op: the same shape rule
// types both, and the runtime runs both through the same implementation.
TEST(OpTable, AnOpNodeAndItsCallAgree) {
  ir::Graph g;
  ir::Function* f = g.addFunction("f", {});
  ir::Value* x = f->addParam("x", ir::Type::tensor(ir::DType::F32, ir::DimList{ir::Dim::known(2), ir::Dim::known(3)}));
  ir::Node* node = ir::build(f->body(), Op::Sum, {}, {x}, 1);
  node->setAttr("axis", int64_t{0});
  node->setAttr("keepdims", true);
  std::optional<ir::Type> t = ir::opInfo(Op::Sum).shapeRule(ir::argsOf(*node));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->str(), "f32[1, 3]");

  rt::Value xv = rt::makeTensorValue(rt::fullLike(rt::DType::F32, {2, 3}, 1.0, nn::rt::testDevice()));
  const rt::Value* in[] = {&xv};
  std::vector<rt::Value> params = rt::tensorOpParams(*node, in);
  ASSERT_EQ(params.size(), 3u);
  EXPECT_TRUE(params[1].isIntLike());
  EXPECT_TRUE(params[2].asBool());
}

TEST(OpTable, EffectsComeFromDeclarations) {
  ir::Graph g;
  ir::Function* f = g.addFunction("f", {});
  ir::Value* xs = f->addParam("xs", ir::Type(ir::TypeKind::List));
  auto call = [&](const char* name, std::vector<ir::Value*> args, std::vector<std::string> kw = {}) {
    ir::Node* b = ir::build(f->body(), Op::Builtin, {}, {}, 1);
    b->setAttr("name", std::string(name));
    args.insert(args.begin(), b->result(0));
    ir::Node* n = ir::build(f->body(), Op::Call, {}, args, 1);
    if (!kw.empty()) n->setAttr("kw", kw);
    return n;
  };
  ir::Node* time = call("time", {});
  EXPECT_TRUE(passes::hasEffect(*time));
  EXPECT_TRUE(passes::isBarrier(*time));
  EXPECT_FALSE(passes::hasEffect(*call("len", {xs})));
  EXPECT_TRUE(passes::hasEffect(*call("print", {xs})));
  EXPECT_TRUE(passes::hasEffect(*call("rand", {xs})));
  EXPECT_FALSE(passes::hasEffect(*call("min", {xs})));
  ir::Value* key = f->addParam("key", ir::Type(ir::TypeKind::Func));
  EXPECT_TRUE(passes::hasEffect(*call("min", {xs, key}, {"key"})));
  EXPECT_TRUE(passes::hasEffect(*call("sorted", {xs, key}, {"key"})));
  // min, max and sorted call only their key=: functions given otherwise
  // are compared.
  EXPECT_FALSE(passes::hasEffect(*call("max", {key, key})));
  EXPECT_TRUE(passes::hasEffect(*call("map", {key, xs})));  // calls its function
  EXPECT_FALSE(passes::hasEffect(*call("devices", {})));  // fixed when the state starts
  ir::Node* sync = call("sync", {});
  EXPECT_TRUE(passes::hasEffect(*sync));
  EXPECT_TRUE(passes::isBarrier(*sync));  // waits for the work before it
  EXPECT_FALSE(passes::hasEffect(*call("grad", {key})));  // makes a function
  EXPECT_TRUE(passes::hasEffect(*call("vjp", {key, xs})));  // calls it
}

}  // namespace

namespace {

// The CPU device has an f32 kernel (i64 for gcd and lcm, of integers
// only) for every elementwise op of the tensor library and every reduction, and for the NN ops that own a kernel
// signature; the ops left out are built from others (listed here, so that
// a new op is either given a kernel or named as composite).
TEST(OpTable, TheCpuHasAKernelForEveryKernelOp) {
  const rt::KernelTable& cpu = rt::cpuKernels();
  auto composite = [](Op op) {
    switch (op) {
      case Op::Var: case Op::Std:          // mean, subtract, square, mean
      case Op::LogSumExp:                  // max, subtract, exp, sum, log
      case Op::LogicalAnd: case Op::LogicalOr: case Op::LogicalNot:  // bool kernels only
        return true;
      default: return false;
    }
  };
  for (size_t i = 0; i < ir::kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    bool tensorOp = !ir::signatureOf(op).params.empty();
    if (!tensorOp || composite(op)) continue;
    if (ir::hasTrait(op, ir::ELEM) || ir::hasTrait(op, ir::REDUCE)) {
      rt::DType dt = op == Op::Gcd || op == Op::Lcm ? rt::DType::I64 : rt::DType::F32;
      EXPECT_TRUE(cpu.has(op, dt)) << ir::opInfo(op).name << " has no " << ir::dtypeName(dt) << " CPU kernel";
    }
  }
  for (Op op : {Op::MatMul, Op::Softmax, Op::LogSoftmax, Op::Conv2d, Op::MaxPool2d, Op::AvgPool2d, Op::BatchNorm,
                Op::LayerNorm, Op::Full, Op::AsType, Op::Gather, Op::Where})
    for (rt::DType t : {rt::DType::F32, rt::DType::F64})
      EXPECT_TRUE(cpu.has(op, t)) << ir::opInfo(op).name << " has no " << rt::dtypeName(t) << " CPU kernel";
}

}  // namespace
