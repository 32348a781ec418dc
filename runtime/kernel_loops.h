// The loop shapes shared by the CPU elementwise kernels: flat and
// vectorised over contiguous operands or a contiguous operand and a single
// value (a tensor op with a Python number), strided otherwise; split across the
// cores from kParallelThreshold elements up. Small loops never enter an
// OpenMP region (even a region with a false `if` clause costs a team setup).
// Operands already have the output's shape. Also the one element
// conversion (astype's) of every CPU kernel that converts, and the walk
// over the element types that registers a kernel template for each.
#pragma once

#include <limits>
#include <type_traits>

#include "runtime/kernels.h"

namespace nn::rt {

// One element: bool results test for non-zero; float to integer truncates,
// with NaN as 0 and out-of-range values saturated (a plain cast would be
// undefined behaviour there).
template <class S, class D>
inline D convertValue(S v) {
  if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    if (!(v == v)) return D(0);
    if (v >= static_cast<S>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    if (v <= static_cast<S>(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
    return static_cast<D>(v);
  } else {
    return static_cast<D>(v);
  }
}

// Calls add(T{}, dtype) for every element type T and its DType.
template <class F>
void forEachDType(F&& add) {
  add(bool{}, DType::Bool);
  add(int32_t{}, DType::I32);
  add(int64_t{}, DType::I64);
  add(float{}, DType::F32);
  add(double{}, DType::F64);
}

// f(x[i], *y) (or f(*x, y[i]) when the single value is the first
// operand) over n contiguous elements.
template <class T, class R, class F>
void scalarOperandLoop(const T* x, const T* y, R* o, int64_t n, bool secondIsSingle, F f) {
  bool parallel = n >= kParallelThreshold;
  if (secondIsSingle) {
    const T s = *y;
    if (parallel) {
#pragma omp parallel for simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], s);
    } else {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], s);
    }
  } else {
    const T s = *x;
    if (parallel) {
#pragma omp parallel for simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(s, y[i]);
    } else {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(s, y[i]);
    }
  }
}

template <class T, class R, class F>
void binaryLoop(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  R* o = out.data<R>();
  int64_t n = out.numel();
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  bool parallel = n >= kParallelThreshold;
  if (a.isContiguous() && b.isContiguous()) {
    if (parallel) {
#pragma omp parallel for simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    } else {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
    }
    return;
  }
  if ((a.isContiguous() && b.isSingleValue()) || (a.isSingleValue() && b.isContiguous())) {
    scalarOperandLoop<T, R>(x, y, o, n, b.isSingleValue(), f);
    return;
  }
  if (parallel) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[a.flatOffset(i)], y[b.flatOffset(i)]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[a.flatOffset(i)], y[b.flatOffset(i)]);
  }
}

template <class T, class R, class F>
void unaryLoop(const Tensor& a, Tensor& out, F f) {
  R* o = out.data<R>();
  int64_t n = out.numel();
  const T* x = a.data<T>();
  bool parallel = n >= kParallelThreshold;
  if (a.isContiguous()) {
    if (parallel) {
#pragma omp parallel for simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
    } else {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
    }
    return;
  }
  if (parallel) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[a.flatOffset(i)]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[a.flatOffset(i)]);
  }
}

}  // namespace nn::rt
