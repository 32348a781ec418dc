// The CPU's data-movement kernels: fills (full, zeros, ones, ...), every
// copy of tensor data (astype, contiguous, clone, assignment into a view:
// one kernel, Op::AsType, keyed by the destination's dtype), gather and
// scatter_add, and advanced indexing's element take and put. Index operands
// arrive range-checked (tensor_shape_ops.cpp).
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/kernel_loops.h"

namespace nn::rt {

namespace {

// Element conversion, vectorised for contiguous sources.
template <class S, class D>
void convertLoop(const Tensor& src, D* dst) {
  const S* s = src.data<S>();
  int64_t n = src.numel();
  if (src.isContiguous()) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) dst[i] = convertValue<S, D>(s[i]);
    return;
  }
  bool parallel = n >= kParallelThreshold;
  if (runsAlongRows(src)) {
    forEachTile<1>(src.shape(), {&src.strides()}, parallel,
                   [&](int64_t i, const std::array<int64_t, 1>& at) { dst[i] = convertValue<S, D>(s[at[0]]); });
    return;
  }
  int64_t cols = src.ndim() ? src.shape().back() : 1, step = lastStride(src);
  forEachStridedRow<1>(src.shape(), {&src.strides()}, parallel,
                       [&, cols, step](int64_t r, const std::array<int64_t, 1>& at) {
                         const S* row = s + at[0];
                         D* out = dst + r * cols;
                         for (int64_t j = 0; j < cols; ++j) out[j] = convertValue<S, D>(row[j * step]);
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

// src into dst of the same shape, both with any strides, elements of
// type E (of the dtype's size): row by row, or in tiles from a transposed
// source, on all cores when dst is a large contiguous tensor (a view may
// hold an element twice: broadcast).
template <class E>
void stridedCopy(const Tensor& src, const Tensor& dst) {
  const E* s = reinterpret_cast<const E*>(src.bytes());
  E* d = reinterpret_cast<E*>(dst.bytes());
  int64_t cols = dst.ndim() ? dst.shape().back() : 1, ss = lastStride(src), ds = lastStride(dst);
  bool parallel = dst.isContiguous() && dst.numel() >= kParallelThreshold;
  if (runsAlongRows(src)) {
    forEachTile<2>(dst.shape(), {&dst.strides(), &src.strides()}, parallel,
                   [&](int64_t, const std::array<int64_t, 2>& at) { d[at[0]] = s[at[1]]; });
    return;
  }
  forEachStridedRow<2>(dst.shape(), {&dst.strides(), &src.strides()}, parallel,
                       [&, cols, ss, ds](int64_t, const std::array<int64_t, 2>& at) {
                         E* out = d + at[0];
                         const E* in = s + at[1];
                         if (ds == 1 && ss == 1) std::memcpy(out, in, static_cast<size_t>(cols) * sizeof(E));
                         else
                           for (int64_t j = 0; j < cols; ++j) out[j * ds] = in[j * ss];
                       });
}

void copySameType(const Tensor& src, const Tensor& dst) {
  int64_t n = dst.numel();
  if (n == 0) return;
  if (dst.isContiguous() && src.isContiguous()) {
    std::memcpy(dst.bytes(), src.bytes(), static_cast<size_t>(n) * dtypeSize(dst.dtype()));
    return;
  }
  switch (dtypeSize(dst.dtype())) {
    case 1: return stridedCopy<uint8_t>(src, dst);
    case 4: return stridedCopy<uint32_t>(src, dst);
    default: return stridedCopy<uint64_t>(src, dst);
  }
}

// src (any dtype, any strides) into dst of dtype D (any strides).
template <class D>
void copyKernel(const Tensor& src, const Tensor& dst) {
  if (src.dtype() == dst.dtype()) return copySameType(src, dst);
  if (dst.isContiguous()) return convertTo(src, dst.data<D>());
  Tensor tmp = Tensor::empty(dst.dtype(), dst.shape(), dst.device());
  convertTo(src, tmp.data<D>());
  copySameType(tmp, dst);
}

// The flat element offset in `x` selected by index element i along axis a
// (the index is in range: checkIndexRange ran).
int64_t selected(const Tensor& x, int64_t a, const Tensor& index, int64_t i) {
  int64_t rem = i, off = 0;
  int64_t k = index.flatAsInt(i);
  if (k < 0) k += x.dim(static_cast<int>(a));
  for (int d = index.ndim() - 1; d >= 0; --d) {
    int64_t idx = rem % index.dim(d);
    rem /= index.dim(d);
    off += (d == a ? k : idx) * x.strides()[d];
  }
  return off;
}

template <class T>
void gatherKernel(const Tensor& x, int axis, const Tensor& index, Tensor& out) {
  T* o = out.data<T>();
  const T* in = x.data<T>();
  int64_t n = index.numel();
  if (n >= kParallelThreshold) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) o[i] = in[selected(x, axis, index, i)];
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = in[selected(x, axis, index, i)];
  }
}

// Index elements that differ only along the axis form a line and write
// into one line of `out`; different lines never share an element, so
// lines run in parallel and each line adds in index order.
template <class T>
void scatterAddKernel(int axis, const Tensor& index, const Tensor& src, Tensor& out) {
  int64_t along = index.dim(axis), inner = 1;
  for (int d = axis + 1; d < index.ndim(); ++d) inner *= index.dim(d);
  int64_t lines = along == 0 ? 0 : index.numel() / along;
  T* o = out.data<T>();
  const T* s = src.data<T>();
  auto addLine = [&](int64_t line) {
    int64_t first = (line / inner) * along * inner + line % inner;
    for (int64_t j = 0; j < along; ++j) {
      int64_t i = first + j * inner;
      // src is read at the same coordinates as the index element.
      int64_t rem = i, soff = 0;
      for (int d = index.ndim() - 1; d >= 0; --d) {
        soff += (rem % index.dim(d)) * src.strides()[d];
        rem /= index.dim(d);
      }
      o[selected(out, axis, index, i)] += s[soff];
    }
  };
  forEachLine(lines, index.numel() >= kParallelThreshold, addLine);
}

template <class T>
void fillKernel(double value, Tensor& out) {
  T v;
  if constexpr (std::is_same_v<T, bool>) v = value != 0.0;
  else v = static_cast<T>(value);
  std::fill_n(out.data<T>(), out.numel(), v);
}

template <class T>
void takeKernel(const Tensor& t, const int64_t* offsets, int64_t n, int64_t run, Tensor& out) {
  const T* base = t.data<T>() - t.offset();  // offsets count from the storage's start
  T* o = out.data<T>();
  if (run == 1) {
    for (int64_t i = 0; i < n; ++i) o[i] = base[offsets[i]];
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
  });
  t.add<ir::Op::ScatterAdd>(DType::F64, scatterAddKernel<double>);
}

}  // namespace nn::rt
