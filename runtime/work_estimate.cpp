// Work estimates of graph nodes (see work_estimate.h).
#include "runtime/work_estimate.h"

#include <algorithm>

#include "runtime/kernels.h"

namespace nn::rt {
namespace {

// Rough single-core costs on these machines (AVX2): a memory-bound
// elementwise or reduction loop per element, a multiply-add of oneDNN's
// matmul or convolution, and the bookkeeping of any node.
constexpr double kNanosPerElement = 1.0;
constexpr double kNanosPerMac = 0.05;
constexpr double kNanosPerNode = 100;
// MACs from which oneDNN spreads a matmul or convolution over the cores.
constexpr double kExpensiveSplitsAt = static_cast<double>(kParallelThreshold);

// Element count of a tensor type; an unknown size counts as large.
double elements(const ir::Type& t) {
  if (!t.isTensor()) return 0;
  if (!t.shape) return static_cast<double>(kParallelThreshold);
  double n = 1;
  for (const ir::Dim& d : *t.shape) n *= d.isKnown() ? static_cast<double>(d.size) : kParallelThreshold;
  return n;
}

// The last dimension of `t` (a matmul's inner dimension), large when unknown.
double innerDim(const ir::Type& t) {
  if (!t.isTensor() || !t.shape || t.shape->empty()) return kParallelThreshold;
  const ir::Dim& d = t.shape->back();
  return d.isKnown() ? static_cast<double>(d.size) : kParallelThreshold;
}

// Multiply-adds per output element of a convolution: Cin/groups * kH * kW,
// the weight's elements over its output channels.
double convMacsPerOutput(const ir::Node& n) {
  if (n.operands().size() < 2) return kParallelThreshold;
  const ir::Type& w = n.operand(1)->type();
  if (!w.isTensor() || !w.shape || w.shape->empty() || !w.shape->front().isKnown() || w.shape->front().size == 0)
    return kParallelThreshold;
  return elements(w) / static_cast<double>(w.shape->front().size);
}

}  // namespace

WorkEstimate estimateWork(const ir::Node& n, unsigned cores) {
  double out = 0, in = 0;
  for (size_t i = 0; i < n.numResults(); ++i) out = std::max(out, elements(n.result(i)->type()));
  for (const ir::Value* v : n.operands()) in = std::max(in, elements(v->type()));
  WorkEstimate w;
  if (out == 0 && in == 0) {  // no tensor: scalar or container bookkeeping
    w.nanos = kNanosPerNode;
    return w;
  }
  if (ir::hasTrait(n.op(), ir::EXPENSIVE)) {
    double macs = n.op() == ir::Op::Conv2d ? out * convMacsPerOutput(n)
                                           : out * (n.operands().empty() ? 1 : innerDim(n.operand(0)->type()));
    w.nanos = kNanosPerNode + macs * kNanosPerMac;
    w.splitsItself = cores > 1 && macs >= kExpensiveSplitsAt;
    return w;
  }
  // A view moves no data; everything else touches its largest operand or
  // result about once per element, and splits itself from the kernels'
  // threshold up (of its result; of its input for a reduction).
  double touched = ir::hasTrait(n.op(), ir::SHAPE) ? 0 : std::max(out, in);
  w.nanos = kNanosPerNode + touched * kNanosPerElement;
  double split = ir::hasTrait(n.op(), ir::REDUCE) ? in : out;
  w.splitsItself = cores > 1 && split >= static_cast<double>(kParallelThreshold);
  return w;
}

}  // namespace nn::rt
