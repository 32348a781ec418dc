// The implementations of ctc_loss and of its gradient: log_probs checked
// and viewed as [T, N, C]; the targets and the lengths read on the host
// into the kernel's CtcLabels, each checked (with PyTorch's rules); one
// kernel of log_probs's device; and the reduction, on the host in double
// (N values).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime/dispatch.h"
#include "runtime/tensor_ops.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;
using ir::Op;

namespace {

struct CtcCall {
  Tensor logProbs;  // [T, N, C], contiguous
  CtcLabels labels;
  bool batched;
};

// An integer tensor's values, on the host.
std::vector<int64_t> hostInts(OpCall& c, const char* param) {
  const Tensor& t = c.tensor(param);
  if (!isIntegral(t.dtype())) c.fail(std::string(param) + " must be an integer tensor, not " + typeString(t));
  Tensor h = readableOnHost(contiguousOnItsDevice(astype(t, DType::I64), c.loc), c.loc);
  const int64_t* d = h.data<int64_t>();
  return {d, d + h.numel()};
}

// "param[n] = value", for a message (appended piece by piece: GCC 12
// warns falsely on "[" + std::to_string(n) at -O2).
std::string entry(const char* param, int64_t n, int64_t value) {
  std::string s = param;
  s += '[';
  s += std::to_string(n);
  s += "] = ";
  s += std::to_string(value);
  return s;
}

CtcCall ctcCallOf(OpCall& c) {
  const Tensor& lp = c.tensor("log_probs");
  if (lp.ndim() != 2 && lp.ndim() != 3) c.fail("log_probs must be [T, N, C] or [T, C], got " + typeString(lp));
  if (!isFloating(lp.dtype())) c.fail("log_probs must be a floating tensor, not " + typeString(lp));
  CtcCall call;
  call.batched = lp.ndim() == 3;
  int64_t steps = lp.dim(0), batch = call.batched ? lp.dim(1) : 1, classes = lp.dim(lp.ndim() - 1);
  call.logProbs = contiguousOnItsDevice(call.batched ? lp : reshape(lp, {steps, 1, classes}, c.loc), c.loc);
  CtcLabels& l = call.labels;
  l.blank = c.integer("blank");
  if (l.blank < 0 || l.blank >= classes)
    c.fail("blank " + std::to_string(l.blank) + " is not a class of log_probs (0 .. " + std::to_string(classes - 1) +
           ")");
  l.zeroInfinity = c.flag("zero_infinity");
  l.inputLengths = hostInts(c, "input_lengths");
  l.targetLengths = hostInts(c, "target_lengths");
  auto onePerElement = [&](const char* param, const std::vector<int64_t>& lengths) {
    if (lengths.size() != static_cast<size_t>(batch))
      c.fail(std::string(param) + " must hold one length per batch element (" + std::to_string(batch) + "), not " +
             std::to_string(lengths.size()));
  };
  onePerElement("input_lengths", l.inputLengths);
  onePerElement("target_lengths", l.targetLengths);
  const Tensor& targets = c.tensor("targets");
  l.labels = hostInts(c, "targets");
  bool padded = call.batched && targets.ndim() == 2;
  if (!padded && targets.ndim() != 1)
    c.fail("targets must be [N, S] (padded) or 1-d (concatenated), got " + typeString(targets));
  if (padded && targets.dim(0) != batch)
    c.fail("targets " + typeString(targets) + " must have a row per batch element (" + std::to_string(batch) + ")");
  int64_t width = padded ? targets.dim(1) : 0, next = 0;
  auto available = static_cast<int64_t>(l.labels.size());
  for (int64_t n = 0; n < batch; ++n) {
    int64_t inputLength = l.inputLengths[static_cast<size_t>(n)], length = l.targetLengths[static_cast<size_t>(n)];
    if (inputLength < 0 || inputLength > steps)
      c.fail(entry("input_lengths", n, inputLength) + " is outside 0 .. " + std::to_string(steps) +
             " (the time steps of log_probs)");
    int64_t start = padded ? n * width : next;
    if (length < 0 || (padded ? length > width : start + length > available))
      c.fail(entry("target_lengths", n, length) + " is outside 0 .. " +
             std::to_string(padded ? width : available - start) + " (the labels the targets hold for it)");
    for (int64_t k = start; k < start + length; ++k) {
      int64_t label = l.labels[static_cast<size_t>(k)];
      if (label < 0 || label >= classes)
        c.fail("the targets hold the label " + std::to_string(label) + ", not a class of log_probs (0 .. " +
               std::to_string(classes - 1) + ")");
    }
    l.starts.push_back(start);
    next = start + length;
  }
  return call;
}

// Each batch element's weight in the reduced loss: 1 for 'sum' and
// 'none'; 1 / (N * max(target length, 1)) for 'mean'.
std::vector<double> reductionWeights(OpCall& c, const CtcLabels& l) {
  const std::string& reduction = c.text("reduction");
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    c.fail("invalid reduction '" + reduction + "' (mean, sum or none)");
  std::vector<double> weights(l.targetLengths.size(), 1.0);
  if (reduction == "mean")
    for (size_t n = 0; n < weights.size(); ++n) {
      auto length = static_cast<double>(std::max<int64_t>(l.targetLengths[n], 1));
      weights[n] = 1.0 / (static_cast<double>(weights.size()) * length);
    }
  return weights;
}

}  // namespace

Value ctcLossOp(OpCall& c) {
  CtcCall call = ctcCallOf(c);
  std::vector<double> weights = reductionWeights(c, call.labels);
  const Tensor& lp = call.logProbs;
  int64_t batch = lp.dim(1);
  Tensor nll = Tensor::empty(DType::F64, {batch}, lp.device());
  if (batch > 0) launch<Op::CtcLoss>(lp.device(), lp.dtype(), c.loc, lp, call.labels, nll, nullptr);
  const std::string& reduction = c.text("reduction");
  if (reduction == "none") {
    Tensor out = astype(nll, lp.dtype());
    return makeTensorValue(call.batched ? out : reshape(out, {}, c.loc));
  }
  // The mean of no losses is NaN, as PyTorch's.
  double total = reduction == "mean" && batch == 0 ? std::numeric_limits<double>::quiet_NaN() : 0.0;
  Tensor host = readableOnHost(nll, c.loc);
  for (int64_t n = 0; n < batch; ++n) total += host.data<double>()[n] * weights[static_cast<size_t>(n)];
  return makeTensorValue(fullLike(lp.dtype(), {}, total, lp.device()));
}

// g is the adjoint of the reduced loss (0-d) or of each element's ('none').
Value ctcLossGradOp(OpCall& c) {
  CtcCall call = ctcCallOf(c);
  std::vector<double> weights = reductionWeights(c, call.labels);
  const Tensor& lp = call.logProbs;
  const Tensor& g = c.tensor("g");
  bool each = c.text("reduction") == "none" && call.batched;
  auto batch = static_cast<size_t>(lp.dim(1));
  if (!isFloating(g.dtype()) || static_cast<size_t>(g.numel()) != (each ? batch : 1))
    c.fail("the gradient " + typeString(g) + " is not of ctc_loss's result type");
  Tensor adjoint = readableOnHost(contiguousOnItsDevice(astype(g, DType::F64), c.loc), c.loc);
  for (size_t n = 0; n < batch; ++n) weights[n] *= adjoint.data<double>()[each ? n : 0];
  call.labels.weights = std::move(weights);
  Tensor grad = Tensor::zeros(lp.dtype(), lp.shape(), lp.device());
  if (grad.numel() > 0) {
    Tensor nll = Tensor::empty(DType::F64, {lp.dim(1)}, lp.device());
    launch<Op::CtcLoss>(lp.device(), lp.dtype(), c.loc, lp, call.labels, nll, &grad);
  }
  return makeTensorValue(call.batched ? grad : reshape(grad, c.tensor("log_probs").shape(), c.loc));
}

}  // namespace nn::stdlib
