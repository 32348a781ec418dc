// Tensor math on runtime values: the unary and binary math ops dispatched
// through the kernel registry, where, clip, variance, sums of squares
// (norm's) and logsumexp.
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/device.h"
#include "runtime/dispatch.h"
#include "runtime/kernels.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

using ir::Op;

std::optional<Value> floatMath(Op op, double x) {
  if (std::optional<double> r = floatUnary(op, x)) return Value::real(*r);
  if (std::optional<bool> r = floatTest(op, x)) return Value::boolean(*r);
  return std::nullopt;
}

Value mathUnary(Op op, const Value& x, SourceLoc loc, unsigned consumable) {
  const char* name = ir::opInfo(op).name;
  if (x.isNumber()) {
    // A Python number: compute at Python's precision and return a number,
    // as a 0-d tensor's kernel computes it; a float's math (math.sqrt in a
    // loop makes several such calls per iteration) without the tensor.
    DType dt = ir::computesInFloat(op) || x.is(Kind::Float) ? DType::F64 : DType::I64;
    if (dt == DType::F64)
      if (std::optional<Value> r = floatMath(op, x.asFloat())) return *r;
    ScalarDevice scalar;
    return item(tensorOf(mathUnary(op, makeTensorValue(tensorFromData(x, dt, loc, scalar)), loc)), loc);
  }
  if (!x.is(Kind::Tensor))
    fail(loc, std::string(name) + "() expects a Tensor or a number, not " + typeName(x));
  const Tensor* t = &tensorOf(x);
  Tensor converted;
  if (op == Op::LogicalNot) t = &(converted = astype(*t, DType::Bool));
  else if (ir::computesInFloat(op) && !isFloating(t->dtype())) t = &(converted = astype(*t, DType::F32));
  else if (t->dtype() == DType::Bool && !ir::testsElementClass(op)) t = &(converted = astype(*t, DType::I64));
  UnaryKernel k = t->device().kernels().unary(op, t->dtype());
  if (!k) fail(loc, std::string(name) + "() is not defined for " + typeString(*t));
  DType outType = ir::unaryGivesBool(op) ? DType::Bool : t->dtype();
  // x's own buffer may take the result (a converted copy is not worth it).
  Tensor out = t == &tensorOf(x) ? elementwiseResult(outType, t->shape(), x, nullptr, consumable)
                                 : Tensor::empty(outType, t->shape(), t->device());
  launchUnary(op, t->device(), k, *t, out, loc);
  return makeTensorValue(std::move(out));
}

Value mathBinary(Op op, const Value& a, const Value& b, SourceLoc loc) {
  const char* name = ir::opInfo(op).name;
  for (const Value* v : {&a, &b})
    if (!v->is(Kind::Tensor) && !v->isNumber())
      fail(loc, std::string(name) + "() expects Tensors or numbers, not " + typeName(*v), ErrorClass::TypeError);
  bool logical = op == Op::LogicalAnd || op == Op::LogicalOr;
  if (!a.is(Kind::Tensor) && !b.is(Kind::Tensor)) {
    // Two numbers: computed as 0-d tensors on a scratch device, returned as
    // a number (at Python's precision: an op that computes integers in
    // float computes them in f64).
    ScalarDevice scalar;
    bool floats = a.is(Kind::Float) || b.is(Kind::Float) || isFloating(ir::binaryComputeType(op, DType::I64));
    DType dt = logical ? DType::Bool : floats ? DType::F64 : DType::I64;
    Value x = makeTensorValue(tensorFromData(a, dt, loc, scalar));
    return item(tensorOf(mathBinary(op, x, b, loc)), loc);
  }
  if (logical) {
    // A number operand goes to its tensor partner's device.
    Device& device = tensorOf(a.is(Kind::Tensor) ? a : b).device();
    auto asBool = [&](const Value& v) {
      return makeTensorValue(
          astype(v.is(Kind::Tensor) ? tensorOf(v) : tensorFromData(v, DType::Bool, loc, device), DType::Bool));
    };
    return tensorBinary(op, asBool(a), asBool(b), loc);
  }
  return tensorBinary(op, a, b, loc);
}


Value whereOp(const Value& cond, const Value& a, const Value& b, SourceLoc loc) {
  auto notNumber = [&](const Value& v) {
    fail(loc, std::string("where() expects Tensors or numbers, not ") + typeName(v));
  };
  if (!cond.is(Kind::Tensor) && !a.is(Kind::Tensor) && !b.is(Kind::Tensor)) {
    // Three numbers: computed on a scratch device, returned as a number (as
    // maximum(2, 3) is).
    if (!cond.isNumber()) notNumber(cond);
    ScalarDevice scalar;
    Value c = makeTensorValue(tensorFromData(cond, std::nullopt, loc, scalar));
    return item(tensorOf(whereOp(c, a, b, loc)), loc);
  }
  // On the tensor operands' device.
  const Tensor* first = nullptr;
  for (const Value* v : {&cond, &a, &b}) {
    if (!v->is(Kind::Tensor)) continue;
    if (first) commonDevice(*first, tensorOf(*v), "where", loc);
    else first = &tensorOf(*v);
  }
  Device& device = first->device();
  // A number beside a tensor is made at the dtype they promote to (a
  // float beside an f64 tensor keeps its double value), two numbers at
  // their own default dtypes.
  auto toTensor = [&](const Value& v, std::optional<DType> dtype) -> Tensor {
    if (v.is(Kind::Tensor)) return tensorOf(v);
    if (!v.isNumber()) notNumber(v);
    return tensorFromData(v, dtype, loc, device);
  };
  auto kindOf = [](const Value& v) {
    return v.is(Kind::Float) ? ScalarKind::Float : v.is(Kind::Int) ? ScalarKind::Int : ScalarKind::Bool;
  };
  Tensor c = astype(toTensor(cond, std::nullopt), DType::Bool);
  std::optional<DType> given;
  if (a.is(Kind::Tensor) && b.is(Kind::Tensor)) given = promote(tensorOf(a).dtype(), tensorOf(b).dtype());
  else if (a.is(Kind::Tensor)) given = promoteWithScalar(tensorOf(a).dtype(), kindOf(b));
  else if (b.is(Kind::Tensor)) given = promoteWithScalar(tensorOf(b).dtype(), kindOf(a));
  Tensor x = toTensor(a, given), y = toTensor(b, given);
  DType dt = given ? *given : promote(x.dtype(), y.dtype());
  // The message only when it is needed: this runs on every call.
  std::optional<Shape> cx = tryBroadcastShapes(c.shape(), x.shape());
  std::optional<Shape> broadcast = cx ? tryBroadcastShapes(*cx, y.shape()) : std::nullopt;
  if (!broadcast)
    fail(loc, "shape mismatch in where: " + typeString(c) + ", " + typeString(x) + ", " + typeString(y));
  const Shape& shape = *broadcast;
  c = broadcastTo(c, shape, loc);
  x = broadcastTo(astype(x, dt), shape, loc);
  y = broadcastTo(astype(y, dt), shape, loc);
  Tensor out = Tensor::empty(dt, shape, device);
  if (out.numel() > 0) launch<Op::Where>(device, dt, loc, c, x, y, out);
  return makeTensorValue(std::move(out));
}

Value clipOp(const Value& x, const Value& lo, const Value& hi, SourceLoc loc) {
  if (!x.is(Kind::Tensor)) fail(loc, std::string("clip() expects a Tensor, not ") + typeName(x));
  // Float x between two numbers: one pass on the CPU (the same bits). An
  // int past 2^53 would round twice through the double.
  auto bound = [](const Value& v) {
    return v.is(Kind::Float) || (v.is(Kind::Int) && v.asInt() >= -(int64_t(1) << 53) && v.asInt() <= int64_t(1) << 53);
  };
  if (bound(lo) && bound(hi))
    if (std::optional<Tensor> out = cpuClip(tensorOf(x), lo.asFloat(), hi.asFloat()))
      return makeTensorValue(std::move(*out));
  Value r = x;
  bool fresh = !lo.is(Kind::None);
  if (fresh) r = mathBinary(Op::Maximum, r, lo, loc);
  if (hi.is(Kind::None)) return r;
  // The minimum written into the maximum's result, which nothing else
  // holds (while still in cache, and without a second buffer).
  if (fresh && (hi.is(Kind::Tensor) || hi.isNumber())) return tensorBinary(Op::Minimum, r, hi, loc, kConsumeFirst);
  return mathBinary(Op::Minimum, r, hi, loc);
}

namespace {

// reduce()'s result shape over x's trailing `axes` (all of them when none),
// and the length of the run of x's elements each result reduces, for a
// contiguous x in host memory with a non-empty run; none where the axes
// are others (or invalid: reduce() says so) or x is elsewhere.
std::optional<std::pair<Shape, int64_t>> trailingRuns(const Tensor& x, const std::vector<int64_t>& axes,
                                                      bool keepdims) {
  if (!x.isContiguous() || !x.device().hostMemory()) return std::nullopt;
  int nd = x.ndim();
  std::vector<bool> reduced(static_cast<size_t>(nd), axes.empty());
  for (int64_t a : axes) {
    int64_t k = a < 0 ? a + nd : a;
    if (k < 0 || k >= nd || reduced[static_cast<size_t>(k)]) return std::nullopt;
    reduced[static_cast<size_t>(k)] = true;
  }
  int first = nd;
  while (first > 0 && reduced[static_cast<size_t>(first - 1)]) --first;
  Shape shape;
  int64_t run = 1;
  for (int d = 0; d < nd; ++d) {
    if (reduced[static_cast<size_t>(d)] && d < first) return std::nullopt;  // a reduced axis before a kept one
    if (d >= first) run *= x.dim(d);
    if (d < first) shape.push_back(x.dim(d));
    else if (keepdims) shape.push_back(1);
  }
  if (run == 0) return std::nullopt;
  return std::make_pair(shape, run);
}

// The sum of squared deviations of contiguous float x over its trailing
// `axes` in one pass on a CPU device (cpuSquaredDeviations), with
// reduce()'s result shape; none where trailingRuns has none.
std::optional<Tensor> trailingSquaredDeviations(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  std::optional<std::pair<Shape, int64_t>> runs = trailingRuns(x, axes, keepdims);
  if (!runs) return std::nullopt;
  Tensor out = Tensor::empty(DType::F64, runs->first, x.device());
  if (!cpuSquaredDeviations(x, runs->second, out)) return std::nullopt;
  return out;
}

}  // namespace

std::optional<Tensor> trailingSumsOfSquares(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  std::optional<std::pair<Shape, int64_t>> runs = trailingRuns(x, axes, keepdims);
  if (!runs || !isFloating(x.dtype())) return std::nullopt;
  Tensor out = Tensor::empty(x.dtype(), runs->first, x.device());
  if (!cpuSumsOfSquares(x, runs->second, out)) return std::nullopt;
  return out;
}

// Over trailing axes (rows, the whole tensor) on the CPU one pass for the
// squared deviations, with the bits of the same steps op by op
// below (the mean and the sums in sum_order.h's order, each deviation
// squared in double); over other axes op by op.
Tensor variance(const Tensor& t, std::vector<int64_t> axes, bool keepdims, int64_t ddof, bool sqrtResult,
                SourceLoc loc, const char* name) {
  Tensor x = isFloating(t.dtype()) ? t : astype(t, DType::F32);
  std::optional<Tensor> fast = trailingSquaredDeviations(x, axes, keepdims);
  Tensor sum, mean;
  if (fast) {
    sum = *fast;
  } else {
    Tensor wide = astype(x, DType::F64);  // converted once: the mean and the deviations read it
    mean = reduce(wide, Reduction::Mean, axes, true, loc, name);
    Value centered = tensorBinary(Op::Sub, makeTensorValue(std::move(wide)), makeTensorValue(mean), loc);
    Value sq = tensorBinary(Op::Mul, centered, centered, loc);
    sum = reduce(tensorOf(sq), Reduction::Sum, axes, keepdims, loc, name);
  }
  int64_t count = t.numel() / std::max<int64_t>(1, fast ? sum.numel() : mean.numel());
  double denom = static_cast<double>(count - ddof);
  // Dividing by a non-positive count gives NaN, as in NumPy.
  Value out = tensorBinary(Op::Div, makeTensorValue(sum), Value::real(denom > 0 ? denom : std::nan("")), loc);
  if (sqrtResult) out = mathUnary(Op::Sqrt, out, loc);
  return astype(tensorOf(out), x.dtype());
}

// In the tensor's own float dtype, as PyTorch computes it (f32: SLEEF's
// vectorised exp and log, within a few ULP; the sum adds in double), and
// integers in f64.
Tensor logsumexp(const Tensor& t, std::vector<int64_t> axes, bool keepdims, SourceLoc loc) {
  Tensor x = isFloating(t.dtype()) ? t : astype(t, DType::F64);
  Tensor m = reduce(x, Reduction::Max, axes, true, loc, "logsumexp");
  // Shift by the maximum for stability; where it is not finite (m - m is
  // NaN there) by 0, so an all -inf slice stays -inf.
  Value mv = makeTensorValue(m);
  Value notFinite = mathUnary(Op::IsNan, tensorBinary(Op::Sub, mv, mv, loc), loc);
  Tensor shift = tensorOf(whereOp(notFinite, Value::real(0.0), mv, loc));
  Value e = mathUnary(Op::Exp, tensorBinary(Op::Sub, makeTensorValue(x), makeTensorValue(shift), loc), loc);
  Tensor s = reduce(tensorOf(e), Reduction::Sum, axes, true, loc, "logsumexp");
  Tensor out = tensorOf(tensorBinary(Op::Add, mathUnary(Op::Log, makeTensorValue(s), loc), makeTensorValue(shift), loc));
  if (!keepdims) out = reduce(out, Reduction::Sum, axes, false, loc, "logsumexp");
  return astype(out, isFloating(t.dtype()) ? t.dtype() : DType::F32);
}

}  // namespace nn::rt
