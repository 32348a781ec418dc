// PyTorch's small top-level functions that nn lacked: the function forms
// of the methods numel, clamp_max and masked_select; dist (the p-norm of
// a difference); pinverse (the pseudo-inverse through the SVD);
// scalar_tensor; the embedding updates select_scatter and slice_scatter
// (input with src written into one index or a slice of a dim: a
// functional x[...] = src on the tape, so both get gradients); and the
// type queries is_tensor, broadcast_shapes, result_type, promote_types,
// can_cast, finfo, iinfo and get_default_dtype, PyTorch's answers in nn's
// types (dtypes, tuples for sizes).
#include <cmath>
#include <limits>
#include <string>

#include "ir/builtins.h"
#include "runtime/linalg.h"
#include "runtime/scalar_ops.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value bNumelFunction(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value x = argument(c, args, 0, "input", nullptr);
  c.checkKeywordsUsed("numel");
  return Value::integer(tensorArg(c, x, "input").numel());
}

// clamp_max(input, max): clip(input, None, max).
Value bClampMaxFunction(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), most = argument(c, args, 1, "max", nullptr);
  c.checkKeywordsUsed("clamp_max");
  tensorArg(c, x, "input");
  return applyOp(c, ir::Op::Clip, {x, Value::none(), most});
}

// masked_select(input, mask).
Value bMaskedSelectFunction(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), mask = argument(c, args, 1, "mask", nullptr);
  c.checkKeywordsUsed("masked_select");
  tensorArg(c, x, "input");
  return maskedSelect(c, x, mask);
}

// dist(input, other, p=2): the p-norm of input - other (broadcast), 0-d.
Value bDist(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value two = Value::real(2.0);
  Value x = argument(c, args, 0, "input", nullptr), y = argument(c, args, 1, "other", nullptr),
        p = argument(c, args, 2, "p", &two);
  c.checkKeywordsUsed("dist");
  tensorArg(c, x, "input");
  tensorArg(c, y, "other");
  if (!p.isNumber()) fail(c.loc, std::string("dist(): p must be a number, not ") + typeName(p), ErrorClass::TypeError);
  return applyOp(c, ir::Op::Norm,
                 {binary(c, ir::Op::Sub, x, y), Value::real(p.asFloat()), Value::none(), Value::boolean(false)});
}

// pinverse(input, rcond=1e-15): V diag(1 / S) U^T over the singular values
// above rcond times the largest (the others give 0), of each matrix.
Value bPinverse(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value tiny = Value::real(1e-15);
  Value a = argument(c, args, 0, "input", nullptr), rcond = argument(c, args, 1, "rcond", &tiny);
  c.checkKeywordsUsed("pinverse");
  const Tensor& t = tensorArg(c, a, "input");
  if (t.ndim() < 2)
    fail(c.loc, "pinverse(): expects a matrix or a batch of matrices [..., m, n], not " + typeString(t),
         ErrorClass::ValueError);
  if (!rcond.isNumber())
    fail(c.loc, std::string("pinverse(): rcond must be a number, not ") + typeName(rcond), ErrorClass::TypeError);
  Value reduced = Value::boolean(false), last = intsTuple({-1}), keep = Value::boolean(true);
  SvdParts parts = singularParts(t, false, true, true, ir::Op::SvdU, c.loc);
  Value s = recordedOp(c, ir::Op::Svdvals, {a}, std::move(parts.values));
  Value u = recordedOp(c, ir::Op::SvdU, {a, reduced}, std::move(parts.u));
  Value vh = recordedOp(c, ir::Op::SvdVh, {a, reduced}, std::move(parts.vh));
  Value cutoff = binary(c, ir::Op::Mul, applyOp(c, ir::Op::Max, {s, last, keep}), Value::real(rcond.asFloat()));
  Value kept = binary(c, ir::Op::Gt, s, cutoff);
  Value inverted =
      where(c, kept, binary(c, ir::Op::Div, Value::real(1.0), where(c, kept, s, Value::real(1.0))), Value::real(0.0));
  Value scaled = binary(c, ir::Op::Mul, applyOp(c, ir::Op::Transpose, {vh, intsTuple({-2, -1})}),
                        applyOp(c, ir::Op::Unsqueeze, {inverted, Value::integer(-2)}));
  return binary(c, ir::Op::MatMul, scaled, applyOp(c, ir::Op::Transpose, {u, intsTuple({-2, -1})}));
}

// input with src written at `key` (an index or a slice of dim `dim`): a
// functional x[key] = src, recorded on the tape as that assignment is.
Value writtenAlong(CallContext& c, const Value& input, int64_t dim, Value at, const Value& src) {
  std::vector<Value> items(static_cast<size_t>(dim), makeSlice(Value::none(), Value::none(), Value::none()));
  items.push_back(std::move(at));
  Value key = makeTuple(std::move(items));
  Value replaced = getItem(input, key, c.loc);
  const Tensor &x = tensorOf(input), &part = tensorOf(replaced);
  if (tensorOf(src).shape() != part.shape())
    fail(c.loc,
         c.name + "(): src " + typeString(tensorOf(src)) + " must have the shape of the part of input " +
             typeString(x) + " it replaces, " + shapeString(part.shape()),
         ErrorClass::ValueError);
  Value out = setItem(input, key, src, c.loc);
  if (Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::SetItem, c.loc, {input, key, src}, out);
  return out;
}

// select_scatter(input, src, dim, index): input with input.select(dim,
// index) replaced by src.
Value bSelectScatter(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value x = argument(c, args, 0, "input", nullptr), src = argument(c, args, 1, "src", nullptr),
        dimV = argument(c, args, 2, "dim", nullptr), index = argument(c, args, 3, "index", nullptr);
  c.checkKeywordsUsed("select_scatter");
  const Tensor& t = tensorArg(c, x, "input");
  tensorArg(c, src, "src");
  if (t.ndim() == 0) fail(c.loc, "select_scatter(): input must have at least 1 dimension, not " + typeString(t));
  if (!index.isIntLike())
    fail(c.loc, std::string("select_scatter(): index must be an int, not ") + typeName(index), ErrorClass::TypeError);
  int64_t dim = dimArg(c, dimV, t.ndim(), "dim"), size = t.dim(static_cast<int>(dim));
  if (index.asInt() < -size || index.asInt() >= size)
    fail(c.loc,
         "select_scatter(): index " + std::to_string(index.asInt()) + " is out of range for dim " +
             std::to_string(dim) + " of size " + std::to_string(size),
         ErrorClass::IndexError);
  return writtenAlong(c, x, dim, index, src);
}

// slice_scatter(input, src, dim=0, start=None, end=None, step=1): input
// with its slice start:end:step along dim replaced by src.
Value bSliceScatter(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 6);
  Value zero = Value::integer(0), none = Value::none(), one = Value::integer(1);
  Value x = argument(c, args, 0, "input", nullptr), src = argument(c, args, 1, "src", nullptr),
        dimV = argument(c, args, 2, "dim", &zero), start = argument(c, args, 3, "start", &none),
        end = argument(c, args, 4, "end", &none), step = argument(c, args, 5, "step", &one);
  c.checkKeywordsUsed("slice_scatter");
  const Tensor& t = tensorArg(c, x, "input");
  tensorArg(c, src, "src");
  if (t.ndim() == 0) fail(c.loc, "slice_scatter(): input must have at least 1 dimension, not " + typeString(t));
  for (const Value* v : {&start, &end})
    if (!v->is(Kind::None) && !v->isIntLike())
      fail(c.loc, std::string("slice_scatter(): start and end must be ints or None, not ") + typeName(*v),
           ErrorClass::TypeError);
  if (!step.isIntLike() || step.asInt() <= 0)
    fail(c.loc, "slice_scatter(): step must be a positive int, not " + repr(step), ErrorClass::ValueError);
  return writtenAlong(c, x, dimArg(c, dimV, t.ndim(), "dim"), makeSlice(start, end, step), src);
}

// scalar_tensor(s, dtype=None, device=None): the 0-d tensor of the number
// s, f32 unless dtype says otherwise.
Value bScalarTensor(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value s = argument(c, args, 0, "s", nullptr);
  const Value* dtype = c.kw("dtype");
  const Value* device = c.kw("device");
  c.checkKeywordsUsed("scalar_tensor");
  if (!s.isNumber())
    fail(c.loc, std::string("scalar_tensor(): s must be a number, not ") + typeName(s), ErrorClass::TypeError);
  Value f32 = Value::dtype(static_cast<int>(DType::F32));
  return applyOp(c, ir::Op::Full,
                 {makeTuple({}), s, dtype && !dtype->is(Kind::None) ? *dtype : f32, device ? *device : Value::none()});
}

Value bIsTensor(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value v = argument(c, args, 0, "obj", nullptr);
  c.checkKeywordsUsed("is_tensor");
  return Value::boolean(v.is(Kind::Tensor));
}

// A size argument: an int or a sequence of ints.
Shape sizeArg(CallContext& c, const Value& v) {
  if (v.isIntLike()) {
    if (v.asInt() < 0)
      fail(c.loc, "broadcast_shapes(): a size must not be negative, not " + repr(v), ErrorClass::ValueError);
    return Shape{v.asInt()};
  }
  if (!v.is(Kind::Tuple) && !v.is(Kind::List))
    fail(c.loc, std::string("broadcast_shapes(): expects ints or sequences of ints, not ") + typeName(v),
         ErrorClass::TypeError);
  Shape s;
  for (const Value& d : v.as<SeqObj>().items) {
    if (!d.isIntLike() || d.asInt() < 0)
      fail(c.loc, "broadcast_shapes(): expects sizes of non-negative ints, not " + repr(v), ErrorClass::TypeError);
    s.push_back(d.asInt());
  }
  return s;
}

// broadcast_shapes(*shapes): the shape they broadcast to, a tuple.
Value bBroadcastShapes(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("broadcast_shapes");
  Shape out;
  for (const Value& a : args) {
    Shape s = sizeArg(c, a);
    std::optional<Shape> both = tryBroadcastShapes(out, s);
    if (!both)
      fail(c.loc, "broadcast_shapes(): shape " + shapeString(s) + " does not broadcast with " + shapeString(out),
           ErrorClass::ValueError);
    out = *both;
  }
  return intsTuple(std::vector<int64_t>(out.begin(), out.end()));
}

DType dtypeArg(CallContext& c, const Value& v, const char* what) {
  std::optional<DType> d = dtypeOfValue(v);
  if (!d) fail(c.loc, c.name + "(): " + what + " must be a dtype, not " + repr(v), ErrorClass::TypeError);
  return *d;
}

// finfo(type=f32): a floating dtype's limits, PyTorch's fields (dtype the
// dtype itself, where PyTorch gives its name).
Value bFinfo(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value f32 = Value::dtype(static_cast<int>(DType::F32));
  Value type = argument(c, args, 0, "type", &f32);
  c.checkKeywordsUsed("finfo");
  DType dt = dtypeArg(c, type, "type");
  if (!isFloating(dt))
    fail(c.loc, std::string("finfo() requires a floating point input type, not ") + dtypeName(dt) + "; use iinfo",
         ErrorClass::TypeError);
  auto facts = [&](auto zero) {
    using T = decltype(zero);
    using Limits = std::numeric_limits<T>;
    double resolution = std::pow(10.0, -Limits::digits10);
    return makeNamedTuple({Value::integer(8 * sizeof(T)), Value::real(Limits::epsilon()), Value::real(Limits::max()),
                           Value::real(Limits::lowest()), Value::real(Limits::min()), Value::real(Limits::min()),
                           Value::real(resolution), type},
                          {"bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"});
  };
  return dt == DType::F32 ? facts(0.0f) : facts(0.0);
}

// iinfo(type): an integer dtype's bits and range.
Value bIinfo(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value type = argument(c, args, 0, "type", nullptr);
  c.checkKeywordsUsed("iinfo");
  DType dt = dtypeArg(c, type, "type");
  if (!isIntegral(dt))
    fail(c.loc, std::string("iinfo() requires an integer input type, not ") + dtypeName(dt) + "; use finfo",
         ErrorClass::TypeError);
  int64_t bits = dt == DType::I32 ? 32 : 64;
  int64_t max = dt == DType::I32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  int64_t min = dt == DType::I32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  return makeNamedTuple({Value::integer(bits), Value::integer(max), Value::integer(min), type},
                        {"bits", "max", "min", "dtype"});
}

// get_default_dtype(): the dtype of a float made into a tensor, f32.
Value bGetDefaultDtype(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 0);
  return Value::dtype(static_cast<int>(DType::F32));
}

// promote_types(type1, type2): the dtype a binary op of tensors of these
// dtypes gives.
Value bPromoteTypes(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = argument(c, args, 0, "type1", nullptr), b = argument(c, args, 1, "type2", nullptr);
  c.checkKeywordsUsed("promote_types");
  return Value::dtype(static_cast<int>(promote(dtypeArg(c, a, "type1"), dtypeArg(c, b, "type2"))));
}

// result_type(tensor1, tensor2): the dtype nn's binary ops give these
// operands, tensors or numbers (a number as the Python scalar it is; a 0-d
// tensor as a tensor, where PyTorch lets a tensor with dims of its kind
// decide: docs/from_pytorch.md).
Value bResultType(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = argument(c, args, 0, "tensor1", nullptr), b = argument(c, args, 1, "tensor2", nullptr);
  c.checkKeywordsUsed("result_type");
  auto kind = [&](const Value& v) -> std::optional<ScalarKind> {
    if (v.is(Kind::Bool)) return ScalarKind::Bool;
    if (v.is(Kind::Int)) return ScalarKind::Int;
    if (v.is(Kind::Float)) return ScalarKind::Float;
    if (!v.is(Kind::Tensor))
      fail(c.loc, std::string("result_type(): expects tensors or numbers, not ") + typeName(v), ErrorClass::TypeError);
    return std::nullopt;
  };
  std::optional<ScalarKind> ka = kind(a), kb = kind(b);
  auto scalarType = [](ScalarKind k) {
    return k == ScalarKind::Bool ? DType::Bool : k == ScalarKind::Int ? DType::I64 : DType::F32;
  };
  DType out;
  if (!ka && !kb)
    out = promote(tensorOf(a).dtype(), tensorOf(b).dtype());
  else if (!ka)
    out = promoteWithScalar(tensorOf(a).dtype(), *kb);
  else if (!kb)
    out = promoteWithScalar(tensorOf(b).dtype(), *ka);
  else
    out = promote(scalarType(*ka), scalarType(*kb));
  return Value::dtype(static_cast<int>(out));
}

// can_cast(from_, to): whether PyTorch casts from_ to `to` in an in-place
// op: not to a lower kind (bool < integer < floating).
Value bCanCast(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = argument(c, args, 0, "from_", nullptr), b = argument(c, args, 1, "to", nullptr);
  c.checkKeywordsUsed("can_cast");
  auto rank = [](DType d) { return d == DType::Bool ? 0 : isFloating(d) ? 2 : 1; };
  return Value::boolean(rank(dtypeArg(c, a, "from_")) <= rank(dtypeArg(c, b, "to")));
}

}  // namespace

BuiltinFn torchFunctionMethod(const std::string& name) {
  if (name == "dist") return bDist;
  if (name == "pinverse") return bPinverse;
  if (name == "select_scatter") return bSelectScatter;
  if (name == "slice_scatter") return bSliceScatter;
  return nullptr;
}

void addTorchFunctions(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::Dist, Builtin::Pinverse, Builtin::SelectScatter, Builtin::SliceScatter})
    table[ir::builtinInfo(b).name] = torchFunctionMethod(ir::builtinInfo(b).name);
  table[ir::builtinInfo(Builtin::Numel).name] = bNumelFunction;
  table[ir::builtinInfo(Builtin::ClampMax).name] = bClampMaxFunction;
  table[ir::builtinInfo(Builtin::MaskedSelect).name] = bMaskedSelectFunction;
  table[ir::builtinInfo(Builtin::IsTensor).name] = bIsTensor;
  table[ir::builtinInfo(Builtin::ScalarTensor).name] = bScalarTensor;
  table[ir::builtinInfo(Builtin::BroadcastShapes).name] = bBroadcastShapes;
  table[ir::builtinInfo(Builtin::PromoteTypes).name] = bPromoteTypes;
  table[ir::builtinInfo(Builtin::ResultType).name] = bResultType;
  table[ir::builtinInfo(Builtin::CanCast).name] = bCanCast;
  table[ir::builtinInfo(Builtin::Finfo).name] = bFinfo;
  table[ir::builtinInfo(Builtin::Iinfo).name] = bIinfo;
  table[ir::builtinInfo(Builtin::GetDefaultDtype).name] = bGetDefaultDtype;
}

}  // namespace nn::stdlib
