// One step of scatter_reduce's product, maximum or minimum into an output
// element, shared by the CPU's kernel (kernels_cpu_copy.cpp) and the CUDA
// plugin's, so that both devices reduce alike. The values are the
// accumulation dtype's (double for floats, int64 for integers and bools,
// as scatter_add's): a product of integers wraps around as their
// arithmetic does elsewhere, and a NaN, once met, stays (PyTorch's amax
// and amin propagate it).
#pragma once

#include <cstdint>
#include <type_traits>

#include "runtime/host_device.h"

namespace nn::rt {

enum class ScatterReduction : int8_t { Prod, Max, Min };

template <class T>
NN_HOST_DEVICE T scatterStep(ScatterReduction r, T acc, T v) {
  if (r == ScatterReduction::Prod) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(U(acc) * U(v));
    } else {
      return acc * v;
    }
  }
  if (acc != acc) return acc;  // NaN (never for integers)
  if (v != v) return v;
  if (r == ScatterReduction::Max) return v > acc ? v : acc;
  return v < acc ? v : acc;
}

}  // namespace nn::rt
