// What a graph node will cost to run, estimated from the types inference
// gave it (element counts, matmul and convolution sizes), so the executor
// can decide per block whether handing nodes to other threads can pay: a
// node's kernel either splits itself across the cores (large elementwise
// loops, reductions, oneDNN's matmul and convolution — the same thresholds
// the kernels use) or runs on one core for an estimated time. Sizes the
// types do not know count as large, as the kernel would then most likely
// split itself.
#pragma once

#include "ir/ir.h"

namespace nn::rt {

struct WorkEstimate {
  double nanos = 0;           // on one core
  bool splitsItself = false;  // its kernel uses every core by itself
};

WorkEstimate estimateWork(const ir::Node& n, unsigned cores);

}  // namespace nn::rt
