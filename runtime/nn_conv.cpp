// The front ends of convolution, pooling and normalisation: shape and
// attribute checks with located errors, dtype conversion (f64 stays f64,
// everything else computes in f32) and the result's allocation, then the
// kernel of the operands' device (dispatch.h; the CPU's are oneDNN for f32
// and loops for f64, kernels_cpu_nn.cpp).
#include <cmath>

#include "ir/shape_rules.h"
#include "runtime/dispatch.h"
#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

// The dtype a floating op computes in: f64 stays, the rest is f32.
DType floatType(DType t) { return t == DType::F64 ? DType::F64 : DType::F32; }
Tensor as(const Tensor& t, DType dt) { return astype(t, dt).contiguous(); }

}  // namespace

Tensor conv2dReference(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, SourceLoc) {
  int64_t OH = ir::shape_rules::windowCount(x.dim(2), w.dim(2), p.strideH, p.padH, p.dilH);
  int64_t OW = ir::shape_rules::windowCount(x.dim(3), w.dim(3), p.strideW, p.padW, p.dilW);
  Tensor bd = bias ? as(*bias, DType::F64) : Tensor();
  Tensor out = Tensor::empty(DType::F64, {x.dim(0), w.dim(0), OH, OW}, x.device());
  conv2dLoop(as(x, DType::F64), as(w, DType::F64), bias ? &bd : nullptr, p, out);
  return astype(out, promote(x.dtype(), w.dtype()));
}

namespace {

// Checks conv2d's operands and attributes; returns its result's shape.
Shape convShape(const char* name, const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p,
                SourceLoc loc) {
  std::string types = typeString(x) + " and weight " + typeString(w);
  if (x.ndim() != 4 || w.ndim() != 4)
    fail(loc, std::string(name) + " expects input [N, C, H, W] and weight [OC, C/groups, KH, KW]; got " + types);
  if (p.groups < 1 || x.dim(1) % p.groups != 0 || w.dim(0) % p.groups != 0)
    fail(loc, std::string(name) + ": groups=" + std::to_string(p.groups) + " must divide the channels of " + types);
  if (w.dim(1) * p.groups != x.dim(1))
    fail(loc, std::string("shape mismatch in ") + name + ": input " + types + " (input channels " +
                  std::to_string(x.dim(1)) + " != " + std::to_string(w.dim(1)) + " x groups " +
                  std::to_string(p.groups) + ")");
  if (bias && (bias->ndim() != 1 || bias->dim(0) != w.dim(0)))
    fail(loc, std::string(name) + ": bias must be [" + std::to_string(w.dim(0)) + "], got " + typeString(*bias));
  if (p.strideH < 1 || p.strideW < 1 || p.dilH < 1 || p.dilW < 1 || p.padH < 0 || p.padW < 0)
    fail(loc, std::string(name) + ": stride and dilation must be >= 1 and padding >= 0");
  int64_t OH = ir::shape_rules::windowCount(x.dim(2), w.dim(2), p.strideH, p.padH, p.dilH);
  int64_t OW = ir::shape_rules::windowCount(x.dim(3), w.dim(3), p.strideW, p.padW, p.dilW);
  if (OH <= 0 || OW <= 0)
    fail(loc, std::string(name) + ": the kernel is larger than the padded input: " + types);
  return {x.dim(0), w.dim(0), OH, OW};
}

// Checks a gradient g of an op whose result has shape `y`; returns the
// dtype the gradient is computed in (g's).
DType gradType(const char* name, const Tensor& g, const Shape& y, SourceLoc loc) {
  if (!isFloating(g.dtype())) fail(loc, std::string(name) + ": the gradient must be floating, got " + typeString(g));
  if (g.shape() != y)
    fail(loc, std::string(name) + ": the gradient " + typeString(g) + " does not have the forward result's shape " +
                  shapeString(y));
  return g.dtype();
}

// Checks pooling's operand and attributes; returns its result's shape.
Shape poolShape(const char* name, const Tensor& x, const PoolParams& p, SourceLoc loc) {
  if (x.ndim() != 4) fail(loc, std::string(name) + " expects input [N, C, H, W], got " + typeString(x));
  if (p.kH < 1 || p.kW < 1 || p.strideH < 1 || p.strideW < 1 || p.padH < 0 || p.padW < 0 || p.dilH < 1 || p.dilW < 1)
    fail(loc, std::string(name) + ": kernel, stride and dilation must be >= 1 and padding >= 0");
  if (2 * p.padH > p.kH || 2 * p.padW > p.kW)
    fail(loc, std::string(name) + ": padding must be at most half the kernel size");
  int64_t OH = ir::shape_rules::windowCount(x.dim(2), p.kH, p.strideH, p.padH, p.dilH, p.ceilMode);
  int64_t OW = ir::shape_rules::windowCount(x.dim(3), p.kW, p.strideW, p.padW, p.dilW, p.ceilMode);
  if (OH <= 0 || OW <= 0) fail(loc, std::string(name) + ": the kernel is larger than the padded input " + typeString(x));
  return {x.dim(0), x.dim(1), OH, OW};
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, SourceLoc loc) {
  Shape y = convShape("conv2d", x, w, bias, p, loc);
  DType dt = floatType(promote(x.dtype(), w.dtype()));
  Device& device = commonDevice(x, w, "conv2d", loc);
  if (bias) commonDevice(x, *bias, "conv2d", loc);
  Tensor xf = as(x, dt), wf = as(w, dt);
  Tensor bf = bias ? as(*bias, dt) : Tensor();
  Tensor out = Tensor::empty(dt, y, device);
  if (out.numel() > 0) launch<ir::Op::Conv2d>(device, dt, loc, xf, wf, bias ? &bf : nullptr, p, out);
  return out;
}

// conv2d's gradient with respect to its input (Wrt = conv2d_grad_input:
// of x's shape, from g and w) or to its weight (of w's shape, from g and x).
template <ir::Op Wrt>
static Tensor conv2dGrad(const Tensor& g, const Tensor& x, const Tensor& w, const ConvParams& p, SourceLoc loc) {
  constexpr bool input = Wrt == ir::Op::Conv2dGradInput;
  const char* name = input ? "conv2d_grad_input" : "conv2d_grad_weight";
  DType dt = gradType(name, g, convShape(name, x, w, nullptr, p, loc), loc);
  const Tensor& other = input ? w : x;
  const Shape& shape = input ? x.shape() : w.shape();
  Device& device = commonDevice(g, other, name, loc);
  // No output channels or no batch: nothing flows back.
  if (g.numel() == 0) return Tensor::zeros(dt, shape, device);
  Tensor out = Tensor::empty(dt, shape, device);
  if (out.numel() > 0) launch<Wrt>(device, dt, loc, as(g, dt), as(other, dt), p, out);
  return out;
}

Tensor conv2dGradInput(const Tensor& g, const Tensor& x, const Tensor& w, const ConvParams& p, SourceLoc loc) {
  return conv2dGrad<ir::Op::Conv2dGradInput>(g, x, w, p, loc);
}

Tensor conv2dGradWeight(const Tensor& g, const Tensor& x, const Tensor& w, const ConvParams& p, SourceLoc loc) {
  return conv2dGrad<ir::Op::Conv2dGradWeight>(g, x, w, p, loc);
}

Tensor pool2dReference(const Tensor& x, const PoolParams& p, bool isMax, SourceLoc) {
  int64_t OH = ir::shape_rules::windowCount(x.dim(2), p.kH, p.strideH, p.padH, p.dilH, p.ceilMode);
  int64_t OW = ir::shape_rules::windowCount(x.dim(3), p.kW, p.strideW, p.padW, p.dilW, p.ceilMode);
  Tensor out = Tensor::empty(DType::F64, {x.dim(0), x.dim(1), OH, OW}, x.device());
  pool2dLoop(as(x, DType::F64), p, isMax, out);
  return astype(out, isFloating(x.dtype()) ? x.dtype() : DType::F32);
}

Tensor pool2d(const Tensor& x, const PoolParams& p, bool isMax, SourceLoc loc) {
  Shape y = poolShape(isMax ? "max_pool2d" : "avg_pool2d", x, p, loc);
  DType dt = floatType(x.dtype());
  Tensor xf = as(x, dt);
  Tensor out = Tensor::empty(dt, y, x.device());
  if (out.numel() == 0) return out;
  if (isMax)
    launch<ir::Op::MaxPool2d>(x.device(), dt, loc, xf, p, out);
  else
    launch<ir::Op::AvgPool2d>(x.device(), dt, loc, xf, p, out);
  return out;
}

Tensor maxPool2dIndices(const Tensor& x, const PoolParams& p, SourceLoc loc) {
  Shape y = poolShape("max_pool2d", x, p, loc);
  DType dt = floatType(x.dtype());
  Tensor xf = as(x, dt);
  Tensor out = Tensor::empty(DType::I64, y, x.device());
  if (out.numel() > 0) launch<ir::Op::MaxPool2dIndices>(x.device(), dt, loc, xf, p, out);
  return out;
}

Tensor pool2dGrad(const Tensor& g, const Tensor& x, const PoolParams& p, bool isMax, SourceLoc loc) {
  DType dt = gradType("pool2d_grad", g, poolShape("pool2d_grad", x, p, loc), loc);
  Device& device = commonDevice(g, x, "pool2d_grad", loc);
  Tensor gf = as(g, dt), xf = as(x, dt);
  Tensor dx = Tensor::empty(dt, x.shape(), device);
  if (dx.numel() > 0) launch<ir::Op::Pool2dGrad>(device, dt, loc, gf, xf, p, isMax, dx);
  return dx;
}

Tensor batchNorm(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma, const Tensor* beta,
                 double eps, SourceLoc loc) {
  if (x.ndim() < 2) fail(loc, "batch_norm expects input [N, C, ...], got " + typeString(x));
  int64_t C = x.dim(1);
  for (const Tensor* t : {&mean, &var, gamma, beta})
    if (t && (t->ndim() != 1 || t->dim(0) != C))
      fail(loc, "batch_norm: statistics and affine parameters must be [" + std::to_string(C) + "], got " + typeString(*t));
  DType dt = floatType(x.dtype());
  for (const Tensor* t : {&mean, &var, gamma, beta})
    if (t) commonDevice(x, *t, "batch_norm", loc);
  Tensor xf = as(x, dt), mf = as(mean, dt), vf = as(var, dt);
  Tensor gf = gamma ? as(*gamma, dt) : Tensor(), bf = beta ? as(*beta, dt) : Tensor();
  Tensor out = Tensor::empty(dt, x.shape(), x.device());
  if (out.numel() > 0)
    launch<ir::Op::BatchNorm>(x.device(), dt, loc, xf, mf, vf, gamma ? &gf : nullptr, beta ? &bf : nullptr, eps, out);
  return out;
}

namespace {

// x's [rows, D] view over its last axis (D = 0: no rows), as layer_norm's
// kernels take it, in dtype dt and contiguous.
Tensor lastAxisRows(const Tensor& x, DType dt) {
  Tensor rows = as(x, dt);
  int64_t D = x.shape().back();
  Shape shape{D ? x.numel() / D : 0, D};
  return rows.view(shape, Tensor::contiguousStrides(shape), rows.offset());
}

void checkLayerNormAffine(const Tensor& x, std::initializer_list<const Tensor*> affine, const char* what,
                          SourceLoc loc) {
  if (x.ndim() < 1) fail(loc, std::string(what) + " of a 0-d tensor");
  int64_t D = x.shape().back();
  for (const Tensor* t : affine) {
    if (t && (t->ndim() != 1 || t->dim(0) != D))
      fail(loc, std::string(what) + ": gamma and beta must be [" + std::to_string(D) + "], got " + typeString(*t));
    if (t) commonDevice(x, *t, what, loc);
  }
}

}  // namespace

Tensor layerNorm(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, SourceLoc loc) {
  checkLayerNormAffine(x, {gamma, beta}, "layer_norm", loc);
  DType dt = floatType(x.dtype());
  // Normalising over the last axis is the same on the 2-D [rows, D] view.
  Tensor x2 = lastAxisRows(x, dt);
  Tensor gf = gamma ? as(*gamma, dt) : Tensor(), bf = beta ? as(*beta, dt) : Tensor();
  Tensor out = Tensor::empty(dt, x2.shape(), x.device());
  if (out.numel() > 0)
    launch<ir::Op::LayerNorm>(x.device(), dt, loc, x2, gamma ? &gf : nullptr, beta ? &bf : nullptr, eps, out);
  return out.view(x.shape(), Tensor::contiguousStrides(x.shape()), 0);
}

Tensor layerNormGrad(const Tensor& g, const Tensor& x, const Tensor* gamma, double eps, SourceLoc loc) {
  checkLayerNormAffine(x, {gamma}, "layer_norm_grad", loc);
  if (g.shape() != x.shape())
    fail(loc, "layer_norm_grad: the gradient must have the input's shape " + typeString(x) + ", got " + typeString(g));
  commonDevice(x, g, "layer_norm_grad", loc);
  DType dt = floatType(x.dtype());
  Tensor x2 = lastAxisRows(x, dt), g2 = lastAxisRows(g, dt);
  Tensor gf = gamma ? as(*gamma, dt) : Tensor();
  Tensor out = Tensor::empty(dt, x2.shape(), x.device());
  if (out.numel() > 0) launch<ir::Op::LayerNormGrad>(x.device(), dt, loc, g2, x2, gamma ? &gf : nullptr, eps, out);
  return out.view(x.shape(), Tensor::contiguousStrides(x.shape()), 0);
}

}  // namespace nn::rt
