// The loop shapes shared by the CPU elementwise kernels: flat (and
// vectorised, parallel past kParallelThreshold) over contiguous operands,
// strided otherwise. Operands already have the output's shape.
#pragma once

#include "runtime/kernels.h"

namespace nn::rt {

template <class T, class R, class F>
void binaryLoop(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  R* o = out.data<R>();
  int64_t n = out.numel();
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  if (a.isContiguous() && b.isContiguous()) {
#pragma omp parallel for simd if (n >= kParallelThreshold)
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    return;
  }
#pragma omp parallel for if (n >= kParallelThreshold)
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[a.flatOffset(i)], y[b.flatOffset(i)]);
}

template <class T, class R, class F>
void unaryLoop(const Tensor& a, Tensor& out, F f) {
  R* o = out.data<R>();
  int64_t n = out.numel();
  const T* x = a.data<T>();
  if (a.isContiguous()) {
#pragma omp parallel for simd if (n >= kParallelThreshold)
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
    return;
  }
#pragma omp parallel for if (n >= kParallelThreshold)
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[a.flatOffset(i)]);
}

}  // namespace nn::rt
