// What the CUDA plugin's kernel files share (cuda_kernels.cu,
// cuda_index_kernels.cu): the block size, grid-stride loops and the
// dispatch of a runtime dtype code to its C++ type; cuda_device.h gives
// them the launch check and stream-ordered scratch memory, kernel_codes.h
// the offsets of operands read through their strides.
#pragma once

#include <cstdint>

#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_kernels.h"

namespace nn::rt::cuda {

// Threads per block of every kernel (the block reductions' shared arrays
// have this many entries).
constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n elements (at least 1, at most 4096).
inline int blocksFor(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

// Each thread takes elements i, i + (all threads), ...
#define GRID_STRIDE(i, n) \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); i += int64_t(blockDim.x) * gridDim.x)

// The value at device address p, once the work queued on s before it is
// done (a kernel's fault flag, a bad label's row).
template <class T>
T readBack(const T* p, cudaStream_t s) {
  T value{};
  check(cudaMemcpyAsync(&value, p, sizeof value, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  return value;
}

// Calls f with a value of the C++ type of e.
template <class F>
void withElem(Elem e, F&& f) {
  switch (e) {
    case Elem::Bool: f(bool()); break;
    case Elem::I32: f(int32_t()); break;
    case Elem::I64: f(int64_t()); break;
    case Elem::F32: f(float()); break;
    case Elem::F64: f(double()); break;
  }
}

}  // namespace nn::rt::cuda
