// The CPU's kernels of convolution and of its gradients (the ops
// conv2d_grad_input and conv2d_grad_weight that the autodiff rule of conv2d
// emits): oneDNN's forward, backward-data and backward-weights primitives
// for f32; for f64 (the finite-difference tests' dtype and the f32
// kernels' oracle) one loop nest over the convolution's product terms that
// each of the three accumulates differently. Shapes arrive checked
// (nn_conv.cpp).
#include <cstring>

#include "runtime/kernels.h"
#include "runtime/nn_ops.h"

namespace nn::rt {

namespace {

template <class T>
void zero(Tensor& t) {
  std::memset(t.data<T>(), 0, static_cast<size_t>(t.numel()) * sizeof(T));
}

// Calls f(y, x, w) with the flat indices of output, input and weight of
// every product term of the convolution with input [N, C, H, W], weight
// [OC, C/groups, KH, KW] and output [N, OC, OH, OW] (kc: the input
// channel's index in its group).
template <class F>
void eachTerm(const Shape& x, const Shape& w, const Shape& y, const ConvParams& p, F f) {
  int64_t N = x[0], C = x[1], H = x[2], W = x[3];
  int64_t OC = w[0], KH = w[2], KW = w[3], ICg = C / p.groups, OCg = OC / p.groups, OH = y[2], OW = y[3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow)
          for (int64_t kc = 0; kc < ICg; ++kc)
            for (int64_t kh = 0; kh < KH; ++kh) {
              int64_t ih = oh * p.strideH - p.padH + kh * p.dilH;
              if (ih < 0 || ih >= H) continue;
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t iw = ow * p.strideW - p.padW + kw * p.dilW;
                if (iw < 0 || iw >= W) continue;
                int64_t c = (oc / OCg) * ICg + kc;
                f(((n * OC + oc) * OH + oh) * OW + ow, ((n * C + c) * H + ih) * W + iw,
                  ((oc * ICg + kc) * KH + kh) * KW + kw);
              }
            }
}

void conv2dF32(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out) {
  onednnConv2d(x, w, bias, p, out);
}
void conv2dGradInputF32(const Tensor& g, const Tensor& w, const ConvParams& p, Tensor& dx) {
  onednnConv2dGradInput(g, w, p, dx);
}
void conv2dGradWeightF32(const Tensor& g, const Tensor& x, const ConvParams& p, Tensor& dw) {
  onednnConv2dGradWeight(g, x, p, dw);
}

}  // namespace

void conv2dLoop(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out) {
  double* o = out.data<double>();
  int64_t plane = out.dim(2) * out.dim(3);
  for (int64_t i = 0, n = out.numel(); i < n; ++i) o[i] = bias ? bias->data<double>()[(i / plane) % out.dim(1)] : 0.0;
  const double *xd = x.data<double>(), *wd = w.data<double>();
  eachTerm(x.shape(), w.shape(), out.shape(), p, [&](int64_t yi, int64_t xi, int64_t wi) { o[yi] += xd[xi] * wd[wi]; });
}

void conv2dGradInputLoop(const Tensor& g, const Tensor& w, const ConvParams& p, Tensor& dx) {
  zero<double>(dx);
  const double *gd = g.data<double>(), *wd = w.data<double>();
  double* o = dx.data<double>();
  eachTerm(dx.shape(), w.shape(), g.shape(), p, [&](int64_t yi, int64_t xi, int64_t wi) { o[xi] += gd[yi] * wd[wi]; });
}

void conv2dGradWeightLoop(const Tensor& g, const Tensor& x, const ConvParams& p, Tensor& dw) {
  zero<double>(dw);
  const double *gd = g.data<double>(), *xd = x.data<double>();
  double* o = dw.data<double>();
  eachTerm(x.shape(), dw.shape(), g.shape(), p, [&](int64_t yi, int64_t xi, int64_t wi) { o[wi] += gd[yi] * xd[xi]; });
}

void registerCpuConvKernels(KernelTable& r) {
  using ir::Op;
  r.add<Op::Conv2d>(DType::F32, conv2dF32);
  r.add<Op::Conv2d>(DType::F64, conv2dLoop);
  r.add<Op::Conv2dGradInput>(DType::F32, conv2dGradInputF32);
  r.add<Op::Conv2dGradInput>(DType::F64, conv2dGradInputLoop);
  r.add<Op::Conv2dGradWeight>(DType::F32, conv2dGradWeightF32);
  r.add<Op::Conv2dGradWeight>(DType::F64, conv2dGradWeightLoop);
}

}  // namespace nn::rt
