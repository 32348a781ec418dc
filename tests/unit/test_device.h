// The CPU device the runtime unit tests make tensors on. In the product a
// device belongs to an interpreter state (runtime/context.h); a test binary
// that calls kernels directly has no state, so it keeps one of its own.
#pragma once

#include "runtime/device.h"

namespace nn::rt {

inline CpuDevice& testDevice() {
  static CpuDevice cpu;
  return cpu;
}

}  // namespace nn::rt
