// The CPU's kernels of one_hot and of the losses' per-element work: the
// label pick of cross_entropy (after log_softmax) and its gradient's
// finish (after softmax), and binary cross entropy. Sums are kept in double whatever the dtype, so f32 and f64
// losses agree to the last bit of the f32 result; the range checks report
// the first bad label or probability to the front end (nn_ops.cpp), which
// raises the located error.
#include <algorithm>
#include <cmath>

#include "runtime/kernel_loops.h"
#include "runtime/kernels.h"

namespace nn::rt {

namespace {

template <class L>
bool oneHotLoop(const Tensor& labels, Tensor& out, int64_t& bad) {
  const L* l = labels.data<L>();
  int64_t* o = out.data<int64_t>();
  int64_t n = out.ndim() ? out.dim(out.ndim() - 1) : 0;
  for (int64_t i = 0, m = labels.numel(); i < m; ++i) {
    int64_t c = static_cast<int64_t>(l[i]);
    if (c < 0 || c >= n) {
      bad = c;
      return false;
    }
    o[i * n + c] = 1;
  }
  return true;
}

template <class T>
bool crossEntropyLoop(const Tensor& logProbs, const Tensor& labels, int64_t ignore, Tensor& out, int64_t& bad) {
  const T* lp = logProbs.data<T>();
  const int64_t* l = labels.data<int64_t>();
  int64_t n = logProbs.dim(0), c = logProbs.dim(1), counted = 0;
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (l[i] == ignore) continue;
    if (l[i] < 0 || l[i] >= c) {
      bad = l[i];
      return false;
    }
    total -= static_cast<double>(lp[i * c + l[i]]);
    ++counted;
  }
  *out.data<T>() = static_cast<T>(counted ? total / static_cast<double>(counted) : std::nan(""));
  return true;
}

// Row by row: the scale (g / M, computed in T as g / N is by the ops it
// replaces, so the bits are theirs), 1 off at the label, the row scaled;
// an ignored row zeroed.
template <class T>
void crossEntropyGradLoop(const Tensor& g, const Tensor& labels, int64_t ignore, Tensor& p) {
  int64_t rows = p.dim(0), classes = p.dim(1);
  const int64_t* l = labels.data<int64_t>();
  int64_t counted = rows - std::count(l, l + rows, ignore);
  const T scale = *g.data<T>() / static_cast<T>(counted);
  T* o = p.data<T>();
  forEachLine(rows, p.numel() >= kParallelThreshold, [&](int64_t r) {
    T* row = o + r * classes;
    if (l[r] == ignore) {
      std::fill(row, row + classes, T(0));
      return;
    }
    if (l[r] >= 0 && l[r] < classes) row[l[r]] -= T(1);
#pragma omp simd
    for (int64_t c = 0; c < classes; ++c) row[c] *= scale;
  });
}

template <class T>
bool bceLoop(const Tensor& p, const Tensor& y, Tensor& out) {
  const T* pp = p.data<T>();
  const T* yy = y.data<T>();
  int64_t n = p.numel();
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    double pi = pp[i], yi = yy[i];
    if (pi < 0 || pi > 1) return false;
    double lp = std::max(std::log(pi), -100.0), lq = std::max(std::log1p(-pi), -100.0);
    total -= yi * lp + (1 - yi) * lq;
  }
  *out.data<T>() = static_cast<T>(n ? total / static_cast<double>(n) : std::nan(""));
  return true;
}

}  // namespace

void registerCpuLossKernels(KernelTable& r) {
  r.add<ir::Op::OneHot>(DType::I32, oneHotLoop<int32_t>);
  r.add<ir::Op::OneHot>(DType::I64, oneHotLoop<int64_t>);
  forFloatDTypes([&](auto type, DType d) {
    using T = decltype(type);
    r.add<ir::Op::CrossEntropy>(d, crossEntropyLoop<T>);
    r.add<ir::Op::BinaryCrossEntropy>(d, bceLoop<T>);
    r.add<ir::Op::CrossEntropyGrad>(d, crossEntropyGradLoop<T>);
  });
}

}  // namespace nn::rt
