// The CPU's data-movement kernels: fills (full, zeros, ones, ...), every
// copy of tensor data (astype, contiguous, clone, assignment into a view:
// one kernel, Op::AsType, keyed by the destination's dtype), gather,
// scatter, scatter_add and scatter_reduce, and advanced indexing's element
// take and put.
// Index operands arrive range-checked (tensor_shape_ops.cpp).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <immintrin.h>

#include "runtime/kernel_loops.h"

namespace nn::rt {

namespace {

// Element conversion, vectorised (and in spans on all cores) for contiguous
// sources.
template <class S, class D>
void convertLoop(const Tensor& src, D* dst) {
  using R = Stored<S>;
  const R* s = storedData<S>(src);
  int64_t n = src.numel();
  if (src.isContiguous()) {
    forEachSpan(n, [&](int64_t begin, int64_t end) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) dst[i] = convertValue<R, D>(s[i]);
    });
    return;
  }
  bool parallel = n >= kParallelThreshold;
  if (runsAlongRows(src)) {
    forEachTile<1>(src.shape(), {&src.strides()}, parallel,
                   [&](int64_t i, const std::array<int64_t, 1>& at) { dst[i] = convertValue<R, D>(s[at[0]]); });
    return;
  }
  int64_t cols = src.ndim() ? src.shape().back() : 1, step = lastStride(src);
  forEachStridedRow<1>(src.shape(), {&src.strides()}, parallel,
                       [&, cols, step](int64_t r, const std::array<int64_t, 1>& at) {
                         const R* row = s + at[0];
                         D* out = dst + r * cols;
                         for (int64_t j = 0; j < cols; ++j) out[j] = convertValue<R, D>(row[j * step]);
                       });
}

template <class D>
void convertTo(const Tensor& src, D* dst) {
  switch (src.dtype()) {
    case DType::Bool: convertLoop<bool, D>(src, dst); break;
    case DType::I32: convertLoop<int32_t, D>(src, dst); break;
    case DType::I64: convertLoop<int64_t, D>(src, dst); break;
    case DType::F32: convertLoop<float, D>(src, dst); break;
    case DType::F64: convertLoop<double, D>(src, dst); break;
  }
}

// Whether no two of t's elements share storage (a broadcast view's do),
// so that its rows may be written on all cores: taking the axes of more
// than one element by increasing stride, each stride is past the farthest
// offset the axes before it reach (a concat's or a slice's region is).
bool holdsEachElementOnce(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> axes;  // (|stride|, size)
  for (int d = 0; d < t.ndim(); ++d)
    if (t.dim(d) > 1) axes.emplace_back(std::abs(t.strides()[d]), t.dim(d));
  std::sort(axes.begin(), axes.end());
  int64_t reach = 0;
  for (const auto& [stride, size] : axes) {
    if (stride <= reach) return false;
    reach += (size - 1) * stride;
  }
  return true;
}

// One 8 x 8 block of 4-byte elements transposed in AVX registers: the 8
// runs of 8 at `in` (`across` apart) become the 8 runs at `out` (`cols`
// apart), by the unpack, shuffle and lane-permute network.
__attribute__((target("avx2"))) void transposeBlock8x8(const float* in, int64_t across, float* out, int64_t cols) {
  __m256 r[8], t[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(in + k * across);
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    r[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(out + k * cols, _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
    _mm256_storeu_ps(out + (k + 4) * cols, _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
  }
}

// The same for 8-byte elements, a 4 x 4 block at a time.
__attribute__((target("avx2"))) void transposeBlock4x4(const double* in, int64_t across, double* out, int64_t cols) {
  __m256d r0 = _mm256_loadu_pd(in), r1 = _mm256_loadu_pd(in + across);
  __m256d r2 = _mm256_loadu_pd(in + 2 * across), r3 = _mm256_loadu_pd(in + 3 * across);
  __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  _mm256_storeu_pd(out, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(out + cols, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(out + 2 * cols, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(out + 3 * cols, _mm256_permute2f128_pd(t1, t3, 0x31));
}

// A contiguous dst from a src whose last two axes are transposed in
// memory (stride 1 down its rows): blocks of 8 x 8 elements, each read as
// 8 runs down src's columns and written as 8 runs along dst's rows (for
// 4- and 8-byte elements on AVX2 transposed in registers, else through a
// buffer); tasks are bands of 32 rows of one matrix. x.T.contiguous() of
// 784 x 512 floats: 31 us, where the element-wise tiles took 233.
template <class E>
void transposedCopy(const Tensor& src, E* d, const E* s, bool parallel) {
  constexpr int64_t kBand = 32, kBlock = 8;
  const Shape& shape = src.shape();
  int nd = src.ndim();
  int64_t rows = shape[nd - 2], cols = shape[nd - 1], across = src.strides()[nd - 1];
  int64_t bands = (rows + kBand - 1) / kBand, matrices = src.numel() / (rows * cols);
  static const bool avx2 = __builtin_cpu_supports("avx2");
  forEachLine(matrices * bands, parallel, [&](int64_t task) {
    int64_t m = task / bands, i0 = task % bands * kBand, i1 = std::min(rows, i0 + kBand);
    E* out = d + m * rows * cols;
    int64_t base = 0;
    for (int k = nd - 3; k >= 0; --k) {
      base += m % shape[k] * src.strides()[k];
      m /= shape[k];
    }
    const E* in = s + base;
    for (int64_t j0 = 0; j0 < cols; j0 += kBlock)
      for (int64_t i = i0; i < i1; i += kBlock) {
        if (i + kBlock <= i1 && j0 + kBlock <= cols) {
          // The block's rows here are src's columns.
          if constexpr (sizeof(E) == 4) {
            if (avx2) {
              transposeBlock8x8(reinterpret_cast<const float*>(in + j0 * across + i), across,
                                reinterpret_cast<float*>(out + i * cols + j0), cols);
              continue;
            }
          } else if constexpr (sizeof(E) == 8) {
            if (avx2) {
              for (int64_t a = 0; a < kBlock; a += 4)
                for (int64_t b = 0; b < kBlock; b += 4)
                  transposeBlock4x4(reinterpret_cast<const double*>(in + (j0 + b) * across + i + a), across,
                                    reinterpret_cast<double*>(out + (i + a) * cols + j0 + b), cols);
              continue;
            }
          }
          E block[kBlock][kBlock];
          for (int64_t b = 0; b < kBlock; ++b) {
            const E* column = in + (j0 + b) * across + i;
#pragma omp simd
            for (int64_t a = 0; a < kBlock; ++a) block[a][b] = column[a];
          }
          for (int64_t a = 0; a < kBlock; ++a) {
            E* row = out + (i + a) * cols + j0;
#pragma omp simd
            for (int64_t b = 0; b < kBlock; ++b) row[b] = block[a][b];
          }
          continue;
        }
        for (int64_t a = i; a < std::min(i1, i + kBlock); ++a)
          for (int64_t b = j0; b < std::min(cols, j0 + kBlock); ++b) out[a * cols + b] = in[b * across + a];
      }
  });
}

// src into dst of the same shape, both with any strides, elements of
// type E (of the dtype's size): row by row, or in tiles from a transposed
// source, on all cores when dst is large and holds each element once.
template <class E>
void stridedCopy(const Tensor& src, const Tensor& dst) {
  const E* s = reinterpret_cast<const E*>(src.bytes());
  E* d = reinterpret_cast<E*>(dst.bytes());
  int64_t cols = dst.ndim() ? dst.shape().back() : 1, ss = lastStride(src), ds = lastStride(dst);
  bool parallel = dst.numel() >= kParallelThreshold && (dst.isContiguous() || holdsEachElementOnce(dst));
  if (runsAlongRows(src) && dst.isContiguous()) {
    transposedCopy<E>(src, d, s, parallel);
    return;
  }
  if (runsAlongRows(src)) {
    forEachTile<2>(dst.shape(), {&dst.strides(), &src.strides()}, parallel,
                   [&](int64_t, const std::array<int64_t, 2>& at) { d[at[0]] = s[at[1]]; });
    return;
  }
  forEachStridedRow<2>(dst.shape(), {&dst.strides(), &src.strides()}, parallel,
                       [&, cols, ss, ds](int64_t, const std::array<int64_t, 2>& at) {
                         E* out = d + at[0];
                         const E* in = s + at[1];
                         if (ds == 1 && ss == 1) {
                           std::memcpy(out, in, static_cast<size_t>(cols) * sizeof(E));
                         } else if (ds == 1 && ss == 0) {  // an expanded row: one value
                           std::fill_n(out, cols, *in);
                         } else if (ds == 1 && ss == -1) {  // flip's rows, as one vectorised loop
#pragma omp simd
                           for (int64_t j = 0; j < cols; ++j) out[j] = in[-j];
                         } else
                           for (int64_t j = 0; j < cols; ++j) out[j * ds] = in[j * ss];
                       });
}

}  // namespace

void copySameType(const Tensor& src, const Tensor& dst) {
  int64_t n = dst.numel();
  if (n == 0) return;
  if (dst.isContiguous() && src.isContiguous()) {
    // In spans on all cores: one core's memcpy moves about half what two
    // do (a concat of two 784x512 f32 tensors: 62 us).
    size_t size = dtypeSize(dst.dtype());
    char* d = dst.bytes();
    const char* s = src.bytes();
    forEachSpan(n, [&](int64_t begin, int64_t end) {
      std::memcpy(d + static_cast<size_t>(begin) * size, s + static_cast<size_t>(begin) * size,
                  static_cast<size_t>(end - begin) * size);
    });
    return;
  }
  switch (dtypeSize(dst.dtype())) {
    case 1: return stridedCopy<uint8_t>(src, dst);
    case 4: return stridedCopy<uint32_t>(src, dst);
    default: return stridedCopy<uint64_t>(src, dst);
  }
}

namespace {

// src (any dtype, any strides) into dst of dtype D (any strides).
template <class D>
void copyKernel(const Tensor& src, const Tensor& dst) {
  if (src.dtype() == dst.dtype()) return copySameType(src, dst);
  if (dst.isContiguous()) return convertTo(src, dst.data<D>());
  Tensor tmp = Tensor::empty(dst.dtype(), dst.shape(), dst.device());
  convertTo(src, tmp.data<D>());
  copySameType(tmp, dst);
}

// The index's elements seen as lines along `axis` (those that differ only
// in their coordinate there), numbered row-major over the other
// coordinates: the element offset of line `line`'s first element in t,
// read at the same coordinates through t's strides (t: the index itself,
// src, or x/out, whose coordinate along the axis comes from the index).
// Divisions once per line, none per element.
int64_t lineStart(const Tensor& t, const Tensor& index, int axis, int64_t line) {
  int64_t off = 0;
  for (int d = index.ndim() - 1; d >= 0; --d) {
    if (d == axis) continue;
    off += (line % index.dim(d)) * t.strides()[d];
    line /= index.dim(d);
  }
  return off;
}

// Lines a task walks together, element j of each in turn, where the axis
// is not the last: such lines are far apart in memory and their
// neighbours (along the last axis) next to each other, so one at a time
// would reload (and, at power-of-two strides, evict) the same cache lines
// for every line.
constexpr int64_t kLinesTogether = 64;

// f(first, count, last) for blocks of `count` lines of index's elements
// along `axis`, lines first, first + 1, ... differing only in their
// coordinate along axis `last`: the last axis, or where `axis` is the
// last, the one before it for short lines (a class index [N, 1]: one
// block start per 64 lines, not per element) and -1 for long ones, which
// go one at a time. Blocks run on all cores from kParallelThreshold index
// elements up.
template <class F>
void forEachLineBlock(const Tensor& index, int axis, F&& f) {
  int64_t along = index.dim(axis);
  int64_t lines = along == 0 ? 0 : index.numel() / along;
  int nd = index.ndim();
  int last = axis < nd - 1 ? nd - 1 : nd >= 2 && along < kLinesTogether ? nd - 2 : -1;
  int64_t width = last < 0 ? 1 : index.dim(last), per = last < 0 ? 1 : kLinesTogether;
  int64_t blocksPerRow = (width + per - 1) / per;
  int64_t blocks = width == 0 ? 0 : lines / width * blocksPerRow;
  forEachLine(blocks, index.numel() >= kParallelThreshold, [&](int64_t block) {
    int64_t at = block % blocksPerRow * per;
    f(block / blocksPerRow * width + at, std::min(per, width - at), last);
  });
}

template <class T>
void gatherKernel(const Tensor& x, int axis, const Tensor& index, Tensor& out) {
  int64_t along = index.dim(axis), len = x.dim(axis);
  const int64_t* ix = index.data<int64_t>();
  const T* in = x.data<T>();
  T* o = out.data<T>();  // index's shape, contiguous
  int64_t is = index.strides()[axis], xs = x.strides()[axis], os = out.strides()[axis];
  forEachLineBlock(index, axis, [&](int64_t first, int64_t count, int last) {
    int64_t i0 = lineStart(index, index, axis, first), x0 = lineStart(x, index, axis, first);
    int64_t o0 = lineStart(out, index, axis, first);
    int64_t il = last < 0 ? 0 : index.strides()[last], xl = last < 0 ? 0 : x.strides()[last];
    int64_t ol = last < 0 ? 0 : out.strides()[last];
    for (int64_t j = 0; j < along; ++j)
      for (int64_t b = 0; b < count; ++b) {
        int64_t k = ix[i0 + b * il + j * is];
        o[o0 + b * ol + j * os] = in[x0 + b * xl + (k < 0 ? k + len : k) * xs];
      }
  });
}

// Element steps of a block of lines: along the axis, and to the next line.
struct LineSteps {
  int64_t along, line;
};

// A block of `count` lines of `along` elements (their first elements at
// ix, s and o), each element combined into its place in order: scatter's
// write, scatter_add's sum, scatter_reduce's step. Kept out of the block
// loop's closure, whose captured sizes the compiler would otherwise reload
// for every element. S: src's element type (T, or float into double).
template <class T, class S, class Combine>
[[gnu::noinline]] void scatterLines(const int64_t* __restrict ix, const S* __restrict s, T* __restrict o,
                                    int64_t along, int64_t count, int64_t len, LineSteps is, LineSteps ss,
                                    LineSteps os, Combine combine) {
  if (is.line == 0) {
    // An index broadcast across the block's lines (index_add's, an
    // expanded class index): each step along the axis combines a run of
    // src into a run of out, which vectorises where both are contiguous.
    for (int64_t j = 0; j < along; ++j) {
      int64_t k = ix[j * is.along];
      T* __restrict to = o + (k < 0 ? k + len : k) * os.along;
      const S* __restrict from = s + j * ss.along;
      if (os.line == 1 && ss.line == 1)
        for (int64_t b = 0; b < count; ++b) to[b] = combine(to[b], from[b]);
      else
        for (int64_t b = 0; b < count; ++b) to[b * os.line] = combine(to[b * os.line], from[b * ss.line]);
    }
    return;
  }
  for (int64_t j = 0; j < along; ++j)
    for (int64_t b = 0; b < count; ++b) {
      int64_t k = ix[b * is.line + j * is.along];
      T& to = o[b * os.line + (k < 0 ? k + len : k) * os.along];
      to = combine(to, s[b * ss.line + j * ss.along]);
    }
}

// Index elements that differ only along the axis form a line and write
// into one line of `out`; different lines never share an element, so
// blocks of lines run in parallel and each line combines its elements in
// index order: the same sums, products and extremes, and the same element
// kept of two writes to one place, on any number of threads.
template <class T, class S = T, class Combine>
void scatterCombining(int axis, const Tensor& index, const Tensor& src, Tensor& out, Combine combine) {
  int64_t along = index.dim(axis), len = out.dim(axis);
  const int64_t* ix = index.data<int64_t>();
  const S* s = src.data<S>();
  T* o = out.data<T>();
  int64_t is = index.strides()[axis], ss = src.strides()[axis], os = out.strides()[axis];
  forEachLineBlock(index, axis, [&](int64_t first, int64_t count, int last) {
    const int64_t* lineIx = ix + lineStart(index, index, axis, first);
    const S* lineS = s + lineStart(src, index, axis, first);
    T* lineO = o + lineStart(out, index, axis, first);
    int64_t il = last < 0 ? 0 : index.strides()[last], sl = last < 0 ? 0 : src.strides()[last];
    int64_t ol = last < 0 ? 0 : out.strides()[last];
    scatterLines<T, S>(lineIx, lineS, lineO, along, count, len, {is, il}, {ss, sl}, {os, ol}, combine);
  });
}

template <class T>
void scatterKernel(int axis, const Tensor& index, const Tensor& src, Tensor& out) {
  scatterCombining<T>(axis, index, src, out, [](T, T v) { return v; });
}

template <class T>
void scatterAddKernel(int axis, const Tensor& index, const Tensor& src, Tensor& out) {
  if constexpr (std::is_same_v<T, double>)
    if (src.dtype() == DType::F32) {
      // Each f32 term widened as it is added: the f64 sums without an f64
      // copy of src, which would cost more than the scatter itself.
      scatterCombining<double, float>(axis, index, src, out, [](double to, float v) { return to + v; });
      return;
    }
  scatterCombining<T>(axis, index, src, out, [](T to, T v) { return wrapAdd(to, v); });
}

template <class T>
void scatterReduceKernel(int axis, const Tensor& index, const Tensor& src, ScatterReduction r, Tensor& out) {
  scatterCombining<T>(axis, index, src, out, [r](T to, T v) { return scatterStep(r, to, v); });
}

template <class T>
void fillKernel(double value, Tensor& out) {
  T v;
  if constexpr (std::is_same_v<T, bool>) v = value != 0.0;
  else v = static_cast<T>(value);
  T* o = out.data<T>();
  forEachSpan(out.numel(), [&](int64_t begin, int64_t end) { std::fill(o + begin, o + end, v); });
}

template <class T>
void takeKernel(const Tensor& t, const int64_t* offsets, int64_t n, int64_t run, Tensor& out) {
  const T* base = t.data<T>() - t.offset();  // offsets count from the storage's start
  T* o = out.data<T>();
  if (run == 1) {
    forEachSpan(n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = base[offsets[i]];
    });
    return;
  }
  forEachLine(n, n * run >= kParallelThreshold,
              [&](int64_t i) { std::copy_n(base + offsets[i], run, o + i * run); });
}

template <class T>
void putKernel(const Tensor& values, const int64_t* offsets, int64_t n, Tensor& dst) {
  T* base = dst.data<T>() - dst.offset();
  const T* v = values.data<T>();
  if (values.isContiguous()) {
    for (int64_t i = 0; i < n; ++i) base[offsets[i]] = v[i];
  } else {
    for (int64_t i = 0; i < n; ++i) base[offsets[i]] = v[values.flatOffset(i)];
  }
}

}  // namespace

void registerCpuCopyKernels(KernelTable& t) {
  forEachDType([&](auto type, DType d) {
    using T = decltype(type);
    t.add<ir::Op::GetItem>(d, takeKernel<T>);
    t.add<ir::Op::SetItem>(d, putKernel<T>);
    t.add<ir::Op::Full>(d, fillKernel<T>);
    t.add<ir::Op::AsType>(d, copyKernel<T>);
    t.add<ir::Op::Gather>(d, gatherKernel<T>);
    t.add<ir::Op::Scatter>(d, scatterKernel<T>);
  });
  t.add<ir::Op::ScatterAdd>(DType::F64, scatterAddKernel<double>);
  t.add<ir::Op::ScatterAdd>(DType::I64, scatterAddKernel<int64_t>);
  t.add<ir::Op::ScatterReduce>(DType::F64, scatterReduceKernel<double>);
  t.add<ir::Op::ScatterReduce>(DType::I64, scatterReduceKernel<int64_t>);
}

}  // namespace nn::rt
