// The tensor builtins and methods (language.md §5): every tensor op that
// ops.def marks FUNC is a builtin function of its name and every op marked
// METHOD a tensor method (x.sum(axis=1) is sum(x, axis=1)); both bind
// their arguments to the op's signature and run its one implementation
// (op_call.h, tensor_op_impls.cpp). Also the tensor attributes (x.shape,
// x.T, ...), seed(), and pow/neg/matmul, the language ops that are also
// functions.
#include "ir/builtins.h"
#include "runtime/nn_ops.h"
#include "runtime/random.h"
#include "runtime/scalar_ops.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"
#include "support/suggest.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value bPow(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("pow");
  checkArity(c, args, 2, 2);
  Value out = binaryOp(ir::Op::Pow, args[0], args[1], c.loc);
  if (rt::Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::Pow, c.loc, {args[0], args[1]}, out);
  return out;
}

Value bNeg(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("neg");
  checkArity(c, args, 1, 1);
  return unaryOp(ir::Op::Neg, args[0], c.loc);
}

Value bMatmul(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("matmul");
  checkArity(c, args, 2, 2);
  for (const Value& a : args)
    if (!a.is(Kind::Tensor)) fail(c.loc, std::string("matmul() argument must be a Tensor, not ") + typeName(a));
  return makeTensorValue(matmul(tensorOf(args[0]), tensorOf(args[1]), c.loc));
}

Value bSeed(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("seed");
  checkArity(c, args, 1, 1);
  c.interp.rng().reseed(static_cast<uint64_t>(toIndex(args[0], c.loc)));
  return Value::none();
}

// A tensor op's builtin function: the op named by the builtin.
Value bTensorOp(CallContext& c, std::vector<Value>& args) { return callTensorOp(c, *ir::functionOp(c.name), args); }
// A tensor method, the tensor first, with the keyword its name passes
// (x.float() is astype(x, dtype="f32")).
Value bTensorMethod(CallContext& c, std::vector<Value>& args) {
  ir::OpName m = *ir::tensorMethod(c.name);
  if (m.keyword.empty()) return callTensorOp(c, m.op, args);
  std::vector<std::string> kwnames = c.kwnames;
  std::vector<Value> kwargs = c.kwargs;
  kwnames.emplace_back(m.keyword);
  kwargs.push_back(Value::str(std::string(m.value)));
  CallContext named{c.interp, c.loc, kwnames, kwargs, c.name};
  return callTensorOp(named, m.op, args);
}

// x.max(y) of two tensors is elementwise, as in PyTorch; x.max(1) reduces.
Value bMinMaxMethod(CallContext& c, std::vector<Value>& args) {
  ir::Op op = *ir::methodOp(c.name);
  bool twoTensors = args.size() == 2 && args[1].is(Kind::Tensor) && c.kwnames.empty();
  return callTensorOp(c, twoTensors ? *ir::pairwiseForm(op) : op, args);
}

// x.clone(): the tensor's value (tensors are values; +x is a copy).
Value bClone(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 1);
  Value out = unaryOp(ir::Op::Pos, args[0], c.loc);
  if (rt::Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::Pos, c.loc, {args[0]}, out);
  return out;
}

// The implementation of tensor method `op`.
BuiltinFn methodFn(ir::Op op) {
  switch (op) {
    case ir::Op::Pow: return bPow;
    case ir::Op::Neg: return bNeg;
    case ir::Op::MatMul: return bMatmul;
    case ir::Op::Pos: return bClone;
    case ir::Op::Max:
    case ir::Op::Min: return bMinMaxMethod;
    default: return bTensorMethod;
  }
}

// x.size() is x.shape; x.size(d) one dim (negative from the end).
Value bSize(CallContext& c, std::vector<Value>& args) {
  const Tensor& t = tensorOf(args[0]);
  const Value* dim = c.kw("dim");
  c.checkKeywordsUsed("size");
  checkArity(c, args, 1, dim ? 1 : 2);
  if (!dim && args.size() == 1) return tensorAttribute(args[0], "shape", c.loc);
  int64_t d = toIndex(dim ? *dim : args[1], c.loc);
  return Value::integer(t.shape()[normalizeIndex(d, t.ndim(), "size: dim", c.loc)]);
}

Value bNumel(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("numel");
  checkArity(c, args, 1, 1);
  return Value::integer(tensorOf(args[0]).numel());
}

}  // namespace

void addTensorBuiltins(BuiltinTable& table) {
  for (size_t i = 0; i < ir::kNumOps; ++i) {
    ir::Op op = static_cast<ir::Op>(i);
    if (ir::hasTrait(op, ir::FUNC) && ir::isTensorOp(op)) table[ir::opInfo(op).name] = bTensorOp;
  }
  for (std::string_view name : ir::functionAliases()) table[std::string(name)] = bTensorOp;
  table[ir::opInfo(ir::Op::Pow).name] = bPow;
  table[ir::opInfo(ir::Op::Neg).name] = bNeg;
  table[ir::opInfo(ir::Op::MatMul).name] = bMatmul;
  table[ir::builtinInfo(ir::Builtin::Seed).name] = bSeed;
}

Value tensorMath(CallContext& c, const Value& x, nn::ir::Op op) {
  std::vector<Value> params{x};
  return runTensorOp(c.interp, op, params, c.loc);  // (where a tape sees it)
}

Value tensorReduction(CallContext& c, std::vector<Value>& args, ir::Op op) { return callTensorOp(c, op, args); }

const std::vector<std::string>& tensorAttributeNames() {
  static const std::vector<std::string> names = {"shape", "dtype", "ndim", "device", "T", "size", "numel"};
  return names;
}

Value tensorAttribute(const Value& obj, const std::string& name, SourceLoc loc) {
  const Tensor& t = tensorOf(obj);
  if (name == "shape") {
    std::vector<Value> dims;
    for (int64_t d : t.shape()) dims.push_back(Value::integer(d));
    return makeTuple(std::move(dims));
  }
  if (name == "dtype") return Value::dtype(static_cast<int>(t.dtype()));
  if (name == "ndim") return Value::integer(t.ndim());
  if (name == "device") return Value::str(t.device().name());
  if (name == "T") return makeTensorValue(transpose(t, {}, loc));
  // PyTorch's method forms: x.exp() is exp(x), x.softmax(1) is softmax(x, 1).
  std::optional<ir::Op> op = ir::methodOp(name);
  BuiltinFn fn = op ? methodFn(*op) : name == "size" ? bSize : name == "numel" ? bNumel : nullptr;
  if (!fn) {
    std::optional<std::string_view> ours = ir::foreignSpelling(name);
    std::vector<std::string> names = ir::tensorMethodNames();
    names.insert(names.end(), tensorAttributeNames().begin(), tensorAttributeNames().end());
    std::string hint = ours ? "; did you mean '" + std::string(*ours) + "'?" : didYouMean(name, names);
    fail(loc, "'Tensor' object has no attribute '" + name + "'" + hint);
  }
  auto m = std::make_shared<MethodObj>();
  m->self = obj;
  m->name = name;
  m->fn = fn;
  return Value::object(Kind::Method, std::move(m));
}

}  // namespace nn::stdlib
