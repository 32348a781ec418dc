// The CPU's softmax and log_softmax kernels, along any axis of a
// contiguous tensor viewed as [outer, n, inner] (n the axis: AxisLines). f32 takes
// SLEEF's vectorised exp (vector_math.h) and adds the exps in double: along
// the last axis each row in sum_order.h's order, along another axis the
// rows of a strip of columns in row order, the columns being the vector
// lanes (read in place, never transposed). Each softmax slice is one task;
// tasks run on all cores from kParallelThreshold elements up and give the
// same bits on any number of threads. A slice holding a NaN is NaN
// throughout, as in PyTorch; the maximum subtracted first is 0 where it is
// infinite, so an all -inf slice gives NaN and +inf gives NaN at the
// infinities. f64 computes element by element in libm's double.
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/kernel_loops.h"
#include "runtime/kernels.h"
#include "runtime/sum_order.h"
#include "runtime/vector_math.h"

namespace nn::rt {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The maximum of a slice as softmax subtracts it: 0 where infinite.
inline float shiftOf(float m) { return std::isinf(m) ? 0.0f : m; }

// The f32 softmax of one row of n (the last axis): its maximum, exp(x - m)
// a chunk of kSumChunk at a time (into the output, or for log_softmax
// into a buffer) with the chunk's sum, then the scale (softmax: times
// 1/sum) or the shift (log_softmax: minus log(sum)).
template <bool Log>
void softmaxRowF32(const float* x, float* o, int64_t n) {
  // x - x is 0 but for an infinity or a NaN: their sum is NaN if the row
  // holds either (cheaper than counting NaNs), and then it is looked at.
  float m = -kInf, poison = 0;
#pragma omp simd reduction(max : m) reduction(+ : poison)
  for (int64_t i = 0; i < n; ++i) {
    m = x[i] > m ? x[i] : m;
    poison += x[i] - x[i];
  }
  if (poison != 0 && std::any_of(x, x + n, [](float v) { return std::isnan(v); })) {
    std::fill_n(o, n, kNaN);
    return;
  }
  m = shiftOf(m);
  double sum = 0;
  float buffer[Log ? kSumChunk : 1];
  for (int64_t c = 0; c < n; c += kSumChunk) {
    int64_t len = std::min(kSumChunk, n - c);
    float* e = Log ? buffer : o + c;
#pragma omp simd
    for (int64_t i = 0; i < len; ++i) e[i] = x[c + i] - m;
    vmath::apply(vmath::Fn::Exp, e, e, len);
    sum += chunkSum(e, len);
  }
  if constexpr (Log) {
    float shift = static_cast<float>(std::log(sum));
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = (x[i] - m) - shift;
  } else {
    float scale = static_cast<float>(1.0 / sum);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] *= scale;
  }
}

// Columns a task takes at once along a non-last axis: the vector lanes,
// and the rows of a strip stay in cache between the passes.
constexpr int64_t kStrip = 256;

// The f32 softmax along the rows of a strip of `width` columns of an
// [n, inner] block (x[i * inner + k]): the columns' maxima, then row by row
// exp(x - m) (into the output, or for log_softmax into a buffer) added to
// each column's double sum, then the scale or shift row by row.
template <bool Log>
void softmaxStripF32(const float* x, float* o, int64_t n, int64_t inner, int64_t width) {
  float m[kStrip];
  int32_t nans[kStrip];
  double sum[kStrip];
  float buffer[Log ? kStrip : 1];
  std::fill_n(m, width, -kInf);
  std::fill_n(nans, width, 0);
  std::fill_n(sum, width, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const float* row = x + i * inner;
#pragma omp simd
    for (int64_t k = 0; k < width; ++k) {
      m[k] = row[k] > m[k] ? row[k] : m[k];
      nans[k] += row[k] != row[k];
    }
  }
  for (int64_t k = 0; k < width; ++k) m[k] = shiftOf(m[k]);
  for (int64_t i = 0; i < n; ++i) {
    const float* row = x + i * inner;
    float* e = Log ? buffer : o + i * inner;
#pragma omp simd
    for (int64_t k = 0; k < width; ++k) e[k] = row[k] - m[k];
    vmath::apply(vmath::Fn::Exp, e, e, width);
#pragma omp simd
    for (int64_t k = 0; k < width; ++k) sum[k] += static_cast<double>(e[k]);
  }
  // Scales (or shifts), NaN for a column that holds a NaN.
  float by[kStrip];
  for (int64_t k = 0; k < width; ++k)
    by[k] = nans[k] ? kNaN : static_cast<float>(Log ? std::log(sum[k]) : 1.0 / sum[k]);
  for (int64_t i = 0; i < n; ++i) {
    const float* row = x + i * inner;
    float* out = o + i * inner;
    if constexpr (Log) {
#pragma omp simd
      for (int64_t k = 0; k < width; ++k) out[k] = (row[k] - m[k]) - by[k];
    } else {
#pragma omp simd
      for (int64_t k = 0; k < width; ++k) out[k] *= by[k];
    }
  }
}

template <bool Log>
void softmaxF32(const Tensor& x, int axis, Tensor& out) {
  AxisLines lines(x, axis);
  int64_t n = lines.len, inner = lines.inner, outer = lines.outer;
  const float* in = x.data<float>();
  float* o = out.data<float>();
  bool parallel = x.numel() >= kParallelThreshold;
  if (inner == 1) {
    forEachLine(outer, parallel, [&](int64_t r) { softmaxRowF32<Log>(in + r * n, o + r * n, n); });
    return;
  }
  int64_t strips = (inner + kStrip - 1) / kStrip;
  forEachLine(outer * strips, parallel, [&](int64_t task) {
    int64_t offset = task / strips * n * inner + task % strips * kStrip;
    softmaxStripF32<Log>(in + offset, o + offset, n, inner, std::min(kStrip, inner - task % strips * kStrip));
  });
}

// f64: each slice's maximum, the sum of exp(x - m) in order, and
// exp(x - lse) or x - lse with lse = m + log(sum), in libm's double; the
// slices on all cores from kParallelThreshold elements up.
template <bool Log>
void softmaxF64(const Tensor& x, int axis, Tensor& out) {
  AxisLines lines(x, axis);
  int64_t n = lines.len, inner = lines.inner;
  const double* in = x.data<double>();
  double* o = out.data<double>();
  forEachLine(lines.count(), x.numel() >= kParallelThreshold, [&](int64_t slice) {
    const double* row = in + lines.start(slice);
    double* orow = o + lines.start(slice);
    // A NaN is the maximum (so the whole row is NaN, as PyTorch's).
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) m = row[i * inner] > m || std::isnan(row[i * inner]) ? row[i * inner] : m;
    if (std::isinf(m)) m = 0;
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += std::exp(row[i * inner] - m);
    double lse = m + std::log(s);
    for (int64_t i = 0; i < n; ++i) orow[i * inner] = Log ? row[i * inner] - lse : std::exp(row[i * inner] - lse);
  });
}

}  // namespace

void registerCpuSoftmaxKernels(KernelTable& r) {
  r.add<ir::Op::Softmax>(DType::F32, softmaxF32<false>);
  r.add<ir::Op::Softmax>(DType::F64, softmaxF64<false>);
  r.add<ir::Op::LogSoftmax>(DType::F32, softmaxF32<true>);
  r.add<ir::Op::LogSoftmax>(DType::F64, softmaxF64<true>);
}

}  // namespace nn::rt
