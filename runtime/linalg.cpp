// The linear algebra front ends (see linalg.h).
#include "runtime/linalg.h"

#include <algorithm>
#include <string>

#include "runtime/dispatch.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

// x as the kernels take it: contiguous matrices [..., n, n] of a floating
// dtype, checked with the words of the ops' shape rule
// (ir/shape_rules.cpp squareMatrices).
Tensor matrices(const Tensor& x, const char* name, SourceLoc loc) {
  if (x.ndim() < 2)
    fail(loc, std::string(name) + ": expects a matrix or a batch of matrices [..., n, n], not " + typeString(x),
         ErrorClass::ValueError);
  if (x.dim(x.ndim() - 1) != x.dim(x.ndim() - 2))
    fail(loc, std::string(name) + ": expects square matrices [..., n, n], not " + typeString(x),
         ErrorClass::ValueError);
  if (!isFloating(x.dtype()))
    fail(loc, std::string(name) + ": expects a floating-point tensor, not " + typeString(x), ErrorClass::TypeError);
  return contiguousOnItsDevice(x, loc);
}

}  // namespace

Tensor inverse(const Tensor& x, SourceLoc loc) {
  Tensor in = matrices(x, "inverse", loc);
  Tensor out = Tensor::empty(in.dtype(), in.shape(), in.device());
  if (out.numel() > 0) launch<ir::Op::Inverse>(in.device(), in.dtype(), loc, in, out, loc);
  return out;
}

Tensor determinant(const Tensor& x, DetPart part, SourceLoc loc) {
  const char* name = part == DetPart::Value ? "det" : "slogdet";
  Tensor in = matrices(x, name, loc);
  Shape shape(in.shape().begin(), in.shape().end() - 2);
  Tensor out = Tensor::empty(in.dtype(), shape, in.device());
  if (out.numel() == 0) return out;
  if (in.dim(in.ndim() - 1) == 0)  // a 0 x 0 matrix's determinant is 1 (its log 0)
    launch<ir::Op::Full>(in.device(), in.dtype(), loc, part == DetPart::LogAbs ? 0.0 : 1.0, out);
  else
    launch<ir::Op::Det>(in.device(), in.dtype(), loc, in, part, out);
  return out;
}

Tensor symmetricEigen(const Tensor& x, bool vectors, SourceLoc loc) {
  Tensor in = matrices(x, "eigh", loc);
  Shape shape(in.shape().begin(), in.shape().end() - (vectors ? 0 : 1));
  Tensor out = Tensor::empty(in.dtype(), shape, in.device());
  if (out.numel() > 0) launch<ir::Op::Eigvalsh>(in.device(), in.dtype(), loc, in, vectors, out, loc);
  return out;
}

Tensor singular(const Tensor& x, SvdPart part, bool full, SourceLoc loc) {
  if (x.ndim() < 2)
    fail(loc, "svd: expects a matrix or a batch of matrices [..., m, n], not " + typeString(x), ErrorClass::ValueError);
  if (!isFloating(x.dtype()))
    fail(loc, "svd: expects a floating-point tensor, not " + typeString(x), ErrorClass::TypeError);
  Tensor in = contiguousOnItsDevice(x, loc);
  int64_t m = in.dim(in.ndim() - 2), n = in.dim(in.ndim() - 1), k = std::min(m, n);
  Shape shape(in.shape().begin(), in.shape().end() - 2);
  if (part == SvdPart::Values) shape.push_back(k);
  if (part == SvdPart::U) shape.push_back(m), shape.push_back(full ? m : k);
  if (part == SvdPart::Vh) shape.push_back(full ? n : k), shape.push_back(n);
  Tensor out = Tensor::empty(in.dtype(), shape, in.device());
  if (out.numel() == 0) return out;
  if (k == 0)  // a full U or Vh of an empty matrix: the identity
    return contiguousOnItsDevice(broadcastTo(eye(in.dtype(), shape.back(), shape.back(), in.device(), loc), shape, loc),
                                 loc);
  launch<ir::Op::Svdvals>(in.device(), in.dtype(), loc, in, part, full, out, loc);
  return out;
}

Tensor qrFactor(const Tensor& x, bool wantR, bool complete, SourceLoc loc) {
  if (x.ndim() < 2)
    fail(loc, "qr: expects a matrix or a batch of matrices [..., m, n], not " + typeString(x), ErrorClass::ValueError);
  if (!isFloating(x.dtype())) fail(loc, "qr: expects a floating-point tensor, not " + typeString(x), ErrorClass::TypeError);
  Tensor in = contiguousOnItsDevice(x, loc);
  int64_t m = in.dim(in.ndim() - 2), n = in.dim(in.ndim() - 1), k = complete ? m : std::min(m, n);
  Shape shape(in.shape().begin(), in.shape().end() - 2);
  if (wantR) shape.push_back(k), shape.push_back(n);
  else shape.push_back(m), shape.push_back(k);
  Tensor out = Tensor::empty(in.dtype(), shape, in.device());
  if (out.numel() == 0) return out;
  if (m == 0 || n == 0) {  // R is all zeros; a complete Q of an m x 0 matrix the identity
    if (wantR) launch<ir::Op::Full>(in.device(), in.dtype(), loc, 0.0, out);
    else return contiguousOnItsDevice(broadcastTo(eye(in.dtype(), m, k, in.device(), loc), shape, loc), loc);
    return out;
  }
  launch<ir::Op::QrQ>(in.device(), in.dtype(), loc, in, wantR, complete, out);
  return out;
}

Tensor cholesky(const Tensor& x, bool upper, SourceLoc loc) {
  Tensor in = matrices(x, "cholesky", loc);
  Tensor out = Tensor::empty(in.dtype(), in.shape(), in.device());
  if (out.numel() > 0) launch<ir::Op::Cholesky>(in.device(), in.dtype(), loc, in, upper, out, loc);
  return out;
}

}  // namespace nn::rt
