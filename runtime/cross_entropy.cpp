// cross_entropy's front end, PyTorch's F.cross_entropy: the arguments
// checked with located errors; logits [N, C] against class indices with no
// weight, the mean and no label smoothing run the one-pass kernel (rows
// labelled ignore_index left out); every other case (a class dim among
// more, class probabilities, a weight, the sum or no reduction, label
// smoothing) is computed from log_softmax by the tensor functions, so on
// any device, as PyTorch computes it. Its gradient's front end runs the
// gradient kernel of the common case (the rule writes the others in ops).
#include <cmath>
#include <string>

#include "runtime/dispatch.h"
#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"
#include "support/float_repr.h"

namespace nn::rt {

namespace {

Tensor binary(ir::Op op, const Tensor& a, const Value& b, SourceLoc loc) {
  return tensorOf(tensorBinary(op, makeTensorValue(a), b, loc));
}
Tensor binary(ir::Op op, const Tensor& a, const Tensor& b, SourceLoc loc) {
  return binary(op, a, makeTensorValue(b), loc);
}
Tensor total(const Tensor& t, std::vector<int64_t> axes, SourceLoc loc) {
  return reduce(t, Reduction::Sum, std::move(axes), false, loc, "cross_entropy");
}

// The class indices' losses: -((1 - eps) w[y] lsm[y] + eps / C sum(w lsm))
// per position, 0 where y is ignore_index, reduced (the mean over the
// counted positions' w[y], as PyTorch's).
Tensor indexTargetsLoss(const Tensor& lsm, const Tensor& target, const CrossEntropyOptions& o, int64_t classDim,
                        SourceLoc loc) {
  int64_t classes = lsm.dim(static_cast<int>(classDim));
  Tensor labels = astype(target, DType::I64).contiguous();
  Tensor onHost = readableOnHost(labels, loc);
  const int64_t* l = onHost.data<int64_t>();
  for (int64_t i = 0; i < onHost.numel(); ++i)
    if (l[i] != o.ignoreIndex && (l[i] < 0 || l[i] >= classes))
      fail(loc,
           "cross_entropy: label " + std::to_string(l[i]) + " is out of range for " + std::to_string(classes) +
               " classes",
           ErrorClass::IndexError);
  Tensor valid = binary(ir::Op::Ne, labels, Value::integer(o.ignoreIndex), loc);
  Tensor safe = tensorOf(whereOp(makeTensorValue(valid), makeTensorValue(labels), Value::integer(0), loc));
  Tensor counted = astype(valid, lsm.dtype());
  Shape along = labels.shape();
  along.insert(along.begin() + classDim, 1);
  Tensor picked = reshape(gather(lsm, classDim, reshape(safe, along, loc), loc), labels.shape(), loc);
  Tensor weights = counted;  // w[y], 0 where ignored
  if (o.weight) {
    Tensor w = astype(*o.weight, lsm.dtype());
    weights = binary(ir::Op::Mul, reshape(gather(w, 0, reshape(safe, {safe.numel()}, loc), loc), labels.shape(), loc),
                     counted, loc);
  }
  Tensor nll = binary(ir::Op::Mul, binary(ir::Op::Mul, picked, weights, loc), Value::real(-1.0), loc);
  Tensor smooth;
  if (o.smoothing > 0) {
    Tensor weighted = lsm;
    if (o.weight) {
      Shape shape(static_cast<size_t>(lsm.ndim()), 1);
      shape[static_cast<size_t>(classDim)] = classes;
      weighted = binary(ir::Op::Mul, lsm, reshape(astype(*o.weight, lsm.dtype()), shape, loc), loc);
    }
    smooth = binary(ir::Op::Mul, total(weighted, {classDim}, loc), counted, loc);
    smooth = binary(ir::Op::Mul, smooth, Value::real(-1.0), loc);
  }
  auto combined = [&](const Tensor& nllPart, const Tensor& smoothPart) {
    if (o.smoothing == 0) return nllPart;
    return binary(ir::Op::Add, binary(ir::Op::Mul, nllPart, Value::real(1.0 - o.smoothing), loc),
                  binary(ir::Op::Mul, smoothPart, Value::real(o.smoothing / static_cast<double>(classes)), loc), loc);
  };
  if (o.reduction == LossReduction::None) return combined(nll, smooth);
  Tensor nllSum = total(nll, {}, loc), smoothSum = o.smoothing > 0 ? total(smooth, {}, loc) : Tensor();
  if (o.reduction == LossReduction::Sum) return combined(nllSum, smoothSum);
  Tensor weightSum = total(weights, {}, loc);
  return combined(binary(ir::Op::Div, nllSum, weightSum, loc),
                  o.smoothing > 0 ? binary(ir::Op::Div, smoothSum, weightSum, loc) : Tensor());
}

// Class probabilities t: -sum over the classes of w lsm (t (1 - eps) +
// eps / C) per position, reduced (the mean over the positions).
Tensor probabilityTargetsLoss(const Tensor& lsm, const Tensor& target, const CrossEntropyOptions& o, int64_t classDim,
                              SourceLoc loc) {
  int64_t classes = lsm.dim(static_cast<int>(classDim));
  Tensor t = astype(target, lsm.dtype());
  if (o.smoothing > 0)
    t = binary(ir::Op::Add, binary(ir::Op::Mul, t, Value::real(1.0 - o.smoothing), loc),
               Value::real(o.smoothing / static_cast<double>(classes)), loc);
  Tensor product = binary(ir::Op::Mul, lsm, t, loc);
  if (o.weight) {
    Shape shape(static_cast<size_t>(lsm.ndim()), 1);
    shape[static_cast<size_t>(classDim)] = classes;
    product = binary(ir::Op::Mul, product, reshape(astype(*o.weight, lsm.dtype()), shape, loc), loc);
  }
  product = binary(ir::Op::Mul, product, Value::real(-1.0), loc);
  if (o.reduction == LossReduction::None) return total(product, {classDim}, loc);
  Tensor sum = total(product, {}, loc);
  if (o.reduction == LossReduction::Sum) return sum;
  double positions = classes ? static_cast<double>(lsm.numel() / classes) : 0.0;
  return binary(ir::Op::Div, sum, Value::real(positions), loc);
}

}  // namespace

std::optional<LossReduction> lossReduction(const std::string& name) {
  if (name == "mean") return LossReduction::Mean;
  if (name == "sum") return LossReduction::Sum;
  if (name == "none") return LossReduction::None;
  return std::nullopt;
}

Tensor crossEntropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& o, SourceLoc loc) {
  if (input.ndim() < 1) fail(loc, "cross_entropy: input must have a class dim, got " + typeString(input));
  int64_t classDim = input.ndim() >= 2 ? 1 : 0;
  int64_t classes = input.dim(static_cast<int>(classDim));
  bool indices = isIntegral(target.dtype());
  if (target.dtype() == DType::Bool)
    fail(loc,
         "cross_entropy: target must be class indices (an integer tensor) or class probabilities (floating), "
         "not " +
             typeString(target),
         ErrorClass::TypeError);
  Shape expected = input.shape();
  if (indices) expected.erase(expected.begin() + classDim);
  if (target.shape() != expected)
    fail(loc, std::string("cross_entropy: ") + (indices ? "class indices" : "class probabilities") + " of " +
                  typeString(input) + " must have the shape " + shapeString(expected) + ", got " + typeString(target));
  if (o.weight && (o.weight->ndim() != 1 || o.weight->dim(0) != classes || !isFloating(o.weight->dtype())))
    fail(loc,
         "cross_entropy: weight must be a floating tensor [" + std::to_string(classes) + "], got " +
             typeString(*o.weight),
         ErrorClass::ValueError);
  if (!(o.smoothing >= 0.0 && o.smoothing <= 1.0))
    fail(loc, "cross_entropy: label_smoothing must be between 0.0 and 1.0, got " + floatRepr(o.smoothing));
  Device& device = commonDevice(input, target, "cross_entropy", loc);
  if (o.weight) commonDevice(input, *o.weight, "cross_entropy", loc);
  Tensor lsm = softmax(input, classDim, true, loc);
  if (indices && input.ndim() == 2 && !o.weight && o.reduction == LossReduction::Mean && o.smoothing == 0.0) {
    Tensor out = Tensor::empty(lsm.dtype(), {}, device);
    int64_t bad = 0;
    if (!launch<ir::Op::CrossEntropy>(device, lsm.dtype(), loc, lsm, astype(target, DType::I64).contiguous(),
                                      o.ignoreIndex, out, bad))
      fail(loc,
           "cross_entropy: label " + std::to_string(bad) + " is out of range for " + std::to_string(classes) +
               " classes",
           ErrorClass::IndexError);
    return out;
  }
  return indices ? indexTargetsLoss(lsm, target, o, classDim, loc)
                 : probabilityTargetsLoss(lsm, target, o, classDim, loc);
}

Tensor crossEntropyGrad(const Tensor& g, const Tensor& logits, const Tensor& labels, int64_t ignoreIndex,
                        SourceLoc loc) {
  if (logits.ndim() != 2) fail(loc, "cross_entropy_grad: logits must be [N, C], got " + typeString(logits));
  if (labels.ndim() != 1 || labels.dim(0) != logits.dim(0) || !isIntegral(labels.dtype()))
    fail(loc, "cross_entropy_grad: labels must be an integer tensor [N] matching " + typeString(logits) + ", got " +
                  typeString(labels));
  if (g.ndim() != 0) fail(loc, "cross_entropy_grad: the gradient must be 0-d, got " + typeString(g));
  Device& device = commonDevice(logits, labels, "cross_entropy_grad", loc);
  Tensor p = softmax(logits, 1, false, loc);
  if (p.numel() > 0)
    launch<ir::Op::CrossEntropyGrad>(device, p.dtype(), loc, contiguousOnItsDevice(astype(g, p.dtype()), loc),
                                     astype(labels, DType::I64).contiguous(), ignoreIndex, p);
  return p;
}

}  // namespace nn::rt
