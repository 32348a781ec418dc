// The CPU's kernels of matmul, batch_norm, layer_norm and layer_norm's
// gradient (softmax's are kernels_cpu_softmax.cpp's): oneDNN for f32 matmul
// and layer norm (onednn.cpp; small matmuls on the loop of
// kernels_cpu_small_matmul.cpp), vectorised loops for f32 batch norm and
// the layer norm gradient, plain loops with double accumulation for f64
// (and, for matmul, the integer types). The loops are also the tests'
// oracles (the *Reference functions of nn_ops.h). Shapes arrive checked
// (kernels.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/kernel_loops.h"
#include "runtime/kernels.h"
#include "runtime/nn_ops.h"
#include "runtime/sum_order.h"

namespace nn::rt {

namespace {

template <class T>
void matmulKernel(const Tensor& a, const Tensor& b, Tensor& out) {
  int rank = out.ndim();
  int64_t M = out.dim(rank - 2), N = out.dim(rank - 1), K = a.dim(rank - 1);
  int64_t batches = out.numel() / std::max<int64_t>(1, M * N);
  T* o = out.data<T>();
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t offA, offB;
    matmulBatchOffsets(a, b, out, bi, offA, offB);
    const T* pa = a.data<T>() + offA;
    const T* pb = b.data<T>() + offB;
    int64_t am = a.strides()[rank - 2], ak = a.strides()[rank - 1];
    int64_t bk = b.strides()[rank - 2], bn = b.strides()[rank - 1];
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        T acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += pa[i * am + k * ak] * pb[k * bk + j * bn];
        o[(bi * M + i) * N + j] = acc;
      }
  }
}

// x [N, C, ...] (contiguous): per channel one scale, gamma / sqrt(var +
// eps) in double rounded once, then (x - mean) * scale + beta in f32 over
// each [N, C] plane (vectorised), the planes on all cores. (oneDNN's
// reference loop, which it takes for this layout, was 4x slower.)
void batchNormF32(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma, const Tensor* beta,
                  double eps, Tensor& out) {
  int64_t C = x.dim(1), planes = x.dim(0) * C, inner = planes ? x.numel() / planes : 0;
  std::vector<float> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C), 0.0f);
  for (int64_t c = 0; c < C; ++c) {
    double s = 1.0 / std::sqrt(static_cast<double>(var.data<float>()[c]) + eps);
    if (gamma) s *= gamma->data<float>()[c];
    scale[static_cast<size_t>(c)] = static_cast<float>(s);
    if (beta) shift[static_cast<size_t>(c)] = beta->data<float>()[c];
  }
  const float* in = x.data<float>();
  const float* m = mean.data<float>();
  float* o = out.data<float>();
  forEachLine(planes, x.numel() >= kParallelThreshold, [&](int64_t p) {
    size_t c = static_cast<size_t>(p % C);
    float centre = m[c], s = scale[c], b = shift[c];
    const float* plane = in + p * inner;
    float* to = o + p * inner;
#pragma omp simd
    for (int64_t i = 0; i < inner; ++i) to[i] = (plane[i] - centre) * s + b;
  });
}

void batchNormF64(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma, const Tensor* beta,
                  double eps, Tensor& out) {
  int64_t C = x.dim(1);
  int64_t inner = x.numel() / std::max<int64_t>(1, x.dim(0) * C);
  const double *in = x.data<double>(), *m = mean.data<double>(), *v = var.data<double>();
  double* o = out.data<double>();
  for (int64_t i = 0, n = x.numel(); i < n; ++i) {
    int64_t c = (i / inner) % C;
    double r = (in[i] - m[c]) / std::sqrt(v[c] + eps);
    if (gamma) r *= gamma->data<double>()[c];
    if (beta) r += beta->data<double>()[c];
    o[i] = r;
  }
}

// x is 2-D [rows, D] (the front end folds the leading axes).
void layerNormF32(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, Tensor& out) {
  onednnLayerNorm(x, gamma, beta, static_cast<float>(eps), out);
}

void layerNormF64(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, Tensor& out) {
  int64_t D = x.shape().back();
  const double* in = x.data<double>();
  double* o = out.data<double>();
  for (int64_t r = 0, rows = D ? x.numel() / D : 0; r < rows; ++r) {
    const double* row = in + r * D;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < D; ++j) mean += row[j];
    mean /= static_cast<double>(D);
    for (int64_t j = 0; j < D; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= static_cast<double>(D);
    for (int64_t j = 0; j < D; ++j) {
      double v = (row[j] - mean) / std::sqrt(var + eps);
      if (gamma) v *= gamma->data<double>()[j];
      if (beta) v += beta->data<double>()[j];
      o[r * D + j] = v;
    }
  }
}

// layer_norm's gradient, row by row: the row's mean, then its squared
// deviations and the sums of g' = g gamma and of g' (x - mean), in double
// (sum_order.h), then one pass of
// dx = r (g' - mean(g')) - r^3 mean(g' (x - mean)) (x - mean) in T, r the
// reciprocal deviation.
template <class T>
void layerNormGradLoop(const Tensor& g, const Tensor& x, const Tensor* gamma, double eps, Tensor& out) {
  int64_t D = x.dim(1);
  const T *gs = g.data<T>(), *xs = x.data<T>(), *w = gamma ? gamma->data<T>() : nullptr;
  T* o = out.data<T>();
  double n = static_cast<double>(D);
  forEachLine(x.dim(0), x.numel() >= kParallelThreshold, [&](int64_t r) {
    const T *xr = xs + r * D, *gr = gs + r * D;
    double mean = runSum(xr, D) / n, sums[3];
    normGradientSums(xr, gr, w, D, mean, sums);
    double rstd = 1.0 / std::sqrt(sums[0] / n + eps);
    // r (g' - mean(g')) first: where g' is constant it is exactly 0.
    T a = static_cast<T>(rstd), b = static_cast<T>(-rstd * rstd * rstd * sums[2] / n);
    T mh = static_cast<T>(sums[1] / n), m = static_cast<T>(mean);
    T* to = o + r * D;
    if (w) {
#pragma omp simd
      for (int64_t j = 0; j < D; ++j) to[j] = a * (gr[j] * w[j] - mh) + b * (xr[j] - m);
    } else {
#pragma omp simd
      for (int64_t j = 0; j < D; ++j) to[j] = a * (gr[j] - mh) + b * (xr[j] - m);
    }
  });
}

// f32 matmul and linear: small problems on the loop, the rest on oneDNN,
// by one rule on the rows of the result (over all batches), K and N, so
// that `x @ w + b` and the linear fuse-post-ops makes of it agree.
void matmulF32(const Tensor& a, const Tensor& b, Tensor& out) {
  int64_t N = out.dim(out.ndim() - 1);
  if (N > 0 && smallMatmulApplies(out.numel() / N, a.dim(a.ndim() - 1), N)) smallMatmulF32(a, b, out);
  else onednnMatmul(a, b, out);
}

void linearF32(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out) {
  if (smallMatmulApplies(x.dim(0), x.dim(1), w.dim(0))) smallLinearF32(x, w, bias, out);
  else onednnLinear(x, w, bias, out);
}

}  // namespace

void matmulLoop(const Tensor& a, const Tensor& b, Tensor& out) {
  switch (out.dtype()) {
    case DType::I32: matmulKernel<int32_t>(a, b, out); break;
    case DType::I64: matmulKernel<int64_t>(a, b, out); break;
    case DType::F32: matmulKernel<float>(a, b, out); break;
    case DType::F64: matmulKernel<double>(a, b, out); break;
    case DType::Bool: break;  // matmul promotes bool to i64
  }
}

void registerCpuNnKernels(KernelTable& r) {
  using ir::Op;
  r.add<Op::MatMul>(DType::F32, matmulF32);
  r.add<Op::Linear>(DType::F32, linearF32);
  r.add<Op::MatMul>(DType::F64, matmulLoop);
  r.add<Op::MatMul>(DType::I32, matmulLoop);
  r.add<Op::MatMul>(DType::I64, matmulLoop);
  r.add<Op::BatchNorm>(DType::F32, batchNormF32);
  r.add<Op::BatchNorm>(DType::F64, batchNormF64);
  r.add<Op::LayerNorm>(DType::F32, layerNormF32);
  r.add<Op::LayerNorm>(DType::F64, layerNormF64);
  r.add<Op::LayerNormGrad>(DType::F32, layerNormGradLoop<float>);
  r.add<Op::LayerNormGrad>(DType::F64, layerNormGradLoop<double>);
}

}  // namespace nn::rt
