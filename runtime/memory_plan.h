// The memory plan of a compiled function, as graph mode's --stats reports
// it: the peak bytes of tensors alive at once when each value is freed
// after its last use and an elementwise result takes the buffer of a dying
// operand of the same type (what the executors do), against the naive plan
// that keeps every tensor the function makes until it returns. Tensors of
// unknown shape are not counted; a loop body counts once. It is an
// estimate for --stats: allocation follows the executors' own frees and
// buffer reuse (which this models), not this plan.
#pragma once

#include <cstddef>

#include "ir/ir.h"

namespace nn::rt {

struct MemoryEstimate {
  size_t planned = 0;
  size_t naive = 0;
};

MemoryEstimate estimateMemory(const ir::Function& fn);

}  // namespace nn::rt
