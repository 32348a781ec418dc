// The loop shapes shared by the CPU elementwise kernels: flat and
// vectorised over contiguous operands, a contiguous operand and a single
// value (a tensor op with a Python number), or row by row for operands
// broadcast along rows or columns; strided otherwise (row by row through
// the operands' strides, or in tiles for a transposed operand); split
// across the cores from kParallelThreshold elements up. Small loops never
// enter an OpenMP region (even a region with a false `if` clause costs a
// team setup). Operands already have the output's shape. Also the one
// element conversion (astype's) of every CPU kernel that converts, the
// walk over the element types that registers a kernel template for each,
// and the sum of chunk sums in sum_order.h's order.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/kernels.h"
#include "runtime/sum_order.h"
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

// How a loop reads elements of type T: a bool as its byte (0 or 1), so the
// loops that read bools vectorise (GCC's vectoriser does not load bool: a
// conversion or sum of bools went one element at a time); every other
// type as itself.
template <class T>
using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
template <class T>
const Stored<T>* storedData(const Tensor& t) {
  return reinterpret_cast<const Stored<T>*>(t.data<T>());
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

// f(begin, end) over spans of a flat run of n elements whose elements are
// independent, on all cores from kParallelThreshold elements up (so a
// fresh output's pages are also first touched by every core).
template <class F>
void forEachSpan(int64_t n, F&& f) {
  constexpr int64_t kSpan = 1 << 14;
  forEachLine((n + kSpan - 1) / kSpan, n >= kParallelThreshold,
              [&](int64_t s) { f(s * kSpan, std::min(n, (s + 1) * kSpan)); });
}

// The rows (runs along the last axis) [first, last) of a tensor of
// `shape`, read through K operands' strides: row(r, offsets) for each,
// offsets[k] being the element offset of row r's first element in operand
// k, kept as an odometer (divisions once per call, none per element).
template <size_t K, class F>
void forStridedRows(const Shape& shape, const std::array<const Shape*, K>& strides, int64_t first, int64_t last,
                    F&& row) {
  int outer = static_cast<int>(shape.size()) - 1;
  std::vector<int64_t> index(static_cast<size_t>(std::max(outer, 0)), 0);
  std::array<int64_t, K> offsets{};
  for (int64_t rem = first, d = outer - 1; d >= 0; --d) {
    index[d] = rem % shape[d];
    rem /= shape[d];
    for (size_t k = 0; k < K; ++k) offsets[k] += index[d] * (*strides[k])[d];
  }
  for (int64_t r = first; r < last; ++r) {
    row(r, offsets);
    for (int d = outer - 1; d >= 0; --d) {
      for (size_t k = 0; k < K; ++k) offsets[k] += (*strides[k])[d];
      if (++index[d] < shape[d]) break;
      for (size_t k = 0; k < K; ++k) offsets[k] -= (*strides[k])[d] * shape[d];
      index[d] = 0;
    }
  }
}

// forStridedRows over all rows of `shape` (0-d: one row of one element),
// each thread a range of them when `parallel`.
template <size_t K, class F>
void forEachStridedRow(const Shape& shape, const std::array<const Shape*, K>& strides, bool parallel, F&& row) {
  int64_t cols = shape.empty() ? 1 : shape.back(), count = 1;
  for (int64_t d : shape) count *= d;
  if (count == 0) return;
  int64_t rows = count / cols;
  if (parallel && rows > 1) {
#pragma omp parallel
    {
      int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      forStridedRows<K>(shape, strides, rows * t / nt, rows * (t + 1) / nt, row);
    }
  } else {
    forStridedRows<K>(shape, strides, 0, rows, row);
  }
}

// Whether t runs along its second-last axis instead of its last (a
// transpose of the last two axes): walked row by row, each element read
// would be in a fresh cache line, and strides of a power of two evict each
// other; forEachTile walks such tensors.
inline bool runsAlongRows(const Tensor& t) {
  int nd = t.ndim();
  return nd >= 2 && t.strides()[nd - 2] == 1 && t.strides()[nd - 1] != 1 && t.shape()[nd - 2] >= 8 &&
         t.shape()[nd - 1] >= 8;
}

// element(i, offsets) for every element of `shape` (at least 2-d), i its
// row-major index and offsets[k] its offset in operand k, in square tiles
// of the last two axes; tasks are a band of tile rows of one matrix, on
// all cores when `parallel`.
template <size_t K, class F>
void forEachTile(const Shape& shape, const std::array<const Shape*, K>& strides, bool parallel, F&& element) {
  constexpr int64_t kTile = 32;
  int nd = static_cast<int>(shape.size());
  int64_t rows = shape[nd - 2], cols = shape[nd - 1], count = 1;
  for (int64_t d : shape) count *= d;
  if (count == 0) return;
  int64_t bands = (rows + kTile - 1) / kTile;
  std::array<int64_t, K> down, across;  // each operand's strides along the last two axes
  for (size_t k = 0; k < K; ++k) {
    down[k] = (*strides[k])[nd - 2];
    across[k] = (*strides[k])[nd - 1];
  }
  forEachLine(count / (rows * cols) * bands, parallel, [&](int64_t task) {
    int64_t m = task / bands, i0 = task % bands * kTile, i1 = std::min(rows, i0 + kTile);
    int64_t first = m * rows * cols;
    std::array<int64_t, K> base{};
    for (int d = nd - 3; d >= 0; --d) {
      for (size_t k = 0; k < K; ++k) base[k] += m % shape[d] * (*strides[k])[d];
      m /= shape[d];
    }
    const std::array<int64_t, K> d = down, a = across;
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        std::array<int64_t, K> at;
        for (size_t k = 0; k < K; ++k) at[k] = base[k] + i * d[k] + j0 * a[k];
        for (int64_t j = j0; j < j1; ++j) {
          element(first + i * cols + j, at);
          for (size_t k = 0; k < K; ++k) at[k] += a[k];
        }
      }
    }
  });
}

// The last axis's stride (0 for a 0-d tensor).
inline int64_t lastStride(const Tensor& t) { return t.ndim() ? t.strides().back() : 0; }

// The sum, in order from 0, of chunk(begin, end) over the chunks [begin,
// end) of kSumChunk elements of a run of n (sum_order.h's chunks), each
// chunk computed on any core when `parallel`: the same bits either way.
template <class F>
double sumOfChunks(int64_t n, bool parallel, F&& chunk) {
  if (n <= kSumChunk) return n > 0 ? 0.0 + chunk(int64_t{0}, n) : 0.0;
  int64_t chunks = (n + kSumChunk - 1) / kSumChunk;
  std::vector<double> sums(static_cast<size_t>(chunks));
  forEachLine(chunks, parallel, [&](int64_t c) {
    sums[static_cast<size_t>(c)] = chunk(c * kSumChunk, std::min(n, (c + 1) * kSumChunk));
  });
  double total = 0;
  for (double s : sums) total += s;
  return total;
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
  if (runsAlongRows(a) || runsAlongRows(b)) {
    forEachTile<2>(out.shape(), {&a.strides(), &b.strides()}, parallel,
                   [&](int64_t i, const std::array<int64_t, 2>& at) { o[i] = f(x[at[0]], y[at[1]]); });
    return;
  }
  int64_t cols = out.ndim() ? out.shape().back() : 1, sa = lastStride(a), sb = lastStride(b);
  forEachStridedRow<2>(out.shape(), {&a.strides(), &b.strides()}, parallel,
                       [&, sa, sb](int64_t r, const std::array<int64_t, 2>& at) {
                         const T* xr = x + at[0];
                         const T* yr = y + at[1];
                         R* orow = o + r * cols;
                         for (int64_t j = 0; j < cols; ++j) orow[j] = f(xr[j * sa], yr[j * sb]);
                       });
}

// out = finish(x, y, block(x, y)) of two operands, where block computes
// a function of whole arrays (SLEEF's vector forms: vmath::fmod,
// vmath::atan2) as block(x, xSingle, y, ySingle, results, n): in place
// where each operand is contiguous or a single value, else from the
// operands' rows gathered into blocks.
template <class T, class Block, class Finish>
void blockBinaryLoop(const Tensor& a, const Tensor& b, Tensor& o, Block block, Finish finish) {
  constexpr int64_t kBlock = 256;
  bool xSingle = a.isSingleValue(), ySingle = b.isSingleValue();
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* out = o.data<T>();  // contiguous
  if (!(a.isContiguous() || xSingle) || !(b.isContiguous() || ySingle)) {
    int64_t cols = o.ndim() ? o.shape().back() : 1, sa = lastStride(a), sb = lastStride(b);
    forEachStridedRow<2>(o.shape(), {&a.strides(), &b.strides()}, o.numel() >= kParallelThreshold,
                         [&](int64_t r, const std::array<int64_t, 2>& at) {
                           T xs[kBlock], ys[kBlock], found[kBlock];
                           for (int64_t j0 = 0; j0 < cols; j0 += kBlock) {
                             int64_t len = std::min(kBlock, cols - j0);
                             for (int64_t k = 0; k < len; ++k) {
                               xs[k] = x[at[0] + (j0 + k) * sa];
                               ys[k] = y[at[1] + (j0 + k) * sb];
                             }
                             block(xs, false, ys, false, found, len);
                             T* orow = out + r * cols + j0;
                             for (int64_t k = 0; k < len; ++k) orow[k] = finish(xs[k], ys[k], found[k]);
                           }
                         });
    return;
  }
  forEachSpan(o.numel(), [&](int64_t begin, int64_t end) {
    T found[kBlock];
    for (int64_t i = begin; i < end; i += kBlock) {
      int64_t len = std::min(kBlock, end - i);
      const T* xi = xSingle ? x : x + i;
      const T* yi = ySingle ? y : y + i;
      block(xi, xSingle, yi, ySingle, found, len);
      T* oi = out + i;
      if (xSingle)
        for (int64_t k = 0; k < len; ++k) oi[k] = finish(x[0], yi[k], found[k]);
      else if (ySingle)
        for (int64_t k = 0; k < len; ++k) oi[k] = finish(xi[k], y[0], found[k]);
      else
        for (int64_t k = 0; k < len; ++k) oi[k] = finish(xi[k], yi[k], found[k]);
    }
  });
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
  if (runsAlongRows(a)) {
    forEachTile<1>(out.shape(), {&a.strides()}, parallel,
                   [&](int64_t i, const std::array<int64_t, 1>& at) { o[i] = f(x[at[0]]); });
    return;
  }
  int64_t cols = out.ndim() ? out.shape().back() : 1, sa = lastStride(a);
  forEachStridedRow<1>(out.shape(), {&a.strides()}, parallel, [&, sa](int64_t r, const std::array<int64_t, 1>& at) {
    const T* xr = x + at[0];
    R* orow = o + r * cols;
    for (int64_t j = 0; j < cols; ++j) orow[j] = f(xr[j * sa]);
  });
}

}  // namespace nn::rt
