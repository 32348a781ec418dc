// The CPU's kernels of matmul, softmax / log_softmax, conv2d, pooling,
// batch_norm and layer_norm: oneDNN for f32 (onednn.cpp), plain loops with
// double accumulation for f64 (and, for matmul, the integer types). The
// loops are also the tests' oracles (the *Reference functions of
// nn_ops.h). Shapes arrive checked (kernels.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/kernels.h"
#include "runtime/nn_ops.h"

namespace nn::rt {

namespace {

int64_t outSize(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  int64_t span = in + 2 * pad - dil * (k - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

template <class T>
void matmulKernel(const Tensor& a, const Tensor& b, Tensor& out) {
  int rank = out.ndim();
  int64_t M = out.dim(rank - 2), N = out.dim(rank - 1), K = a.dim(rank - 1);
  int64_t batches = out.numel() / std::max<int64_t>(1, M * N);
  T* o = out.data<T>();
  for (int64_t bi = 0; bi < batches; ++bi) {
    // Offsets of this batch in a and b (broadcast dims use index 0).
    int64_t rem = bi, offA = 0, offB = 0;
    for (int d = rank - 3; d >= 0; --d) {
      int64_t idx = rem % out.dim(d);
      rem /= out.dim(d);
      offA += (a.dim(d) == 1 ? 0 : idx) * a.strides()[d];
      offB += (b.dim(d) == 1 ? 0 : idx) * b.strides()[d];
    }
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

// Softmax along `axis` with the maximum subtracted first.
template <bool Log>
void softmaxF64(const Tensor& x, int axis, Tensor& out) {
  int64_t n = x.dim(axis), inner = 1;
  for (int d = axis + 1; d < x.ndim(); ++d) inner *= x.dim(d);
  int64_t outer = n ? x.numel() / (n * inner) : 0;
  const double* in = x.data<double>();
  double* o = out.data<double>();
  for (int64_t p = 0; p < outer; ++p)
    for (int64_t q = 0; q < inner; ++q) {
      const double* row = in + p * n * inner + q;
      double* orow = o + p * n * inner + q;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < n; ++i) m = std::max(m, row[i * inner]);
      if (std::isinf(m)) m = 0;  // all -inf (or +inf): let the arithmetic give NaN / 0 as NumPy does
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += std::exp(row[i * inner] - m);
      double lse = m + std::log(s);
      for (int64_t i = 0; i < n; ++i) orow[i * inner] = Log ? row[i * inner] - lse : std::exp(row[i * inner] - lse);
    }
}

template <bool Log>
void softmaxF32(const Tensor& x, int axis, Tensor& out) {
  onednnSoftmax(x, axis, Log, out);
}

void conv2dF32(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out) {
  onednnConv2d(x, w, bias, p, out);
}

template <bool IsMax>
void pool2dF32(const Tensor& x, const PoolParams& p, Tensor& out) {
  onednnPool2d(x, p, IsMax, out);
}
template <bool IsMax>
void pool2dF64(const Tensor& x, const PoolParams& p, Tensor& out) {
  pool2dLoop(x, p, IsMax, out);
}

void batchNormF32(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma, const Tensor* beta,
                  double eps, Tensor& out) {
  onednnBatchNorm(x, mean, var, gamma, beta, static_cast<float>(eps), out);
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

void conv2dLoop(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out) {
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  int64_t OC = w.dim(0), KH = w.dim(2), KW = w.dim(3), ICg = C / p.groups, OCg = OC / p.groups;
  int64_t OH = out.dim(2), OW = out.dim(3);
  const double *xd = x.data<double>(), *wd = w.data<double>();
  double* o = out.data<double>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc) {
      int64_t g = oc / OCg;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = bias ? bias->data<double>()[oc] : 0.0;
          for (int64_t ic = 0; ic < ICg; ++ic)
            for (int64_t kh = 0; kh < KH; ++kh) {
              int64_t ih = oh * p.strideH - p.padH + kh * p.dilH;
              if (ih < 0 || ih >= H) continue;
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t iw = ow * p.strideW - p.padW + kw * p.dilW;
                if (iw < 0 || iw >= W) continue;
                acc += xd[((n * C + g * ICg + ic) * H + ih) * W + iw] * wd[((oc * ICg + ic) * KH + kh) * KW + kw];
              }
            }
          o[((n * OC + oc) * OH + oh) * OW + ow] = acc;
        }
    }
}

void pool2dLoop(const Tensor& x, const PoolParams& p, bool isMax, Tensor& out) {
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  int64_t OH = outSize(H, p.kH, p.strideH, p.padH, 1), OW = outSize(W, p.kW, p.strideW, p.padW, 1);
  const double* xd = x.data<double>();
  double* o = out.data<double>();
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t kh = 0; kh < p.kH; ++kh)
          for (int64_t kw = 0; kw < p.kW; ++kw) {
            int64_t ih = oh * p.strideH - p.padH + kh, iw = ow * p.strideW - p.padW + kw;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            double v = xd[(nc * H + ih) * W + iw];
            acc = isMax ? std::max(acc, v) : acc + v;
          }
        o[(nc * OH + oh) * OW + ow] = isMax ? acc : acc / static_cast<double>(p.kH * p.kW);
      }
}

void registerCpuNnKernels(KernelTable& r) {
  using ir::Op;
  r.add<Op::MatMul>(DType::F32, onednnMatmul);
  r.add<Op::MatMul>(DType::F64, matmulLoop);
  r.add<Op::MatMul>(DType::I32, matmulLoop);
  r.add<Op::MatMul>(DType::I64, matmulLoop);
  r.add<Op::Softmax>(DType::F32, softmaxF32<false>);
  r.add<Op::Softmax>(DType::F64, softmaxF64<false>);
  r.add<Op::LogSoftmax>(DType::F32, softmaxF32<true>);
  r.add<Op::LogSoftmax>(DType::F64, softmaxF64<true>);
  r.add<Op::Conv2d>(DType::F32, conv2dF32);
  r.add<Op::Conv2d>(DType::F64, conv2dLoop);
  r.add<Op::MaxPool2d>(DType::F32, pool2dF32<true>);
  r.add<Op::MaxPool2d>(DType::F64, pool2dF64<true>);
  r.add<Op::AvgPool2d>(DType::F32, pool2dF32<false>);
  r.add<Op::AvgPool2d>(DType::F64, pool2dF64<false>);
  r.add<Op::BatchNorm>(DType::F32, batchNormF32);
  r.add<Op::BatchNorm>(DType::F64, batchNormF64);
  r.add<Op::LayerNorm>(DType::F32, layerNormF32);
  r.add<Op::LayerNorm>(DType::F64, layerNormF64);
}

}  // namespace nn::rt
