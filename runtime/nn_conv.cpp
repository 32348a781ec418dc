// Convolution, pooling and normalisation: shape checks with located errors,
// dispatch to oneDNN for f32, and reference loops (double accumulation) for
// other types and as test oracles.
#include <cmath>
#include <exception>
#include <limits>

#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

template <class F>
void viaOneDnn(const char* name, SourceLoc loc, F f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const NnError&) {
    throw;
  } catch (const std::exception& e) {
    fail(loc, std::string(name) + " failed in oneDNN: " + e.what());
  }
}

// Output length of a window sweep; 0 when the window does not fit (C++
// division truncates toward zero, so the negative case is handled first).
int64_t outSize(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil) {
  int64_t span = in + 2 * pad - dil * (k - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

Tensor f32(const Tensor& t) { return astype(t, DType::F32).contiguous(); }

}  // namespace

Tensor conv2dReference(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, SourceLoc loc) {
  (void)loc;
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  int64_t OC = w.dim(0), KH = w.dim(2), KW = w.dim(3), ICg = C / p.groups, OCg = OC / p.groups;
  int64_t OH = outSize(H, KH, p.strideH, p.padH, p.dilH), OW = outSize(W, KW, p.strideW, p.padW, p.dilW);
  Tensor xc = x.contiguous(), wc = w.contiguous();
  Tensor out = Tensor::empty(DType::F64, {N, OC, OH, OW}, x.device());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc) {
      int64_t g = oc / OCg;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = bias ? bias->flatAsDouble(oc) : 0.0;
          for (int64_t ic = 0; ic < ICg; ++ic)
            for (int64_t kh = 0; kh < KH; ++kh) {
              int64_t ih = oh * p.strideH - p.padH + kh * p.dilH;
              if (ih < 0 || ih >= H) continue;
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t iw = ow * p.strideW - p.padW + kw * p.dilW;
                if (iw < 0 || iw >= W) continue;
                acc += xc.flatAsDouble(((n * C + g * ICg + ic) * H + ih) * W + iw) *
                       wc.flatAsDouble(((oc * ICg + ic) * KH + kh) * KW + kw);
              }
            }
          out.data<double>()[((n * OC + oc) * OH + oh) * OW + ow] = acc;
        }
    }
  return astype(out, promote(x.dtype(), w.dtype()));
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, SourceLoc loc) {
  std::string types = typeString(x) + " and weight " + typeString(w);
  if (x.ndim() != 4 || w.ndim() != 4) fail(loc, "conv2d expects input [N, C, H, W] and weight [OC, C/groups, KH, KW]; got " + types);
  if (p.groups < 1 || x.dim(1) % p.groups != 0 || w.dim(0) % p.groups != 0)
    fail(loc, "conv2d: groups=" + std::to_string(p.groups) + " must divide the channels of " + types);
  if (w.dim(1) * p.groups != x.dim(1))
    fail(loc, "shape mismatch in conv2d: input " + types + " (input channels " + std::to_string(x.dim(1)) +
                  " != " + std::to_string(w.dim(1)) + " x groups " + std::to_string(p.groups) + ")");
  if (bias && (bias->ndim() != 1 || bias->dim(0) != w.dim(0)))
    fail(loc, "conv2d: bias must be [" + std::to_string(w.dim(0)) + "], got " + typeString(*bias));
  if (p.strideH < 1 || p.strideW < 1 || p.dilH < 1 || p.dilW < 1 || p.padH < 0 || p.padW < 0)
    fail(loc, "conv2d: stride and dilation must be >= 1 and padding >= 0");
  int64_t OH = outSize(x.dim(2), w.dim(2), p.strideH, p.padH, p.dilH);
  int64_t OW = outSize(x.dim(3), w.dim(3), p.strideW, p.padW, p.dilW);
  if (OH <= 0 || OW <= 0) fail(loc, "conv2d: the kernel is larger than the padded input: " + types);
  DType dt = promote(x.dtype(), w.dtype());
  if (dt != DType::F32 && dt != DType::F64 && isIntegral(dt)) dt = DType::F32;
  if (dt == DType::F64) return conv2dReference(x, w, bias, p, loc);
  Tensor xf = f32(x), wf = f32(w);
  Tensor bf = bias ? f32(*bias) : Tensor();
  Tensor out = Tensor::empty(DType::F32, {x.dim(0), w.dim(0), OH, OW}, x.device());
  if (out.numel() == 0) return out;
  viaOneDnn("conv2d", loc, [&] { onednnConv2d(xf, wf, bias ? &bf : nullptr, p, out); });
  return out;
}

Tensor pool2dReference(const Tensor& x, const PoolParams& p, bool isMax, SourceLoc) {
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  int64_t OH = outSize(H, p.kH, p.strideH, p.padH, 1), OW = outSize(W, p.kW, p.strideW, p.padW, 1);
  Tensor xc = x.contiguous();
  Tensor out = Tensor::empty(DType::F64, {N, C, OH, OW}, x.device());
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t kh = 0; kh < p.kH; ++kh)
          for (int64_t kw = 0; kw < p.kW; ++kw) {
            int64_t ih = oh * p.strideH - p.padH + kh, iw = ow * p.strideW - p.padW + kw;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            double v = xc.flatAsDouble((nc * H + ih) * W + iw);
            acc = isMax ? std::max(acc, v) : acc + v;
          }
        out.data<double>()[(nc * OH + oh) * OW + ow] = isMax ? acc : acc / static_cast<double>(p.kH * p.kW);
      }
  return astype(out, isFloating(x.dtype()) ? x.dtype() : DType::F32);
}

Tensor pool2d(const Tensor& x, const PoolParams& p, bool isMax, SourceLoc loc) {
  const char* name = isMax ? "max_pool2d" : "avg_pool2d";
  if (x.ndim() != 4) fail(loc, std::string(name) + " expects input [N, C, H, W], got " + typeString(x));
  if (p.kH < 1 || p.kW < 1 || p.strideH < 1 || p.strideW < 1 || p.padH < 0 || p.padW < 0)
    fail(loc, std::string(name) + ": kernel and stride must be >= 1 and padding >= 0");
  if (2 * p.padH > p.kH || 2 * p.padW > p.kW)
    fail(loc, std::string(name) + ": padding must be at most half the kernel size");
  int64_t OH = outSize(x.dim(2), p.kH, p.strideH, p.padH, 1), OW = outSize(x.dim(3), p.kW, p.strideW, p.padW, 1);
  if (OH <= 0 || OW <= 0) fail(loc, std::string(name) + ": the kernel is larger than the padded input " + typeString(x));
  if (x.dtype() == DType::F64) return pool2dReference(x, p, isMax, loc);
  Tensor xf = f32(x);
  Tensor out = Tensor::empty(DType::F32, {x.dim(0), x.dim(1), OH, OW}, x.device());
  if (out.numel() == 0) return out;
  viaOneDnn(name, loc, [&] { onednnPool2d(xf, p, isMax, out); });
  return out;
}

Tensor batchNorm(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma, const Tensor* beta,
                 double eps, SourceLoc loc) {
  if (x.ndim() < 2) fail(loc, "batch_norm expects input [N, C, ...], got " + typeString(x));
  int64_t C = x.dim(1);
  for (const Tensor* t : {&mean, &var, gamma, beta})
    if (t && (t->ndim() != 1 || t->dim(0) != C))
      fail(loc, "batch_norm: statistics and affine parameters must be [" + std::to_string(C) + "], got " + typeString(*t));
  if (x.dtype() != DType::F64) {
    Tensor xf = f32(x), mf = f32(mean), vf = f32(var);
    Tensor gf = gamma ? f32(*gamma) : Tensor(), bf = beta ? f32(*beta) : Tensor();
    Tensor out = Tensor::empty(DType::F32, x.shape(), x.device());
    if (out.numel() == 0) return out;
    viaOneDnn("batch_norm", loc, [&] {
      onednnBatchNorm(xf, mf, vf, gamma ? &gf : nullptr, beta ? &bf : nullptr, static_cast<float>(eps), out);
    });
    return out;
  }
  Tensor out = Tensor::empty(DType::F64, x.shape(), x.device());
  int64_t inner = x.numel() / std::max<int64_t>(1, x.dim(0) * C);
  for (int64_t i = 0, n = x.numel(); i < n; ++i) {
    int64_t c = (i / inner) % C;
    double v = (x.flatAsDouble(i) - mean.flatAsDouble(c)) / std::sqrt(var.flatAsDouble(c) + eps);
    if (gamma) v *= gamma->flatAsDouble(c);
    if (beta) v += beta->flatAsDouble(c);
    out.data<double>()[i] = v;
  }
  return out;
}

Tensor layerNorm(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, SourceLoc loc) {
  if (x.ndim() < 1) fail(loc, "layer_norm of a 0-d tensor");
  int64_t D = x.shape().back();
  for (const Tensor* t : {gamma, beta})
    if (t && (t->ndim() != 1 || t->dim(0) != D))
      fail(loc, "layer_norm: gamma and beta must be [" + std::to_string(D) + "], got " + typeString(*t));
  if (x.dtype() != DType::F64 && x.ndim() >= 2 && x.ndim() <= 5) {
    Tensor xf = f32(x);
    Tensor gf = gamma ? f32(*gamma) : Tensor(), bf = beta ? f32(*beta) : Tensor();
    Tensor out = Tensor::empty(DType::F32, x.shape(), x.device());
    if (out.numel() == 0) return out;
    viaOneDnn("layer_norm", loc, [&] {
      onednnLayerNorm(xf, gamma ? &gf : nullptr, beta ? &bf : nullptr, static_cast<float>(eps), out);
    });
    return out;
  }
  Tensor xc = astype(x, DType::F64).contiguous();
  Tensor out = Tensor::empty(DType::F64, x.shape(), x.device());
  for (int64_t r = 0, rows = D ? x.numel() / D : 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < D; ++j) mean += xc.data<double>()[r * D + j];
    mean /= static_cast<double>(D);
    for (int64_t j = 0; j < D; ++j) var += std::pow(xc.data<double>()[r * D + j] - mean, 2);
    var /= static_cast<double>(D);
    for (int64_t j = 0; j < D; ++j) {
      double v = (xc.data<double>()[r * D + j] - mean) / std::sqrt(var + eps);
      if (gamma) v *= gamma->flatAsDouble(j);
      if (beta) v += beta->flatAsDouble(j);
      out.data<double>()[r * D + j] = v;
    }
  }
  return astype(out, isFloating(x.dtype()) ? x.dtype() : DType::F32);
}

}  // namespace nn::rt
