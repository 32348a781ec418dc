// The implementations of the tensor ops (language.md §5) on their bound
// parameters (op_call.h): creation (tensor, zeros, ones, full, arange,
// linspace, eye, the random ones), reductions, shape functions, indexing
// functions, the NN ops and the losses. Each only reads its parameters
// and calls the runtime's op, which checks, allocates and dispatches to
// the device's kernel; parameter names are those of ops.def.
#include <cmath>

#include "ir/shape_rules.h"
#include "runtime/device.h"
#include "runtime/gradient_ops.h"
#include "runtime/linalg.h"
#include "runtime/nn_ops.h"
#include "runtime/random.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"
#include "support/float_repr.h"

namespace nn::stdlib {

using namespace nn::rt;
using ir::Op;

namespace {

// Where a creation op puts its tensor: its device= argument (which a
// `with device(...)` block supplies), else the CPU.
Device& creationDevice(OpCall& c) {
  if (c.isNone("device")) return c.interp.context().cpu();
  return deviceNamed(c.interp, c.text("device"), c.loc);
}

Shape shapeOf(OpCall& c, std::string_view param) {
  Shape s = c.ints(param);
  for (int64_t d : s)
    if (d < 0) c.fail("negative dimension " + std::to_string(d));
  return s;
}

// ---- creation ----

Value filled(OpCall& c, double value) {
  return makeTensorValue(fullLike(c.dtype("dtype").value_or(DType::F32), shapeOf(c, "shape"), value, creationDevice(c)));
}

// tensor(t) of a tensor stays on t's device unless a device is named.
Value tensorOp(OpCall& c) {
  rt::Device& device = creationDevice(c);
  Tensor t = tensorFromData(c["data"], c.dtype("dtype"), c.loc, device);
  if (c["data"].is(Kind::Tensor) && !c.isNone("device")) t = rt::copyTo(t, device, c.loc);
  return makeTensorValue(std::move(t));
}
Value zerosOp(OpCall& c) { return filled(c, 0.0); }
Value onesOp(OpCall& c) { return filled(c, 1.0); }

Value fullOp(OpCall& c) {
  const Value& v = c["value"];
  if (!v.isNumber()) c.fail(std::string("fill value must be a number, not ") + typeName(v));
  DType def = v.is(Kind::Bool) ? DType::Bool : v.is(Kind::Int) ? DType::I64 : DType::F32;
  return makeTensorValue(fullLike(c.dtype("dtype").value_or(def), shapeOf(c, "shape"), v.asFloat(), creationDevice(c)));
}

Value likeOp(OpCall& c, double value) {
  const Tensor& t = c.tensor("x");
  return makeTensorValue(fullLike(c.dtype("dtype").value_or(t.dtype()), t.shape(), value, t.device()));
}
Value zerosLikeOp(OpCall& c) { return likeOp(c, 0.0); }
Value onesLikeOp(OpCall& c) { return likeOp(c, 1.0); }

Value arangeOp(OpCall& c) {
  // arange(stop), arange(start, stop), arange(start, stop, step).
  bool one = c.isNone("stop");
  Value start = one ? Value::integer(0) : c["start"];
  Value stop = one ? c["start"] : c["stop"];
  Value step = c.isNone("step") ? Value::integer(1) : c["step"];
  for (const Value* a : {&start, &stop, &step})
    if (!a->isNumber()) c.fail(std::string("arguments must be numbers, not ") + typeName(*a));
  bool allInt = start.isIntLike() && stop.isIntLike() && step.isIntLike();
  DType dt = c.dtype("dtype").value_or(allInt ? DType::I64 : DType::F32);
  Ramp r{start.asFloat(), step.asFloat(), allInt, allInt ? start.asInt() : 0, allInt ? step.asInt() : 1, {}};
  if (r.step == 0) c.fail("step must not be zero");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((stop.asFloat() - r.start) / r.step)));
  return makeTensorValue(rampTensor(Op::Arange, dt, n, r, creationDevice(c), c.loc));
}

Value linspaceOp(OpCall& c) {
  double a = c.number("start"), b = c.number("stop");
  int64_t n = c.integer("num");
  if (n < 0) c.fail("number of samples must be non-negative");
  Ramp r{a, n > 1 ? (b - a) / static_cast<double>(n - 1) : 0.0, false, 0, 1, b};
  return makeTensorValue(rampTensor(Op::Linspace, c.dtype("dtype").value_or(DType::F32), n, r, creationDevice(c), c.loc));
}

Value eyeOp(OpCall& c) {
  int64_t n = c.integer("n"), m = c.isNone("m") ? n : c.integer("m");
  if (n < 0 || m < 0) c.fail("negative dimension");
  return makeTensorValue(eye(c.dtype("dtype").value_or(DType::F32), n, m, creationDevice(c), c.loc));
}

Value randomFill(OpCall& c) {
  DType dt = c.dtype("dtype").value_or(DType::F32);
  if (!isFloating(dt)) c.fail("dtype must be f32 or f64");
  return makeTensorValue(randomTensor(c.op, dt, shapeOf(c, "shape"), c.interp.rng(), creationDevice(c), c.loc));
}

Value randintOp(OpCall& c) {
  DType dt = c.dtype("dtype").value_or(DType::I64);
  int64_t low = c.integer("low"), high = c.integer("high");
  if (high <= low) c.fail("high must be greater than low");
  if (!isIntegral(dt)) c.fail("dtype must be i32 or i64");
  return makeTensorValue(randint(dt, shapeOf(c, "shape"), low, high, c.interp.rng(), creationDevice(c), c.loc));
}

// ---- reductions ----

// axis=None (all), an int, or a non-empty tuple of ints.
std::vector<int64_t> axesOf(OpCall& c) {
  const Value& v = c["axis"];
  if ((v.is(Kind::Tuple) || v.is(Kind::List)) && v.as<SeqObj>().items.empty()) c.fail("axis tuple must not be empty");
  return c.ints("axis");
}

Reduction reductionOf(Op op) {
  switch (op) {
    case Op::Sum: return Reduction::Sum;
    case Op::Mean: return Reduction::Mean;
    case Op::Prod: return Reduction::Prod;
    case Op::Max: return Reduction::Max;
    case Op::Min: return Reduction::Min;
    case Op::ArgMax: return Reduction::ArgMax;
    case Op::ArgMin: return Reduction::ArgMin;
    case Op::All: return Reduction::All;
    default: return Reduction::Any;
  }
}

Value reduceOp(OpCall& c) {
  return makeTensorValue(reduce(c.tensor("x"), reductionOf(c.op), axesOf(c), c.flag("keepdims"), c.loc, c.name));
}

Value varianceOp(OpCall& c) {
  return makeTensorValue(variance(c.tensor("x"), axesOf(c), c.flag("keepdims"), c.integer("ddof"), c.op == Op::Std,
                                  c.loc, c.name));
}

Value logsumexpOp(OpCall& c) {
  return makeTensorValue(logsumexp(c.tensor("x"), axesOf(c), c.flag("keepdims"), c.loc));
}

// ---- elementwise (called as functions; as op nodes they are value ops) ----

Value unaryMathOp(OpCall& c) {
  // The parameter belongs to this call: it may take the result when
  // nothing else holds it.
  return mathUnary(c.op, c["x"], c.loc, kConsumeFirst);
}
Value binaryMathOp(OpCall& c) { return mathBinary(c.op, c.at(0), c.at(1), c.loc); }
Value whereFn(OpCall& c) { return whereOp(c["condition"], c["x"], c["y"], c.loc); }
Value clipFn(OpCall& c) { return clipOp(c["x"], c["min"], c["max"], c.loc); }

// ---- shape and indexing ----

int64_t axisIndex(OpCall& c, int64_t axis, int ndim) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim) c.fail("axis " + std::to_string(axis) + " is out of bounds");
  return a;
}

Value reshapeOp(OpCall& c) { return makeTensorValue(reshapeView(c.tensor("x"), c.ints("shape"), c.loc)); }
// transpose(x, d0, d1) and permute(x, *dims): the permutation
// ir::shape_rules::permutationOf makes of the axes.
Value permutedOp(OpCall& c, const char* param, bool swap) {
  const Tensor& t = c.tensor("x");
  std::string error;
  auto perm = ir::shape_rules::permutationOf(t.ndim(), c.ints(param), swap, error);
  if (!perm) c.fail(error + " for " + typeString(t));
  return makeTensorValue(transpose(t, *perm, c.loc));
}
Value transposeOp(OpCall& c) { return permutedOp(c, "axes", true); }
Value permuteOp(OpCall& c) { return permutedOp(c, "dims", false); }

Value flattenOp(OpCall& c) {
  const Tensor& t = c.tensor("x");
  std::string error;
  auto shape = ir::shape_rules::flattenedShape({t.shape().begin(), t.shape().end()}, c.integer("start_dim"), c.integer("end_dim"), error);
  if (!shape) c.fail(error + " for " + typeString(t));
  return makeTensorValue(reshapeView(t, Shape(shape->begin(), shape->end()), c.loc));
}

Value squeezeOp(OpCall& c) {
  const Tensor& t = c.tensor("x");
  std::vector<int64_t> axes = axesOf(c);
  std::vector<bool> drop(t.ndim(), axes.empty());
  for (int64_t a : axes) {
    int64_t k = axisIndex(c, a, t.ndim());
    if (t.dim(static_cast<int>(k)) != 1) c.fail("axis " + std::to_string(a) + " does not have size 1");
    drop[k] = true;
  }
  Shape s;
  for (int d = 0; d < t.ndim(); ++d)
    if (!(drop[d] && t.dim(d) == 1)) s.push_back(t.dim(d));
  return makeTensorValue(reshape(t, s, c.loc));
}

Value unsqueezeOp(OpCall& c) {
  const Tensor& t = c.tensor("x");
  int64_t a = axisIndex(c, c.integer("axis"), t.ndim() + 1);
  Shape s = t.shape();
  s.insert(s.begin() + a, 1);
  return makeTensorValue(reshape(t, s, c.loc));
}

Value expandOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  Shape target = c.ints("shape");
  // expand: -1 keeps the existing size (PyTorch).
  size_t lead = target.size() >= static_cast<size_t>(x.ndim()) ? target.size() - x.ndim() : 0;
  for (size_t i = lead; i < target.size(); ++i)
    if (target[i] == -1) target[i] = x.dim(static_cast<int>(i - lead));
  return makeTensorValue(broadcastTo(x, target, c.loc));
}

Value astypeOp(OpCall& c) {
  std::optional<DType> dt = c.dtype("dtype");
  if (!dt) c.fail("dtype must be one of f32, f64, i32, i64, bool, not None");
  return makeTensorValue(astype(c.tensor("x"), *dt));
}
Value toDeviceOp(OpCall& c) {
  if (c["device"].is(Kind::DType)) c.fail("takes a device name, then a dtype; x.astype(dtype) converts the dtype");
  return makeTensorValue(rt::copyTo(c.tensor("x"), deviceNamed(c.interp, c.text("device"), c.loc), c.loc));
}
Value copyLikeOp(OpCall& c) { return makeTensorValue(rt::copyTo(c.tensor("x"), c.tensor("like").device(), c.loc)); }
Value itemOp(OpCall& c) { return rt::item(c.tensor("x"), c.loc); }
Value tolistOp(OpCall& c) { return toList(c.tensor("x")); }
// The same elements under a new identity, which no tape tracks.
Value stopGradientOp(OpCall& c) { return makeTensorValue(c.tensor("x")); }

std::vector<Tensor> tensorList(OpCall& c) {
  const Value& v = c["tensors"];
  if (!v.is(Kind::List) && !v.is(Kind::Tuple)) c.fail("expects a list or tuple of tensors");
  std::vector<Tensor> out;
  for (const Value& x : v.as<SeqObj>().items) {
    if (!x.is(Kind::Tensor)) c.fail(std::string("list element must be a Tensor, not ") + typeName(x));
    out.push_back(tensorOf(x));
  }
  return out;
}

Value tensorsValue(const std::vector<Tensor>& ts) {
  std::vector<Value> items;
  for (const Tensor& t : ts) items.push_back(makeTensorValue(t));
  return makeList(std::move(items));
}

Value concatOp(OpCall& c) { return makeTensorValue(concat(tensorList(c), c.integer("axis"), c.loc)); }
Value stackOp(OpCall& c) { return makeTensorValue(stack(tensorList(c), c.integer("axis"), c.loc)); }

// The length of x along `axis`, for split and chunk.
int64_t axisLength(OpCall& c, const Tensor& x, int64_t axis) {
  if (x.ndim() == 0) nn::fail(c.loc, std::string(c.name) + " of a 0-d tensor");
  return x.dim(static_cast<int>(normalizeAxis(axis, x.ndim(), c.loc, c.name)));
}

Value splitOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  int64_t axis = c.integer("axis");
  int64_t len = axisLength(c, x, axis);
  const Value& sizesArg = c["sizes"];
  std::vector<int64_t> sizes;
  if (sizesArg.isIntLike()) {
    if (sizesArg.asInt() <= 0) nn::fail(c.loc, "split: the chunk size must be positive");
    sizes = ir::shape_rules::evenSplit(len, sizesArg.asInt());
  } else {
    for (const Value& v : iterate(sizesArg, c.loc)) sizes.push_back(toIndex(v, c.loc));
  }
  return tensorsValue(splitSizes(x, sizes, axis, c.loc));
}

Value chunkOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  int64_t axis = c.integer("axis");
  int64_t len = axisLength(c, x, axis);
  int64_t n = c.integer("chunks");
  if (n <= 0) nn::fail(c.loc, "chunk: the number of chunks must be positive");
  return tensorsValue(splitSizes(x, ir::shape_rules::evenSplit(len, ir::shape_rules::chunkSize(len, n)), axis, c.loc));
}

// The choice a string parameter names (`parse` reads it), else a located
// ValueError listing the choices.
template <class E>
E choiceOf(OpCall& c, const char* param, std::optional<E> (*parse)(const std::string&), const char* choices) {
  const std::string& given = c.text(param);
  std::optional<E> e = parse(given);
  if (!e) c.fail("invalid " + std::string(param) + " '" + given + "' (" + choices + ")");
  return *e;
}

PadMode padModeOf(OpCall& c) { return choiceOf(c, "mode", padMode, "constant, reflect, replicate or circular"); }

Value padOp(OpCall& c) {
  PadMode mode = padModeOf(c);
  if (mode == PadMode::Constant) return makeTensorValue(pad(c.tensor("x"), c.ints("widths"), c.number("value"), c.loc));
  return makeTensorValue(padWithMode(c.tensor("x"), c.ints("widths"), mode, c.loc));
}
Value padGradOp(OpCall& c) {
  return makeTensorValue(padWithModeGrad(c.tensor("g"), c.tensor("x").shape(), c.ints("widths"), padModeOf(c), c.loc));
}

Value gatherOp(OpCall& c) {
  return makeTensorValue(gather(c.tensor("x"), c.integer("axis"), c.tensor("index"), c.loc));
}

Value scatterAddOp(OpCall& c) {
  return makeTensorValue(scatterAdd(c.tensor("x"), c.integer("axis"), c.tensor("index"), c.tensor("src"), c.loc));
}

Value scatterReduceOp(OpCall& c) {
  return makeTensorValue(scatterReduce(c.tensor("x"), c.integer("axis"), c.tensor("index"), c.tensor("src"),
                                       c.text("reduce"), c.flag("include_self"), c.loc));
}

// scatter's src: the tensor src, or a number (src or value=) as index's
// shape of it in x's dtype (cut as PyTorch cuts 1.7 into an integer x).
Value scatterOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  const Tensor& index = c.tensor("index");
  bool hasSrc = !c.isNone("src");
  if (hasSrc == !c.isNone("value")) c.fail(hasSrc ? "takes src or value as its argument, not both" : "missing the argument src (or value)");
  Value& given = c[hasSrc ? "src" : "value"];
  if (given.is(Kind::Tensor)) {
    if (!hasSrc) c.fail("value must be a number; a tensor goes in src");
    return makeTensorValue(scatter(x, c.integer("axis"), index, tensorOf(given), c.loc));
  }
  if (!given.isNumber()) c.fail(std::string(hasSrc ? "src" : "value") + " must be a tensor or a number, not " + typeName(given));
  Tensor one = fullLike(x.dtype(), Shape(static_cast<size_t>(index.ndim()), 1), c.number(hasSrc ? "src" : "value"),
                        x.device());
  return makeTensorValue(scatter(x, c.integer("axis"), index, broadcastTo(one, index.shape(), c.loc), c.loc));
}

Value oneHotOp(OpCall& c) { return makeTensorValue(oneHot(c.tensor("labels"), c.integer("n"), c.loc)); }

// ---- NN ops and losses ----

// ---- the ops gradient rules emit ----

Value sumToOp(OpCall& c) { return sumTo(c["x"], c["like"], c.loc); }
Value broadcastLikeOp(OpCall& c) { return makeTensorValue(broadcastLike(c.tensor("x"), c.tensor("like"), c.loc)); }
Value reshapeLikeOp(OpCall& c) { return makeTensorValue(reshapeLike(c.tensor("x"), c.tensor("like"), c.loc)); }
Value reduceGradOp(OpCall& c) {
  return makeTensorValue(
      reduceGrad(c.tensor("g"), c.tensor("x"), c.ints("axis"), c.flag("keepdims"), c.flag("mean"), c.loc));
}

Value indexGradOp(OpCall& c) { return makeTensorValue(indexGrad(c.tensor("g"), c.tensor("x"), c["index"], c.loc)); }

Value linearOp(OpCall& c) {
  return makeTensorValue(linear(c.tensor("x"), c.tensor("w"), c.optionalTensor("b"), c.loc));
}

Value softmaxOp(OpCall& c) {
  return makeTensorValue(softmax(c.tensor("x"), c.integer("axis"), c.op == Op::LogSoftmax, c.loc));
}

// An int or a pair of ints (height, width); `dflt` for None.
std::pair<int64_t, int64_t> pairOf(OpCall& c, std::string_view param, int64_t dflt) {
  if (c.isNone(param)) return {dflt, dflt};
  std::vector<int64_t> v = c.ints(param);
  if (c[param].isIntLike()) return {v[0], v[0]};
  if (v.size() != 2) c.fail(std::string(param) + " must be an int or a pair of ints");
  return {v[0], v[1]};
}

ConvParams convParams(OpCall& c) {
  ConvParams p;
  std::tie(p.strideH, p.strideW) = pairOf(c, "stride", 1);
  std::tie(p.padH, p.padW) = pairOf(c, "padding", 0);
  std::tie(p.dilH, p.dilW) = pairOf(c, "dilation", 1);
  p.groups = c.integer("groups");
  return p;
}

Value conv2dOp(OpCall& c) {
  return makeTensorValue(conv2d(c.tensor("x"), c.tensor("w"), c.optionalTensor("b"), convParams(c), c.loc));
}

Value conv2dGradOp(OpCall& c) {
  if (c.op == Op::Conv2dGradInput)
    return makeTensorValue(conv2dGradInput(c.tensor("g"), c.tensor("x"), c.tensor("w"), convParams(c), c.loc));
  return makeTensorValue(conv2dGradWeight(c.tensor("g"), c.tensor("x"), c.tensor("w"), convParams(c), c.loc));
}

// max_pool2d's, avg_pool2d's or pool2d_grad's attributes (the last has
// both kinds' and applies those of its `max`).
PoolParams poolParams(OpCall& c) {
  PoolParams p;
  std::tie(p.kH, p.kW) = pairOf(c, "kernel_size", 1);
  // The stride defaults to the kernel size.
  std::tie(p.strideH, p.strideW) = c.isNone("stride") ? std::pair(p.kH, p.kW) : pairOf(c, "stride", 0);
  std::tie(p.padH, p.padW) = pairOf(c, "padding", 0);
  p.ceilMode = c.flag("ceil_mode");
  bool isMax = c.op == Op::MaxPool2d || c.op == Op::MaxPool2dIndices || (c.op == Op::Pool2dGrad && c.flag("max"));
  if (isMax) {
    std::tie(p.dilH, p.dilW) = pairOf(c, "dilation", 1);
  } else {
    p.countPadding = c.flag("count_include_pad");
    if (!c.isNone("divisor_override")) {
      p.divisor = c.integer("divisor_override");
      if (p.divisor == 0) c.fail("divisor_override must be non-zero");
    }
  }
  return p;
}

Value poolOp(OpCall& c) { return makeTensorValue(pool2d(c.tensor("x"), poolParams(c), c.op == Op::MaxPool2d, c.loc)); }

Value poolIndicesOp(OpCall& c) { return makeTensorValue(maxPool2dIndices(c.tensor("x"), poolParams(c), c.loc)); }

Value poolGradOp(OpCall& c) {
  return makeTensorValue(pool2dGrad(c.tensor("g"), c.tensor("x"), poolParams(c), c.flag("max"), c.loc));
}

Value batchNormOp(OpCall& c) {
  return makeTensorValue(batchNorm(c.tensor("x"), c.tensor("mean"), c.tensor("var"), c.optionalTensor("gamma"),
                                   c.optionalTensor("beta"), c.number("eps"), c.loc));
}

Value dropoutOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  double p = c.number("p");
  if (!(p >= 0 && p <= 1)) nn::fail(c.loc, "dropout: p must be in [0, 1], got " + floatRepr(p));  // NaN too
  if (!c.flag("training") || p == 0) return c["x"];
  return makeTensorValue(dropout(x, p, c.interp.rng(), c.loc));
}

LossReduction reductionOf(OpCall& c) { return choiceOf(c, "reduction", lossReduction, "mean, sum or none"); }

Value crossEntropyOp(OpCall& c) {
  CrossEntropyOptions options;
  options.weight = c.optionalTensor("weight");
  options.ignoreIndex = c.integer("ignore_index");
  options.reduction = reductionOf(c);
  options.smoothing = c.number("label_smoothing");
  return makeTensorValue(crossEntropy(c.tensor("input"), c.tensor("target"), options, c.loc));
}
Value crossEntropyGradOp(OpCall& c) {
  return makeTensorValue(
      crossEntropyGrad(c.tensor("g"), c.tensor("logits"), c.tensor("labels"), c.integer("ignore_index"), c.loc));
}
Value mseLossOp(OpCall& c) {
  return makeTensorValue(mseLoss(c.tensor("input"), c.tensor("target"), reductionOf(c), c.loc));
}
Value bceOp(OpCall& c) {
  return makeTensorValue(
      binaryCrossEntropy(c.tensor("input"), c.tensor("target"), c.optionalTensor("weight"), reductionOf(c), c.loc));
}

// ---- PyTorch's creation, ordering and comparison helpers ----

Value fullLikeOp(OpCall& c) {
  const Tensor& t = c.tensor("x");
  const Value& v = c["value"];
  if (!v.isNumber()) c.fail(std::string("fill value must be a number, not ") + typeName(v));
  return makeTensorValue(fullLike(c.dtype("dtype").value_or(t.dtype()), t.shape(), v.asFloat(), t.device()));
}

Value randpermOp(OpCall& c) {
  DType dt = c.dtype("dtype").value_or(DType::I64);
  return makeTensorValue(randperm(dt, c.integer("n"), c.interp.rng(), creationDevice(c), c.loc));
}

Value scanOp(OpCall& c) {
  std::optional<int64_t> axis;
  if (!c.isNone("axis")) axis = c.integer("axis");
  ScanKind kind = c.op == Op::CumSum ? ScanKind::Sum : c.op == Op::CumProd ? ScanKind::Product : ScanKind::LogSumExp;
  return makeTensorValue(scan(c.tensor("x"), axis, c.flag("reverse"), kind, c.loc));
}

Value sortOp(OpCall& c) {
  auto [values, indices] = sort(c.tensor("x"), c.integer("axis"), c.flag("descending"), c.loc);
  if (c.op == Op::ArgSort) return makeTensorValue(std::move(indices));
  return makeNamedTuple({makeTensorValue(std::move(values)), makeTensorValue(std::move(indices))},
                        {"values", "indices"});
}

Value topkOp(OpCall& c) {
  auto [values, indices] = topk(c.tensor("x"), c.integer("k"), c.integer("axis"), c.flag("largest"), c.loc);
  return makeNamedTuple({makeTensorValue(std::move(values)), makeTensorValue(std::move(indices))},
                        {"values", "indices"});
}

Value triangleOp(OpCall& c) {
  return makeTensorValue(triangle(c.tensor("x"), c.integer("diagonal"), c.op == Op::Triu, c.loc));
}

Value inverseOp(OpCall& c) { return makeTensorValue(inverse(c.tensor("x"), c.loc)); }

Value determinantOp(OpCall& c) {
  DetPart part = c.op == Op::Det ? DetPart::Value : c.op == Op::DetSign ? DetPart::Sign : DetPart::LogAbs;
  return makeTensorValue(determinant(c.tensor("x"), part, c.loc));
}

Value cofactorOp(OpCall& c) {
  return makeTensorValue(cofactor(c.tensor("x"), c.op == Op::CofactorGrad ? &c.tensor("g") : nullptr, c.loc));
}

Value choleskyOp(OpCall& c) { return makeTensorValue(cholesky(c.tensor("x"), c.flag("upper"), c.loc)); }

Value svdOp(OpCall& c) {
  SvdPart part = c.op == Op::Svdvals ? SvdPart::Values : c.op == Op::SvdU ? SvdPart::U : SvdPart::Vh;
  return makeTensorValue(singular(c.tensor("x"), part, part != SvdPart::Values && c.flag("full_matrices"), c.loc));
}

Value qrOp(OpCall& c) { return makeTensorValue(qrFactor(c.tensor("x"), c.op == Op::QrR, c.flag("complete"), c.loc)); }

Value luOp(OpCall& c) {
  auto [lu, pivots] = luFactor(c.tensor("x"), c.flag("pivot"), c.op, c.loc);
  return makeTensorValue(c.op == Op::LuPivots ? std::move(pivots) : std::move(lu));
}

Value ldlOp(OpCall& c) {
  auto [ld, pivots] = ldlFactor(c.tensor("x"), c.op, c.loc);
  return makeTensorValue(c.op == Op::LdlPivots ? std::move(pivots) : std::move(ld));
}

Value ldlSolveOp(OpCall& c) {
  return makeTensorValue(ldlSolve(c.tensor("a"), c.tensor("pivots"), c.tensor("b"), c.loc));
}

Value luPermutationOp(OpCall& c) {
  return makeTensorValue(luPermutation(c.tensor("pivots"), c.integer("rows"), c.flag("inverse"), c.loc));
}

Value solveOp(OpCall& c) { return makeTensorValue(solve(c.tensor("a"), c.tensor("b"), c.loc)); }

Value solveTriangularOp(OpCall& c) {
  return makeTensorValue(
      solveTriangular(c.tensor("a"), c.tensor("b"), c.flag("upper"), c.flag("left"), c.flag("unitriangular"), c.loc));
}

Value eigenOp(OpCall& c) { return makeTensorValue(symmetricEigen(c.tensor("x"), c.op == Op::EighVectors, c.loc)); }

Value maskedFillOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  const Tensor& mask = c.tensor("mask");
  if (mask.dtype() != DType::Bool) c.fail("mask must be a bool tensor, not " + typeString(mask));
  if (std::optional<Shape> s = tryBroadcastShapes(x.shape(), mask.shape()); !s || *s != x.shape())
    nn::fail(c.loc, "masked_fill: the mask " + typeString(mask) + " does not broadcast to " + typeString(x));
  const Value& value = c["value"];
  if (!value.isNumber() && !(value.is(Kind::Tensor) && tensorOf(value).ndim() == 0))
    c.fail(std::string("value must be a number or a 0-d tensor, not ") + typeName(value));
  // x's dtype is kept, as PyTorch (a float into an int tensor truncates).
  return makeTensorValue(astype(tensorOf(whereOp(c["mask"], value, c["x"], c.loc)), x.dtype()));
}

Value outerOp(OpCall& c) {
  const Tensor& a = c.tensor("a");
  const Tensor& b = c.tensor("b");
  if (a.ndim() != 1 || b.ndim() != 1) c.fail("expects 1-d tensors, got " + typeString(a) + " and " + typeString(b));
  return tensorBinary(Op::Mul, makeTensorValue(reshape(a, {a.numel(), 1}, c.loc)),
                      makeTensorValue(reshape(b, {1, b.numel()}, c.loc)), c.loc);
}

// |a - b| <= atol + rtol * |b|, or a == b (equal infinities), or both NaN
// with equal_nan.
Value closeness(OpCall& c) {
  c.tensor("a"), c.tensor("b");
  const Value &a = c["a"], &b = c["b"];
  double rtol = c.number("rtol"), atol = c.number("atol");
  if (rtol < 0 || atol < 0) c.fail("rtol and atol must be non-negative");
  Value diff = mathUnary(Op::Abs, tensorBinary(Op::Sub, a, b, c.loc), c.loc);
  Value tol = tensorBinary(Op::Add, tensorBinary(Op::Mul, mathUnary(Op::Abs, b, c.loc), Value::real(rtol), c.loc),
                           Value::real(atol), c.loc);
  Value close = mathBinary(Op::LogicalOr, compareOp(Op::Le, diff, tol, c.loc), compareOp(Op::Eq, a, b, c.loc), c.loc);
  if (c.flag("equal_nan"))
    close = mathBinary(Op::LogicalOr, close,
                       mathBinary(Op::LogicalAnd, mathUnary(Op::IsNan, a, c.loc), mathUnary(Op::IsNan, b, c.loc), c.loc),
                       c.loc);
  return close;
}
Value allCloseOp(OpCall& c) {
  Tensor all = reduce(tensorOf(closeness(c)), Reduction::All, {}, false, c.loc, "allclose");
  return item(all, c.loc);
}

struct ImplTable {
  TensorOpFn fns[ir::kNumOps] = {};
  ImplTable() {
    auto set = [&](Op op, TensorOpFn fn) { fns[static_cast<size_t>(op)] = fn; };
    for (size_t i = 0; i < ir::kNumOps; ++i) {
      Op op = static_cast<Op>(i);
      if (!ir::isTensorOp(op)) continue;
      if (ir::hasTrait(op, ir::REDUCE)) set(op, reduceOp);
      else if (ir::hasTrait(op, ir::ELEM) && ir::opInfo(op).maxOperands == 1) set(op, unaryMathOp);
      else if (ir::hasTrait(op, ir::ELEM) && ir::opInfo(op).maxOperands == 2) set(op, binaryMathOp);
    }
    set(Op::Var, varianceOp), set(Op::Std, varianceOp), set(Op::LogSumExp, logsumexpOp);
    set(Op::Where, whereFn), set(Op::Clip, clipFn);
    set(Op::Tensor, tensorOp), set(Op::Zeros, zerosOp), set(Op::Ones, onesOp), set(Op::Full, fullOp);
    set(Op::ZerosLike, zerosLikeOp), set(Op::OnesLike, onesLikeOp), set(Op::Arange, arangeOp);
    set(Op::Linspace, linspaceOp), set(Op::Eye, eyeOp), set(Op::Rand, randomFill), set(Op::Randn, randomFill);
    set(Op::Randint, randintOp);
    set(Op::Reshape, reshapeOp), set(Op::Transpose, transposeOp), set(Op::Permute, permuteOp), set(Op::Flatten, flattenOp);
    set(Op::Squeeze, squeezeOp), set(Op::Unsqueeze, unsqueezeOp), set(Op::Expand, expandOp);
    set(Op::ToDevice, toDeviceOp), set(Op::CopyLike, copyLikeOp);
    set(Op::BroadcastTo, expandOp), set(Op::AsType, astypeOp), set(Op::Item, itemOp), set(Op::ToList, tolistOp),
        set(Op::StopGradient, stopGradientOp);
    set(Op::Concat, concatOp), set(Op::Stack, stackOp), set(Op::Split, splitOp), set(Op::Chunk, chunkOp);
    set(Op::Pad, padOp), set(Op::PadGrad, padGradOp), set(Op::Gather, gatherOp), set(Op::ScatterAdd, scatterAddOp),
    set(Op::ScatterReduce, scatterReduceOp),
        set(Op::Scatter, scatterOp), set(Op::OneHot, oneHotOp);
    set(Op::SumTo, sumToOp), set(Op::BroadcastLike, broadcastLikeOp), set(Op::ReshapeLike, reshapeLikeOp);
    set(Op::ReduceGrad, reduceGradOp), set(Op::IndexGrad, indexGradOp);
    set(Op::Conv2dGradInput, conv2dGradOp), set(Op::Conv2dGradWeight, conv2dGradOp), set(Op::Pool2dGrad, poolGradOp);
    set(Op::Linear, linearOp), set(Op::Softmax, softmaxOp), set(Op::LogSoftmax, softmaxOp);
    set(Op::Conv2d, conv2dOp), set(Op::MaxPool2d, poolOp), set(Op::AvgPool2d, poolOp),
        set(Op::MaxPool2dIndices, poolIndicesOp);
    set(Op::BatchNorm, batchNormOp), set(Op::LayerNorm, layerNormOp), set(Op::Dropout, dropoutOp);
    set(Op::LayerNormGrad, layerNormGradOp);
    set(Op::CrossEntropy, crossEntropyOp), set(Op::MseLoss, mseLossOp), set(Op::BinaryCrossEntropy, bceOp);
    set(Op::FullLike, fullLikeOp), set(Op::Randperm, randpermOp), set(Op::CumSum, scanOp), set(Op::CumProd, scanOp);
    set(Op::LogCumSumExp, scanOp), set(Op::CrossEntropyGrad, crossEntropyGradOp);
    set(Op::Sort, sortOp), set(Op::ArgSort, sortOp), set(Op::TopK, topkOp), set(Op::Tril, triangleOp);
    set(Op::Triu, triangleOp), set(Op::MaskedFill, maskedFillOp), set(Op::Outer, outerOp);
    set(Op::IsClose, closeness), set(Op::AllClose, allCloseOp);
    set(Op::Inverse, inverseOp), set(Op::Det, determinantOp), set(Op::DetSign, determinantOp),
        set(Op::LogAbsDet, determinantOp), set(Op::Cofactor, cofactorOp), set(Op::CofactorGrad, cofactorOp),
        set(Op::Cholesky, choleskyOp), set(Op::Eigvalsh, eigenOp),
        set(Op::EighVectors, eigenOp), set(Op::Svdvals, svdOp), set(Op::SvdU, svdOp), set(Op::SvdVh, svdOp);
    set(Op::QrQ, qrOp), set(Op::QrR, qrOp), set(Op::LuFactor, luOp), set(Op::LuPivots, luOp);
    set(Op::LdlFactor, ldlOp), set(Op::LdlPivots, ldlOp), set(Op::LdlSolve, ldlSolveOp);
    set(Op::LuPermutation, luPermutationOp), set(Op::SolveTriangular, solveTriangularOp);
    set(Op::Solve, solveOp);
    set(Op::Norm, normOp), set(Op::Repeat, repeatOp), set(Op::Diag, diagOp), set(Op::NonZero, nonzeroOp);
    set(Op::Flip, flipOp), set(Op::Roll, rollOp);
    set(Op::Embedding, embeddingOp), set(Op::Conv1d, conv1dOp), set(Op::Interpolate, interpolateOp);
    set(Op::InterpolateGrad, interpolateGradOp), set(Op::GridSample, gridSampleOp);
    set(Op::GridSampleGradInput, gridSampleGradOp), set(Op::GridSampleGradGrid, gridSampleGradOp);
    set(Op::CtcLoss, ctcLossOp), set(Op::CtcLossGrad, ctcLossGradOp);
  }
};

}  // namespace

TensorOpFn tensorOpImpl(Op op) {
  // Built on first use and only read afterwards.
  static const ImplTable table;
  return table.fns[static_cast<size_t>(op)];
}

}  // namespace nn::stdlib
