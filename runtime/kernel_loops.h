// The loop shapes shared by the CPU elementwise kernels: flat and
// vectorised over contiguous operands, a contiguous operand and a single
// value (a tensor op with a Python number), or row by row for operands
// broadcast along rows or columns; strided otherwise; split across the
// cores from kParallelThreshold elements up. Small loops never enter an
// OpenMP region (even a region with a false `if` clause costs a team setup).
// Operands already have the output's shape. Also the one element
// conversion (astype's) of every CPU kernel that converts, and the walk
// over the element types that registers a kernel template for each.
#pragma once

#include <limits>
#include <type_traits>

#include "runtime/kernels.h"
#include "support/row_layout.h"

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

// Integer +, -, * and negation wrap around in two's complement, as in
// PyTorch and NumPy (and the JIT's kernels), computed on the unsigned type
// because signed overflow is undefined behaviour in C++. Floats as usual.
template <class T>
inline T wrapAdd(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) + static_cast<std::make_unsigned_t<T>>(y));
  else return x + y;
}
template <class T>
inline T wrapSub(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) - static_cast<std::make_unsigned_t<T>>(y));
  else return x - y;
}
template <class T>
inline T wrapMul(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) * static_cast<std::make_unsigned_t<T>>(y));
  else return x * y;
}
template <class T>
inline T wrapNeg(T x) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(x));
  else return -x;
}

// f(line) for each of `lines` independent lines of work, on all cores
// when `parallel` (the caller weighs the whole tensor's size).
template <class F>
void forEachLine(int64_t lines, bool parallel, F&& f) {
  if (parallel && lines > 1) {
#pragma omp parallel for
    for (int64_t l = 0; l < lines; ++l) f(l);
  } else {
    for (int64_t l = 0; l < lines; ++l) f(l);
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

// The same for the floating types.
template <class F>
void forFloatDTypes(F&& add) {
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

// A tensor's row layout (support/row_layout.h).
inline RowLayout rowLayout(const Tensor& t) {
  return nn::rowLayout(t.shape().data(), t.strides().data(), static_cast<size_t>(t.ndim()));
}

// f over two operands in row layouts (rowLayout) into a contiguous out.
template <class T, class R, class F>
void rowLoop(const T* x, RowLayout lx, const T* y, RowLayout ly, R* o, int64_t rows, int64_t cols, F f) {
  auto row = [&](int64_t r) {
    const T* xr = x + r * lx.rowStride;
    const T* yr = y + r * ly.rowStride;
    R* orow = o + r * cols;
    if (lx.colStep && ly.colStep) {
#pragma omp simd
      for (int64_t j = 0; j < cols; ++j) orow[j] = f(xr[j], yr[j]);
    } else if (lx.colStep) {
      const T s = *yr;
#pragma omp simd
      for (int64_t j = 0; j < cols; ++j) orow[j] = f(xr[j], s);
    } else if (ly.colStep) {
      const T s = *xr;
#pragma omp simd
      for (int64_t j = 0; j < cols; ++j) orow[j] = f(s, yr[j]);
    } else {
      const R v = f(*xr, *yr);
      for (int64_t j = 0; j < cols; ++j) orow[j] = v;
    }
  };
  if (rows * cols >= kParallelThreshold && rows > 1) {
#pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r) row(r);
  } else {
    for (int64_t r = 0; r < rows; ++r) row(r);
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
  // Broadcasting along rows or columns (a bias, a per-row statistic).
  RowLayout la = rowLayout(a), lb = rowLayout(b);
  if (la.ok && lb.ok && out.ndim() > 0 && n > 0) {
    int64_t cols = out.shape().back();
    rowLoop<T, R>(x, la, y, lb, o, n / cols, cols, f);
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
