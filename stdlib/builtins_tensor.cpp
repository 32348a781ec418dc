// Tensor builtins (language.md §5): creation (tensor, zeros, ones, full,
// arange, linspace, eye, zeros_like, ones_like), reductions (sum, mean,
// prod, max, min, argmax, argmin, all, any; also through min/max/sum on a
// tensor), shape functions (reshape, transpose, flatten, squeeze, unsqueeze)
// and the tensor attributes and methods (x.shape, x.T, x.sum(axis=1), ...).
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "ir/builtins.h"
#include "runtime/device.h"
#include "runtime/nn_ops.h"
#include "runtime/random.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "support/float_repr.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

const Tensor& tensorArg(CallContext& c, const Value& v, const char* what = "argument") {
  if (!v.is(Kind::Tensor)) fail(c.loc, c.name + "() " + what + " must be a Tensor, not " + typeName(v));
  return tensorOf(v);
}

std::optional<DType> dtypeArg(CallContext& c, const Value* v) {
  if (!v || v->is(Kind::None)) return std::nullopt;
  if (v->is(Kind::DType)) return static_cast<DType>(v->asInt());
  if (v->is(Kind::Builtin)) {
    const std::string& n = v->as<BuiltinObj>().name;
    if (n == "bool") return DType::Bool;
    if (n == "int") return DType::I64;
    if (n == "float") return DType::F32;
  }
  if (v->is(Kind::Str))
    if (auto d = dtypeFromName(v->asStr())) return d;
  fail(c.loc, std::string("dtype must be one of f32, f64, i32, i64, bool, not ") + repr(*v));
}

// Shape arguments as in zeros(2, 3), zeros((2, 3)) or zeros([2, 3]).
Shape shapeArgs(CallContext& c, const std::vector<Value>& args, size_t from = 0) {
  std::vector<Value> dims(args.begin() + static_cast<std::ptrdiff_t>(from), args.end());
  if (dims.size() == 1 && (dims[0].is(Kind::Tuple) || dims[0].is(Kind::List))) dims = dims[0].as<SeqObj>().items;
  Shape s;
  for (const Value& d : dims) {
    if (!d.isIntLike()) fail(c.loc, c.name + "(): shape dimensions must be integers, not " + typeName(d));
    s.push_back(d.asInt());
  }
  return s;
}

void checkNonNegative(CallContext& c, const Shape& s) {
  for (int64_t d : s)
    if (d < 0) fail(c.loc, c.name + "(): negative dimension " + std::to_string(d));
}

Value filled(CallContext& c, std::vector<Value>& args, double value) {
  std::optional<DType> dt = dtypeArg(c, c.kw("dtype"));
  c.checkKeywordsUsed(c.name.c_str());
  Shape s = shapeArgs(c, args);
  checkNonNegative(c, s);
  return makeTensorValue(fullLike(dt.value_or(DType::F32), s, value, c.interp.context().cpu()));
}

Value bTensor(CallContext& c, std::vector<Value>& args) {
  const Value* dkw = c.kw("dtype");
  c.checkKeywordsUsed("tensor");
  checkArity(c, args, 1, 2);
  std::optional<DType> dt = dtypeArg(c, args.size() == 2 ? &args[1] : dkw);
  return makeTensorValue(tensorFromData(args[0], dt, c.loc, c.interp.context().cpu()));
}
Value bZeros(CallContext& c, std::vector<Value>& args) { return filled(c, args, 0.0); }
Value bOnes(CallContext& c, std::vector<Value>& args) { return filled(c, args, 1.0); }

Value bFull(CallContext& c, std::vector<Value>& args) {
  const Value* dkw = c.kw("dtype");
  c.checkKeywordsUsed("full");
  checkArity(c, args, 2, 2);
  if (!args[1].isNumber()) fail(c.loc, std::string("full(): fill value must be a number, not ") + typeName(args[1]));
  Shape s = shapeArgs(c, {args[0]});
  checkNonNegative(c, s);
  DType def = args[1].is(Kind::Bool) ? DType::Bool : args[1].is(Kind::Int) ? DType::I64 : DType::F32;
  return makeTensorValue(fullLike(dtypeArg(c, dkw).value_or(def), s, args[1].asFloat(), c.interp.context().cpu()));
}

Value likeImpl(CallContext& c, std::vector<Value>& args, double value) {
  const Value* dkw = c.kw("dtype");
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 1);
  const Tensor& t = tensorArg(c, args[0]);
  return makeTensorValue(fullLike(dtypeArg(c, dkw).value_or(t.dtype()), t.shape(), value, t.device()));
}
Value bZerosLike(CallContext& c, std::vector<Value>& args) { return likeImpl(c, args, 0.0); }
Value bOnesLike(CallContext& c, std::vector<Value>& args) { return likeImpl(c, args, 1.0); }

Value bArange(CallContext& c, std::vector<Value>& args) {
  const Value* dkw = c.kw("dtype");
  c.checkKeywordsUsed("arange");
  checkArity(c, args, 1, 3);
  for (const Value& a : args)
    if (!a.isNumber()) fail(c.loc, std::string("arange(): arguments must be numbers, not ") + typeName(a));
  Value start = args.size() > 1 ? args[0] : Value::integer(0);
  Value stop = args.size() > 1 ? args[1] : args[0];
  Value step = args.size() > 2 ? args[2] : Value::integer(1);
  bool allInt = start.isIntLike() && stop.isIntLike() && step.isIntLike();
  DType dt = dtypeArg(c, dkw).value_or(allInt ? DType::I64 : DType::F32);
  double a = start.asFloat(), b = stop.asFloat(), s = step.asFloat();
  if (s == 0) fail(c.loc, "arange(): step must not be zero");
  int64_t n = static_cast<int64_t>(std::ceil((b - a) / s));
  if (n < 0) n = 0;
  Device& device = c.interp.context().cpu();
  Tensor t = Tensor::empty(DType::F64, {n}, device);
  for (int64_t i = 0; i < n; ++i) t.data<double>()[i] = a + static_cast<double>(i) * s;
  if (allInt && dt == DType::I64) {
    Tensor it = Tensor::empty(DType::I64, {n}, device);
    for (int64_t i = 0; i < n; ++i) it.data<int64_t>()[i] = start.asInt() + i * step.asInt();
    return makeTensorValue(it);
  }
  return makeTensorValue(astype(t, dt));
}

Value bLinspace(CallContext& c, std::vector<Value>& args) {
  const Value* dkw = c.kw("dtype");
  c.checkKeywordsUsed("linspace");
  checkArity(c, args, 3, 3);
  if (!args[0].isNumber() || !args[1].isNumber()) fail(c.loc, "linspace(): start and stop must be numbers");
  int64_t n = toIndex(args[2], c.loc);
  if (n < 0) fail(c.loc, "linspace(): number of samples must be non-negative");
  double a = args[0].asFloat(), b = args[1].asFloat();
  Tensor t = Tensor::empty(DType::F64, {n}, c.interp.context().cpu());
  double step = n > 1 ? (b - a) / static_cast<double>(n - 1) : 0.0;
  for (int64_t i = 0; i < n; ++i) t.data<double>()[i] = i == n - 1 && n > 1 ? b : a + static_cast<double>(i) * step;
  return makeTensorValue(astype(t, dtypeArg(c, dkw).value_or(DType::F32)));
}

Value bEye(CallContext& c, std::vector<Value>& args) {
  const Value* dkw = c.kw("dtype");
  c.checkKeywordsUsed("eye");
  checkArity(c, args, 1, 2);
  int64_t n = toIndex(args[0], c.loc), m = args.size() == 2 ? toIndex(args[1], c.loc) : n;
  if (n < 0 || m < 0) fail(c.loc, "eye(): negative dimension");
  Tensor t = fullLike(DType::F64, {n, m}, 0.0, c.interp.context().cpu());
  for (int64_t i = 0; i < std::min(n, m); ++i) t.data<double>()[i * m + i] = 1.0;
  return makeTensorValue(astype(t, dtypeArg(c, dkw).value_or(DType::F32)));
}

// axis=None|int|tuple
std::vector<int64_t> axesArg(CallContext& c, const Value* v) {
  std::vector<int64_t> axes;
  if (!v || v->is(Kind::None)) return axes;
  if (v->isIntLike()) return {v->asInt()};
  if (v->is(Kind::Tuple) || v->is(Kind::List)) {
    for (const Value& a : v->as<SeqObj>().items) axes.push_back(toIndex(a, c.loc));
    if (axes.empty()) fail(c.loc, c.name + "(): axis tuple must not be empty");
    return axes;
  }
  fail(c.loc, c.name + "(): axis must be None, an int or a tuple of ints");
}

Value reduction(CallContext& c, std::vector<Value>& args, Reduction r) {
  const Value* axisKw = c.kw("axis");
  const Value* keepKw = c.kw("keepdims");
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 2);
  const Tensor& t = tensorArg(c, args[0]);
  std::vector<int64_t> axes = axesArg(c, args.size() == 2 ? &args[1] : axisKw);
  bool keep = keepKw && truthy(*keepKw);
  return makeTensorValue(reduce(t, r, axes, keep, c.loc, c.name.c_str()));
}
Value bSumT(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::Sum); }
Value bMean(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::Mean); }
Value bProd(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::Prod); }
Value bMaxT(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::Max); }
Value bMinT(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::Min); }
Value bArgmax(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::ArgMax); }
Value bArgmin(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::ArgMin); }
Value bAllT(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::All); }
Value bAnyT(CallContext& c, std::vector<Value>& a) { return reduction(c, a, Reduction::Any); }

Value varianceImpl(CallContext& c, std::vector<Value>& args, bool sqrtResult) {
  const Value* axisKw = c.kw("axis");
  const Value* keepKw = c.kw("keepdims");
  const Value* ddofKw = c.kw("ddof");
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 2);
  const Tensor& t = tensorArg(c, args[0]);
  int64_t ddof = ddofKw ? toIndex(*ddofKw, c.loc) : 0;
  return makeTensorValue(variance(t, axesArg(c, args.size() == 2 ? &args[1] : axisKw), keepKw && truthy(*keepKw),
                                  ddof, sqrtResult, c.loc, c.name.c_str()));
}
Value bVar(CallContext& c, std::vector<Value>& a) { return varianceImpl(c, a, false); }
Value bStd(CallContext& c, std::vector<Value>& a) { return varianceImpl(c, a, true); }

Value bLogsumexp(CallContext& c, std::vector<Value>& args) {
  const Value* axisKw = c.kw("axis");
  const Value* keepKw = c.kw("keepdims");
  c.checkKeywordsUsed("logsumexp");
  checkArity(c, args, 1, 2);
  const Tensor& t = tensorArg(c, args[0]);
  return makeTensorValue(logsumexp(t, axesArg(c, args.size() == 2 ? &args[1] : axisKw), keepKw && truthy(*keepKw), c.loc));
}

Value bUnaryMath(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 1);
  // The arguments belong to this call: args[0] may take the result when
  // nothing else holds it.
  return mathUnary(*ir::functionOp(c.name), args[0], c.loc, kConsumeFirst);
}

Value bBinaryMath(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 2, 2);
  return mathBinary(*ir::functionOp(c.name), args[0], args[1], c.loc);
}

Value bPow(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("pow");
  checkArity(c, args, 2, 2);
  return binaryOp(ir::Op::Pow, args[0], args[1], c.loc);
}

Value bNeg(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  return unaryOp(nn::ir::Op::Neg, args[0], c.loc);
}

Value bWhere(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("where");
  checkArity(c, args, 3, 3);
  return whereOp(args[0], args[1], args[2], c.loc);
}

Value bClip(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("clip");
  checkArity(c, args, 3, 3);
  return clipOp(args[0], args[1], args[2], c.loc);
}

Value bSeed(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("seed");
  checkArity(c, args, 1, 1);
  c.interp.rng().reseed(static_cast<uint64_t>(toIndex(args[0], c.loc)));
  return Value::none();
}

Value randomFill(CallContext& c, std::vector<Value>& args, bool normal) {
  DType dt = dtypeArg(c, c.kw("dtype")).value_or(DType::F32);
  c.checkKeywordsUsed(c.name.c_str());
  if (!isFloating(dt)) fail(c.loc, c.name + "(): dtype must be f32 or f64");
  Shape s = shapeArgs(c, args);
  checkNonNegative(c, s);
  Tensor t = Tensor::empty(dt, s, c.interp.context().cpu());
  RandomGenerator& g = c.interp.rng();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    if (dt == DType::F32) t.data<float>()[i] = normal ? static_cast<float>(g.normal()) : g.uniformF32();
    else t.data<double>()[i] = normal ? g.normal() : g.uniformF64();
  }
  return makeTensorValue(std::move(t));
}
Value bRand(CallContext& c, std::vector<Value>& args) { return randomFill(c, args, false); }
Value bRandn(CallContext& c, std::vector<Value>& args) { return randomFill(c, args, true); }

Value bRandint(CallContext& c, std::vector<Value>& args) {
  DType dt = dtypeArg(c, c.kw("dtype")).value_or(DType::I64);
  c.checkKeywordsUsed("randint");
  checkArity(c, args, 3, 3);
  int64_t low = toIndex(args[0], c.loc), high = toIndex(args[1], c.loc);
  if (high <= low) fail(c.loc, "randint(): high must be greater than low");
  if (!isIntegral(dt)) fail(c.loc, "randint(): dtype must be i32 or i64");
  Shape s = shapeArgs(c, {args[2]});
  checkNonNegative(c, s);
  Tensor t = Tensor::empty(DType::I64, s, c.interp.context().cpu());
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  for (int64_t i = 0, n = t.numel(); i < n; ++i)
    t.data<int64_t>()[i] = low + static_cast<int64_t>(c.interp.rng().below(range));
  return makeTensorValue(astype(t, dt));
}

Value bMatmul(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("matmul");
  checkArity(c, args, 2, 2);
  return makeTensorValue(matmul(tensorArg(c, args[0]), tensorArg(c, args[1]), c.loc));
}

Value bLinear(CallContext& c, std::vector<Value>& args) {
  const Value* bkw = c.kw("b");
  c.checkKeywordsUsed("linear");
  checkArity(c, args, 2, 3);
  const Value* b = args.size() == 3 ? &args[2] : bkw;
  bool hasBias = b && !b->is(Kind::None);
  return makeTensorValue(linear(tensorArg(c, args[0]), tensorArg(c, args[1]), hasBias ? &tensorArg(c, *b) : nullptr, c.loc));
}

Value softmaxImpl(CallContext& c, std::vector<Value>& args, bool log) {
  const Value* axisKw = c.kw("axis");
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 2);
  const Value* axis = args.size() == 2 ? &args[1] : axisKw;
  int64_t a = axis && !axis->is(Kind::None) ? toIndex(*axis, c.loc) : -1;
  return makeTensorValue(softmax(tensorArg(c, args[0]), a, log, c.loc));
}
Value bSoftmax(CallContext& c, std::vector<Value>& a) { return softmaxImpl(c, a, false); }
Value bLogSoftmax(CallContext& c, std::vector<Value>& a) { return softmaxImpl(c, a, true); }

Value bOneHot(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("one_hot");
  checkArity(c, args, 2, 2);
  return makeTensorValue(oneHot(tensorArg(c, args[0]), toIndex(args[1], c.loc), c.loc));
}

Value bCrossEntropy(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("cross_entropy");
  checkArity(c, args, 2, 2);
  return makeTensorValue(crossEntropy(tensorArg(c, args[0]), tensorArg(c, args[1]), c.loc));
}

Value bMseLoss(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("mse_loss");
  checkArity(c, args, 2, 2);
  return makeTensorValue(mseLoss(tensorArg(c, args[0]), tensorArg(c, args[1]), c.loc));
}

Value bBce(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("binary_cross_entropy");
  checkArity(c, args, 2, 2);
  return makeTensorValue(binaryCrossEntropy(tensorArg(c, args[0]), tensorArg(c, args[1]), c.loc));
}

// Positional argument i, else keyword `name`, else null.
const Value* argOrKw(CallContext& c, const std::vector<Value>& args, size_t i, const char* name) {
  const Value* k = c.kw(name);
  if (i < args.size()) {
    if (k) fail(c.loc, c.name + "() got multiple values for argument '" + name + "'");
    return &args[i];
  }
  return k;
}

// An int or a pair of ints (height, width).
std::pair<int64_t, int64_t> pairArg(CallContext& c, const Value* v, int64_t dflt, const char* what) {
  if (!v || v->is(Kind::None)) return {dflt, dflt};
  if (v->isIntLike()) return {v->asInt(), v->asInt()};
  if ((v->is(Kind::Tuple) || v->is(Kind::List)) && v->as<SeqObj>().items.size() == 2)
    return {toIndex(v->as<SeqObj>().items[0], c.loc), toIndex(v->as<SeqObj>().items[1], c.loc)};
  fail(c.loc, c.name + "(): " + what + " must be an int or a pair of ints");
}

const Tensor* optionalTensor(CallContext& c, const Value* v) {
  return v && !v->is(Kind::None) ? &tensorArg(c, *v) : nullptr;
}

Value bConv2d(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 7);
  const Value* b = argOrKw(c, args, 2, "b");
  const Value* stride = argOrKw(c, args, 3, "stride");
  const Value* padding = argOrKw(c, args, 4, "padding");
  const Value* dilation = argOrKw(c, args, 5, "dilation");
  const Value* groups = argOrKw(c, args, 6, "groups");
  c.checkKeywordsUsed("conv2d");
  ConvParams p;
  std::tie(p.strideH, p.strideW) = pairArg(c, stride, 1, "stride");
  std::tie(p.padH, p.padW) = pairArg(c, padding, 0, "padding");
  std::tie(p.dilH, p.dilW) = pairArg(c, dilation, 1, "dilation");
  p.groups = groups && !groups->is(Kind::None) ? toIndex(*groups, c.loc) : 1;
  return makeTensorValue(conv2d(tensorArg(c, args[0]), tensorArg(c, args[1]), optionalTensor(c, b), p, c.loc));
}

Value poolImpl(CallContext& c, std::vector<Value>& args, bool isMax) {
  checkArity(c, args, 2, 4);
  const Value* stride = argOrKw(c, args, 2, "stride");
  const Value* padding = argOrKw(c, args, 3, "padding");
  c.checkKeywordsUsed(c.name.c_str());
  PoolParams p;
  std::tie(p.kH, p.kW) = pairArg(c, &args[1], 1, "kernel");
  auto st = pairArg(c, stride, 0, "stride");
  p.strideH = st.first ? st.first : p.kH;
  p.strideW = st.second ? st.second : p.kW;
  std::tie(p.padH, p.padW) = pairArg(c, padding, 0, "padding");
  return makeTensorValue(pool2d(tensorArg(c, args[0]), p, isMax, c.loc));
}
Value bMaxPool(CallContext& c, std::vector<Value>& a) { return poolImpl(c, a, true); }
Value bAvgPool(CallContext& c, std::vector<Value>& a) { return poolImpl(c, a, false); }

double epsArg(CallContext& c, const Value* v) {
  if (!v || v->is(Kind::None)) return 1e-5;
  if (!v->isNumber()) fail(c.loc, c.name + "(): eps must be a number");
  return v->asFloat();
}

Value bBatchNorm(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 3, 6);
  const Value* gamma = argOrKw(c, args, 3, "gamma");
  const Value* beta = argOrKw(c, args, 4, "beta");
  const Value* eps = argOrKw(c, args, 5, "eps");
  c.checkKeywordsUsed("batch_norm");
  return makeTensorValue(batchNorm(tensorArg(c, args[0]), tensorArg(c, args[1]), tensorArg(c, args[2]),
                                   optionalTensor(c, gamma), optionalTensor(c, beta), epsArg(c, eps), c.loc));
}

Value bLayerNorm(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 4);
  const Value* gamma = argOrKw(c, args, 1, "gamma");
  const Value* beta = argOrKw(c, args, 2, "beta");
  const Value* eps = argOrKw(c, args, 3, "eps");
  c.checkKeywordsUsed("layer_norm");
  return makeTensorValue(layerNorm(tensorArg(c, args[0]), optionalTensor(c, gamma), optionalTensor(c, beta),
                                   epsArg(c, eps), c.loc));
}

std::vector<Tensor> tensorList(CallContext& c, const Value& v) {
  if (!v.is(Kind::List) && !v.is(Kind::Tuple)) fail(c.loc, c.name + "() expects a list or tuple of tensors");
  std::vector<Tensor> out;
  for (const Value& x : v.as<SeqObj>().items) out.push_back(tensorArg(c, x, "list element"));
  return out;
}

int64_t axisOr(CallContext& c, const std::vector<Value>& args, size_t i, int64_t dflt) {
  const Value* a = argOrKw(c, args, i, "axis");
  return a && !a->is(Kind::None) ? toIndex(*a, c.loc) : dflt;
}

Value tensorsValue(const std::vector<Tensor>& ts) {
  std::vector<Value> items;
  for (const Tensor& t : ts) items.push_back(makeTensorValue(t));
  return makeList(std::move(items));
}

Value bConcat(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 2);
  int64_t axis = axisOr(c, args, 1, 0);
  c.checkKeywordsUsed("concat");
  return makeTensorValue(concat(tensorList(c, args[0]), axis, c.loc));
}

Value bStack(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 2);
  int64_t axis = axisOr(c, args, 1, 0);
  c.checkKeywordsUsed("stack");
  return makeTensorValue(stack(tensorList(c, args[0]), axis, c.loc));
}

Value bSplit(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 3);
  int64_t axis = axisOr(c, args, 2, 0);
  c.checkKeywordsUsed("split");
  const Tensor& x = tensorArg(c, args[0]);
  if (x.ndim() == 0) fail(c.loc, "split of a 0-d tensor");
  int64_t len = x.dim(static_cast<int>(normalizeAxis(axis, x.ndim(), c.loc, "split")));
  std::vector<int64_t> sizes;
  if (args[1].isIntLike()) {
    int64_t size = args[1].asInt();
    if (size <= 0) fail(c.loc, "split: the chunk size must be positive");
    for (int64_t done = 0; done < len; done += size) sizes.push_back(std::min(size, len - done));
  } else {
    for (const Value& v : iterate(args[1], c.loc)) sizes.push_back(toIndex(v, c.loc));
  }
  return tensorsValue(splitSizes(x, sizes, axis, c.loc));
}

Value bChunk(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 3);
  int64_t axis = axisOr(c, args, 2, 0);
  c.checkKeywordsUsed("chunk");
  const Tensor& x = tensorArg(c, args[0]);
  if (x.ndim() == 0) fail(c.loc, "chunk of a 0-d tensor");
  int64_t n = toIndex(args[1], c.loc);
  if (n <= 0) fail(c.loc, "chunk: the number of chunks must be positive");
  int64_t len = x.dim(static_cast<int>(normalizeAxis(axis, x.ndim(), c.loc, "chunk")));
  int64_t size = std::max<int64_t>(1, (len + n - 1) / n);  // PyTorch: ceil(len / n)
  std::vector<int64_t> sizes;
  for (int64_t done = 0; done < len; done += size) sizes.push_back(std::min(size, len - done));
  return tensorsValue(splitSizes(x, sizes, axis, c.loc));
}

Value bPad(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 3);
  const Value* value = argOrKw(c, args, 2, "value");
  c.checkKeywordsUsed("pad");
  std::vector<int64_t> widths;
  for (const Value& v : iterate(args[1], c.loc)) widths.push_back(toIndex(v, c.loc));
  double fill = value && value->isNumber() ? value->asFloat() : 0.0;
  return makeTensorValue(pad(tensorArg(c, args[0]), widths, fill, c.loc));
}

Value bGather(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("gather");
  checkArity(c, args, 3, 3);
  return makeTensorValue(gather(tensorArg(c, args[0]), toIndex(args[1], c.loc), tensorArg(c, args[2]), c.loc));
}

Value bScatterAdd(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("scatter_add");
  checkArity(c, args, 4, 4);
  return makeTensorValue(scatterAdd(tensorArg(c, args[0]), toIndex(args[1], c.loc), tensorArg(c, args[2]),
                                    tensorArg(c, args[3]), c.loc));
}

Value bExpand(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 2, SIZE_MAX);
  const Tensor& x = tensorArg(c, args[0]);
  Shape target = shapeArgs(c, args, 1);
  // expand: -1 keeps the existing size (PyTorch).
  size_t lead = target.size() >= static_cast<size_t>(x.ndim()) ? target.size() - x.ndim() : 0;
  for (size_t i = lead; i < target.size(); ++i)
    if (target[i] == -1) target[i] = x.dim(static_cast<int>(i - lead));
  return makeTensorValue(broadcastTo(x, target, c.loc));
}

Value bDropout(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 3);
  const Value* training = argOrKw(c, args, 2, "training");
  c.checkKeywordsUsed("dropout");
  const Tensor& x = tensorArg(c, args[0]);
  if (!args[1].isNumber()) fail(c.loc, "dropout: p must be a number");
  double p = args[1].asFloat();
  if (p < 0 || p > 1) fail(c.loc, "dropout: p must be in [0, 1], got " + floatRepr(p));
  if (!(training ? truthy(*training) : true) || p == 0) return args[0];
  Tensor out = astype(x, isFloating(x.dtype()) ? x.dtype() : DType::F32).clone();
  double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  RandomGenerator& g = c.interp.rng();
  for (int64_t i = 0; i < out.numel(); ++i) {
    bool keep = g.uniformF64() >= p;
    if (out.dtype() == DType::F32) out.data<float>()[i] = keep ? static_cast<float>(out.data<float>()[i] * scale) : 0.0f;
    else out.data<double>()[i] = keep ? out.data<double>()[i] * scale : 0.0;
  }
  return makeTensorValue(std::move(out));
}

Value bReshape(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("reshape");
  checkArity(c, args, 2, SIZE_MAX);
  return makeTensorValue(reshape(tensorArg(c, args[0]), shapeArgs(c, args, 1), c.loc));
}

Value bTranspose(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("transpose");
  checkArity(c, args, 1, SIZE_MAX);
  return makeTensorValue(transpose(tensorArg(c, args[0]), shapeArgs(c, args, 1), c.loc));
}

Value bFlatten(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("flatten");
  checkArity(c, args, 1, 1);
  const Tensor& t = tensorArg(c, args[0]);
  return makeTensorValue(reshape(t, {t.numel()}, c.loc));
}

int64_t axisIndex(CallContext& c, int64_t axis, int ndim) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim) fail(c.loc, c.name + "(): axis " + std::to_string(axis) + " is out of bounds");
  return a;
}

Value bSqueeze(CallContext& c, std::vector<Value>& args) {
  const Value* axisKw = c.kw("axis");
  c.checkKeywordsUsed("squeeze");
  checkArity(c, args, 1, 2);
  const Tensor& t = tensorArg(c, args[0]);
  std::vector<int64_t> axes = axesArg(c, args.size() == 2 ? &args[1] : axisKw);
  std::vector<bool> drop(t.ndim(), axes.empty());
  for (int64_t a : axes) {
    int64_t k = axisIndex(c, a, t.ndim());
    if (t.dim(static_cast<int>(k)) != 1) fail(c.loc, "squeeze(): axis " + std::to_string(a) + " does not have size 1");
    drop[k] = true;
  }
  Shape s;
  for (int d = 0; d < t.ndim(); ++d)
    if (!(drop[d] && t.dim(d) == 1)) s.push_back(t.dim(d));
  return makeTensorValue(reshape(t, s, c.loc));
}

Value bUnsqueeze(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("unsqueeze");
  checkArity(c, args, 2, 2);
  const Tensor& t = tensorArg(c, args[0]);
  int64_t a = axisIndex(c, toIndex(args[1], c.loc), t.ndim() + 1);
  Shape s = t.shape();
  s.insert(s.begin() + a, 1);
  return makeTensorValue(reshape(t, s, c.loc));
}

// The implementation of each tensor op marked FUNC: its builtin function.
const std::map<ir::Op, BuiltinFn>& functions() {
  using ir::Op;
  static const std::map<Op, BuiltinFn> m = [] {
    std::map<Op, BuiltinFn> f = {
        {Op::Tensor, bTensor},       {Op::Zeros, bZeros},         {Op::Ones, bOnes},
        {Op::Full, bFull},           {Op::ZerosLike, bZerosLike}, {Op::OnesLike, bOnesLike},
        {Op::Arange, bArange},       {Op::Linspace, bLinspace},   {Op::Eye, bEye},
        {Op::Mean, bMean},           {Op::Prod, bProd},           {Op::ArgMax, bArgmax},
        {Op::ArgMin, bArgmin},       {Op::Reshape, bReshape},     {Op::Transpose, bTranspose},
        {Op::Flatten, bFlatten},     {Op::Squeeze, bSqueeze},     {Op::Unsqueeze, bUnsqueeze},
        {Op::Var, bVar},             {Op::Std, bStd},             {Op::LogSumExp, bLogsumexp},
        {Op::Maximum, bBinaryMath},  {Op::Minimum, bBinaryMath},  {Op::LogicalAnd, bBinaryMath},
        {Op::LogicalOr, bBinaryMath}, {Op::Neg, bNeg},            {Op::Pow, bPow},
        {Op::Where, bWhere},         {Op::Clip, bClip},           {Op::Rand, bRand},
        {Op::Randn, bRandn},         {Op::Randint, bRandint},     {Op::MatMul, bMatmul},
        {Op::Linear, bLinear},       {Op::Softmax, bSoftmax},     {Op::LogSoftmax, bLogSoftmax},
        {Op::OneHot, bOneHot},       {Op::CrossEntropy, bCrossEntropy}, {Op::MseLoss, bMseLoss},
        {Op::BinaryCrossEntropy, bBce}, {Op::Conv2d, bConv2d},    {Op::MaxPool2d, bMaxPool},
        {Op::AvgPool2d, bAvgPool},   {Op::BatchNorm, bBatchNorm}, {Op::LayerNorm, bLayerNorm},
        {Op::Concat, bConcat},       {Op::Stack, bStack},         {Op::Split, bSplit},
        {Op::Chunk, bChunk},         {Op::Pad, bPad},             {Op::Gather, bGather},
        {Op::ScatterAdd, bScatterAdd}, {Op::Expand, bExpand},     {Op::BroadcastTo, bExpand},
        {Op::Dropout, bDropout},
    };
    // The one-operand elementwise builtins share one implementation.
    for (size_t i = 0; i < ir::kNumOps; ++i) {
      Op op = static_cast<Op>(i);
      if (ir::hasTrait(op, ir::ELEM) && ir::hasTrait(op, ir::FUNC) && ir::opInfo(op).maxOperands == 1)
        f.emplace(op, bUnaryMath);
    }
    return f;
  }();
  return m;
}

// The implementation of each tensor op marked METHOD: x.sum(axis=1) is
// sum(x, axis=1), x.exp() is exp(x), and so on.
const std::map<ir::Op, BuiltinFn>& methods() {
  using ir::Op;
  static const std::map<Op, BuiltinFn> m = [] {
    std::map<Op, BuiltinFn> f = {
        {Op::Sum, bSumT}, {Op::Max, bMaxT}, {Op::Min, bMinT}, {Op::All, bAllT}, {Op::Any, bAnyT},
        {Op::Abs, [](CallContext& c, std::vector<Value>& a) {
           checkArity(c, a, 1, 1);
           return tensorMath(c, a[0], Op::Abs);
         }},
        {Op::Round, [](CallContext& c, std::vector<Value>& a) {
           checkArity(c, a, 1, 1);
           return tensorMath(c, a[0], Op::Round);
         }},
        {Op::Item, [](CallContext& c, std::vector<Value>& a) {
           checkArity(c, a, 1, 1);
           return rt::item(tensorOf(a[0]), c.loc);
         }},
        {Op::ToList, [](CallContext& c, std::vector<Value>& a) {
           checkArity(c, a, 1, 1);
           return toList(tensorOf(a[0]));
         }},
        {Op::AsType, [](CallContext& c, std::vector<Value>& a) {
           checkArity(c, a, 2, 2);
           return makeTensorValue(astype(tensorOf(a[0]), *dtypeArg(c, &a[1])));
         }},
    };
    for (const auto& [op, fn] : functions())
      if (ir::hasTrait(op, ir::METHOD)) f.emplace(op, fn);
    return f;
  }();
  return m;
}

}  // namespace

void addTensorBuiltins(BuiltinTable& table) {
  for (const auto& [op, fn] : functions()) table[ir::opInfo(op).name] = fn;
  table[ir::builtinInfo(ir::Builtin::Seed).name] = bSeed;
}

Value tensorMath(CallContext& c, const Value& x, nn::ir::Op op) { return mathUnary(op, x, c.loc); }

Value tensorReduction(CallContext& c, std::vector<Value>& args, ir::Op op) { return methods().at(op)(c, args); }

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
  if (!op) fail(loc, "'Tensor' object has no attribute '" + name + "'");
  BuiltinFn fn = methods().at(*op);
  auto m = std::make_shared<MethodObj>();
  m->self = obj;
  m->name = name;
  m->fn = fn;
  return Value::object(Kind::Method, std::move(m));
}

}  // namespace nn::stdlib
