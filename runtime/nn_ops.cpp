// The front ends of matmul, linear, softmax, one_hot and the losses: shape
// checks with located errors, dtype promotion and the result's allocation;
// matmul and softmax then run their device's kernel (dispatch.h), linear
// and the losses are built from other ops.
#include "runtime/nn_ops.h"

#include <cmath>
#include <optional>

#include "runtime/dispatch.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

// Brings a and b to the same rank [..., M, K] / [..., K, N] and computes the
// broadcast output shape, or fails with both operand types.
struct MatmulPlan {
  Tensor a, b;
  Shape out;       // full-rank output shape
  Shape result;    // the shape returned (1-D operands drop their dimension)
};

MatmulPlan matmulPlan(const Tensor& a0, const Tensor& b0, SourceLoc loc) {
  // The message is made only for an error: a small matmul costs less than
  // formatting two types.
  auto mismatch = [&] { fail(loc, "shape mismatch in matmul: " + typeString(a0) + " @ " + typeString(b0)); };
  if (a0.ndim() == 0 || b0.ndim() == 0) fail(loc, "matmul needs tensors of at least one dimension: " + typeString(a0) + " @ " + typeString(b0));
  Tensor a = a0, b = b0;
  bool aVec = a.ndim() == 1, bVec = b.ndim() == 1;
  if (aVec) a = a.view({1, a.dim(0)}, {0, a.strides()[0]}, a.offset());
  if (bVec) b = b.view({b.dim(0), 1}, {b.strides()[0], 0}, b.offset());
  if (a.shape().back() != b.shape()[b.ndim() - 2]) mismatch();
  int rank = std::max(a.ndim(), b.ndim());
  auto lift = [&](const Tensor& t) {
    if (t.ndim() == rank) return t;
    Shape s = t.shape(), st = t.strides();
    s.insert(s.begin(), rank - t.ndim(), 1);
    st.insert(st.begin(), rank - t.ndim(), 0);
    return t.view(s, st, t.offset());
  };
  a = lift(a);
  b = lift(b);
  Shape out(rank);
  for (int d = 0; d < rank - 2; ++d) {
    int64_t x = a.dim(d), y = b.dim(d);
    if (x != y && x != 1 && y != 1) mismatch();
    out[d] = std::max(x, y);
  }
  out[rank - 2] = a.dim(rank - 2);
  out[rank - 1] = b.dim(rank - 1);
  Shape result(out.begin(), out.end() - 2);
  if (!aVec) result.push_back(out[rank - 2]);
  if (!bVec) result.push_back(out[rank - 1]);
  return {a, b, out, result};
}

Tensor finish(Tensor out, const MatmulPlan& p) {
  return out.view(p.result, Tensor::contiguousStrides(p.result), out.offset());
}

// The matmul's dtype: the promoted one, bool computed as i64.
DType matmulType(const Tensor& a, const Tensor& b) {
  DType dt = promote(a.dtype(), b.dtype());
  return dt == DType::Bool ? DType::I64 : dt;
}

}  // namespace

Tensor matmulReference(const Tensor& a0, const Tensor& b0, SourceLoc loc) {
  DType dt = matmulType(a0, b0);
  Device& device = commonDevice(a0, b0, "matmul", loc);
  MatmulPlan p = matmulPlan(astype(a0, dt), astype(b0, dt), loc);
  Tensor out = Tensor::empty(dt, p.out, device);
  matmulLoop(p.a, p.b, out);
  return finish(out, p);
}

Tensor matmul(const Tensor& a0, const Tensor& b0, SourceLoc loc) {
  // Two matrices of one dtype on one device: nothing to promote, lift or
  // broadcast (a small product costs little more than this front end).
  if (a0.ndim() == 2 && b0.ndim() == 2 && a0.dtype() == b0.dtype() && a0.dtype() != DType::Bool &&
      a0.dim(1) == b0.dim(0) && a0.dim(1) > 0 && &a0.device() == &b0.device()) {
    Tensor out = Tensor::empty(a0.dtype(), {a0.dim(0), b0.dim(1)}, a0.device());
    if (out.numel() > 0) launch<ir::Op::MatMul>(a0.device(), a0.dtype(), loc, a0, b0, out);
    return out;
  }
  DType dt = matmulType(a0, b0);
  Device& device = commonDevice(a0, b0, "matmul", loc);
  MatmulPlan p = matmulPlan(astype(a0, dt), astype(b0, dt), loc);
  if (p.a.dim(p.a.ndim() - 1) == 0) return finish(fullLike(dt, p.out, 0.0, device), p);
  Tensor out = Tensor::empty(dt, p.out, device);
  if (out.numel() > 0) launch<ir::Op::MatMul>(device, dt, loc, p.a, p.b, out);
  return finish(out, p);
}

// Whether the device's one-kernel linear applies: f32 throughout, a vector
// bias of the output size (or none), nothing empty.
static bool oneKernelLinear(const Tensor& x, const Tensor& w, const Tensor* bias) {
  auto f32Here = [&](const Tensor& t) { return t.dtype() == DType::F32 && &t.device() == &x.device(); };
  if (!f32Here(x) || !f32Here(w) || x.ndim() < 1 || x.dim(x.ndim() - 1) != w.dim(1) || x.numel() == 0 ||
      w.numel() == 0)
    return false;
  if (bias && (!f32Here(*bias) || bias->ndim() != 1 || bias->dim(0) != w.dim(0))) return false;
  return x.device().kernels().has(ir::Op::Linear, DType::F32);
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias, SourceLoc loc) {
  if (w.ndim() != 2) fail(loc, "linear: weight must be 2-D [out, in], got " + typeString(w));
  if (oneKernelLinear(x, w, bias)) {
    // The leading dims of x are the matmul's rows.
    int64_t k = w.dim(1), n = w.dim(0);
    // A contiguous matrix is its own rows (no copy of the handle either).
    bool matrix = x.ndim() == 2;
    std::optional<Tensor> folded;
    if (!matrix || !x.isContiguous()) folded = reshape(x.contiguous(), {x.numel() / k, k}, loc);
    const Tensor& rows = folded ? *folded : x;
    Tensor out = Tensor::empty(DType::F32, {rows.dim(0), n}, x.device());
    // A transposed row-major [K, N] (what `x @ w + b` becomes) is read in
    // place, as is a row-major [N, K].
    bool inPlace = (w.strides()[0] == w.dim(1) && w.strides()[1] == 1) || (w.strides()[0] == 1 && w.strides()[1] == w.dim(0));
    Tensor weights = inPlace ? w : w.contiguous();
    std::optional<Tensor> b = bias ? std::optional<Tensor>(bias->contiguous()) : std::nullopt;
    launch<ir::Op::Linear>(x.device(), DType::F32, loc, rows, weights, b ? &*b : nullptr, out);
    if (matrix) return out;
    Shape shape = x.shape();
    shape.back() = n;
    return reshape(out, shape, loc);
  }
  Tensor y = matmul(x, transpose(w, {}, loc), loc);
  if (!bias) return y;
  return tensorOf(tensorBinary(ir::Op::Add, makeTensorValue(y), makeTensorValue(*bias), loc));
}

Tensor softmax(const Tensor& x0, int64_t axis, bool log, SourceLoc loc) {
  const char* name = log ? "log_softmax" : "softmax";
  if (x0.ndim() == 0) fail(loc, std::string(name) + " of a 0-d tensor");
  int64_t a = axis < 0 ? axis + x0.ndim() : axis;
  if (a < 0 || a >= x0.ndim())
    fail(loc, std::string(name) + ": axis " + std::to_string(axis) + " is out of bounds for " + typeString(x0));
  Tensor x = (isFloating(x0.dtype()) ? x0 : astype(x0, DType::F32)).contiguous();
  Tensor out = Tensor::empty(x.dtype(), x.shape(), x.device());
  if (out.numel() == 0) return out;
  if (log)
    launch<ir::Op::LogSoftmax>(x.device(), x.dtype(), loc, x, static_cast<int>(a), out);
  else
    launch<ir::Op::Softmax>(x.device(), x.dtype(), loc, x, static_cast<int>(a), out);
  return out;
}

Tensor dropout(const Tensor& x, double p, RandomGenerator& rng, SourceLoc loc) {
  DType dt = isFloating(x.dtype()) ? x.dtype() : DType::F32;
  Tensor in = astype(x, dt).contiguous();
  Tensor out = Tensor::empty(dt, x.shape(), x.device());
  if (out.numel() > 0) launch<ir::Op::Dropout>(x.device(), dt, loc, in, p, rng, out);
  return out;
}

Tensor oneHot(const Tensor& labels, int64_t n, SourceLoc loc) {
  if (!isIntegral(labels.dtype())) fail(loc, "one_hot: labels must be an integer tensor, got " + typeString(labels));
  if (n <= 0) fail(loc, "one_hot: number of classes must be positive");
  Shape s = labels.shape();
  s.push_back(n);
  Tensor out = Tensor::zeros(DType::I64, s, labels.device());
  int64_t bad = 0;
  if (!launch<ir::Op::OneHot>(labels.device(), labels.dtype(), loc, labels.contiguous(), out, bad))
    fail(loc, "one_hot: label " + std::to_string(bad) + " is out of range for " + std::to_string(n) + " classes");
  return out;
}

namespace {

Tensor reduced(const Tensor& loss, LossReduction r, SourceLoc loc, const char* name) {
  if (r == LossReduction::None) return loss;
  return reduce(loss, r == LossReduction::Sum ? Reduction::Sum : Reduction::Mean, {}, false, loc, name);
}

}  // namespace

Tensor mseLoss(const Tensor& a, const Tensor& b, LossReduction r, SourceLoc loc) {
  Value d = tensorBinary(ir::Op::Sub, makeTensorValue(a), makeTensorValue(b), loc);
  Value sq = tensorBinary(ir::Op::Mul, d, d, loc, kConsumeFirst);  // squared in place
  return reduced(tensorOf(sq), r, loc, "mse_loss");
}

Tensor binaryCrossEntropy(const Tensor& p, const Tensor& y, const Tensor* weight, LossReduction r, SourceLoc loc) {
  if (p.shape() != y.shape())
    fail(loc, "binary_cross_entropy: shapes differ: " + typeString(p) + " and " + typeString(y));
  Device& device = commonDevice(p, y, "binary_cross_entropy", loc);
  DType dt = isFloating(p.dtype()) ? p.dtype() : DType::F32;
  Tensor out = Tensor::empty(dt, {}, device);
  // The kernel checks the probabilities (and computes the plain mean).
  if (!launch<ir::Op::BinaryCrossEntropy>(device, dt, loc, astype(p, dt).contiguous(), astype(y, dt).contiguous(), out))
    fail(loc, "binary_cross_entropy: probabilities must be in [0, 1]");
  if (!weight && r == LossReduction::Mean) return out;
  // -(y max(log p, -100) + (1 - y) max(log(1 - p), -100)) elementwise, as
  // PyTorch's, times the weight.
  auto value = [](const Tensor& t) { return makeTensorValue(t); };
  Value pv = value(astype(p, dt)), yv = value(astype(y, dt));
  auto clampedLog = [&](const Value& v) {
    return mathBinary(ir::Op::Maximum, mathUnary(ir::Op::Log, v, loc), Value::real(-100.0), loc);
  };
  Value q = tensorBinary(ir::Op::Sub, Value::real(1.0), pv, loc);
  Value picked = tensorBinary(ir::Op::Add, tensorBinary(ir::Op::Mul, yv, clampedLog(pv), loc),
                              tensorBinary(ir::Op::Mul, tensorBinary(ir::Op::Sub, Value::real(1.0), yv, loc),
                                           clampedLog(q), loc),
                              loc);
  Value loss = tensorBinary(ir::Op::Mul, picked, Value::real(-1.0), loc);
  if (weight) {
    commonDevice(p, *weight, "binary_cross_entropy", loc);
    loss = tensorBinary(ir::Op::Mul, loss, value(*weight), loc);
  }
  return reduced(tensorOf(loss), r, loc, "binary_cross_entropy");
}

}  // namespace nn::rt
