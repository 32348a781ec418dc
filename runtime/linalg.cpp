// The linear algebra front ends (see linalg.h).
#include "runtime/linalg.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "ir/shape_rules.h"
#include "runtime/dispatch.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

// x as the kernels take it: contiguous matrices [..., m, n] (square ones
// for `square`) of a floating dtype and of sides LAPACK's int counts,
// checked with the words of the ops' shape rules (ir/shape_rules.cpp).
Tensor matrices(const Tensor& x, ir::Op op, bool square, SourceLoc loc) {
  std::string name = ir::shape_rules::linearAlgebraName(op);
  const char* shape = square ? "[..., n, n]" : "[..., m, n]";
  if (x.ndim() < 2)
    fail(loc, name + ": expects a matrix or a batch of matrices " + shape + ", not " + typeString(x),
         ErrorClass::ValueError);
  int64_t m = x.dim(x.ndim() - 2), n = x.dim(x.ndim() - 1);
  if (square && m != n)
    fail(loc, name + ": expects square matrices [..., n, n], not " + typeString(x), ErrorClass::ValueError);
  if (!isFloating(x.dtype()))
    fail(loc, name + ": expects a floating-point tensor, not " + typeString(x), ErrorClass::TypeError);
  if (std::max(m, n) > std::numeric_limits<int>::max())
    fail(loc, name + ": matrices of more than 2^31 - 1 rows or columns are beyond LAPACK, not " + typeString(x),
         ErrorClass::ValueError);
  return contiguousOnItsDevice(x, loc);
}

}  // namespace

Tensor inverse(const Tensor& x, SourceLoc loc) {
  Tensor in = matrices(x, ir::Op::Inverse, true, loc);
  Tensor out = Tensor::empty(in.dtype(), in.shape(), in.device());
  if (out.numel() > 0) launch<ir::Op::Inverse>(in.device(), in.dtype(), loc, in, out, loc);
  return out;
}

std::vector<Tensor> determinantParts(const Tensor& x, std::initializer_list<DetPart> parts, ir::Op op, SourceLoc loc) {
  Tensor in = matrices(x, op, true, loc);
  Shape shape(in.shape().begin(), in.shape().end() - 2);
  Tensor made[3];
  bool wanted[3] = {false, false, false};
  std::vector<Tensor> out;
  for (DetPart p : parts) {
    made[static_cast<int>(p)] = Tensor::empty(in.dtype(), shape, in.device());
    wanted[static_cast<int>(p)] = true;
    out.push_back(made[static_cast<int>(p)]);
  }
  if (out[0].numel() == 0) return out;
  if (in.dim(in.ndim() - 1) == 0) {  // a 0 x 0 matrix's determinant is 1 (its log 0)
    for (DetPart p : parts)
      launch<ir::Op::Full>(in.device(), in.dtype(), loc, p == DetPart::LogAbs ? 0.0 : 1.0, made[static_cast<int>(p)]);
    return out;
  }
  auto given = [&](DetPart p) { return wanted[static_cast<int>(p)] ? &made[static_cast<int>(p)] : nullptr; };
  launch<ir::Op::Det>(in.device(), in.dtype(), loc, in, given(DetPart::Value), given(DetPart::Sign),
                      given(DetPart::LogAbs));
  return out;
}

Tensor determinant(const Tensor& x, DetPart part, SourceLoc loc) {
  ir::Op op = part == DetPart::Value ? ir::Op::Det : part == DetPart::Sign ? ir::Op::DetSign : ir::Op::LogAbsDet;
  return determinantParts(x, {part}, op, loc)[0];
}

Tensor cofactor(const Tensor& x, const Tensor* g, SourceLoc loc) {
  Tensor in = matrices(x, g ? ir::Op::CofactorGrad : ir::Op::Cofactor, true, loc);
  Tensor adjoint;
  if (g) {
    if (g->shape() != in.shape())
      fail(loc, "det: the cofactors' adjoint " + typeString(*g) + " must have x's shape " + shapeString(in.shape()));
    adjoint = contiguousOnItsDevice(astype(*g, in.dtype()), loc);
  }
  Tensor out = Tensor::empty(in.dtype(), in.shape(), in.device());
  if (out.numel() > 0) launch<ir::Op::Cofactor>(in.device(), in.dtype(), loc, in, g ? &adjoint : nullptr, out, loc);
  return out;
}

std::pair<Tensor, Tensor> symmetricEigenParts(const Tensor& x, bool values, bool vectors, ir::Op op, SourceLoc loc) {
  Tensor in = matrices(x, op, true, loc);
  Shape valueShape(in.shape().begin(), in.shape().end() - 1);
  Tensor w = values ? Tensor::empty(in.dtype(), valueShape, in.device()) : Tensor();
  Tensor v = vectors ? Tensor::empty(in.dtype(), in.shape(), in.device()) : Tensor();
  if (in.numel() > 0)
    launch<ir::Op::Eigvalsh>(in.device(), in.dtype(), loc, in, values ? &w : nullptr, vectors ? &v : nullptr, loc);
  return {w, v};
}

Tensor symmetricEigen(const Tensor& x, bool vectors, SourceLoc loc) {
  auto [w, v] = symmetricEigenParts(x, !vectors, vectors, vectors ? ir::Op::EighVectors : ir::Op::Eigvalsh, loc);
  return vectors ? v : w;
}

SvdParts singularParts(const Tensor& x, bool full, bool values, bool vectors, ir::Op op, SourceLoc loc) {
  Tensor in = matrices(x, op, false, loc);
  int64_t m = in.dim(in.ndim() - 2), n = in.dim(in.ndim() - 1), k = std::min(m, n);
  Shape batch(in.shape().begin(), in.shape().end() - 2), sShape = batch, uShape = batch, vhShape = batch;
  sShape.push_back(k);
  uShape.push_back(m), uShape.push_back(full ? m : k);
  vhShape.push_back(full ? n : k), vhShape.push_back(n);
  SvdParts p;
  if (values) p.values = Tensor::empty(in.dtype(), sShape, in.device());
  if (vectors)
    p.u = Tensor::empty(in.dtype(), uShape, in.device()), p.vh = Tensor::empty(in.dtype(), vhShape, in.device());
  if (k == 0) {  // a full U or Vh of an empty matrix: the identity
    auto identity = [&](Tensor& t) {
      if (t.numel() > 0)
        t = contiguousOnItsDevice(
            broadcastTo(eye(in.dtype(), t.shape().back(), t.shape().back(), in.device(), loc), t.shape(), loc), loc);
    };
    if (vectors) identity(p.u), identity(p.vh);
    return p;
  }
  if (in.numel() == 0) return p;
  launch<ir::Op::Svdvals>(in.device(), in.dtype(), loc, in, full, values ? &p.values : nullptr,
                          vectors ? &p.u : nullptr, vectors ? &p.vh : nullptr, loc);
  return p;
}

Tensor singular(const Tensor& x, SvdPart part, bool full, SourceLoc loc) {
  ir::Op op = part == SvdPart::Values ? ir::Op::Svdvals : part == SvdPart::U ? ir::Op::SvdU : ir::Op::SvdVh;
  SvdParts p = singularParts(x, full, part == SvdPart::Values, part != SvdPart::Values, op, loc);
  return part == SvdPart::Values ? p.values : part == SvdPart::U ? p.u : p.vh;
}

std::pair<Tensor, Tensor> qrParts(const Tensor& x, bool complete, bool wantQ, bool wantR, SourceLoc loc) {
  Tensor in = matrices(x, ir::Op::QrQ, false, loc);
  int64_t m = in.dim(in.ndim() - 2), n = in.dim(in.ndim() - 1), k = complete ? m : std::min(m, n);
  Shape qShape(in.shape().begin(), in.shape().end() - 2), rShape = qShape;
  qShape.push_back(m), qShape.push_back(k);
  rShape.push_back(k), rShape.push_back(n);
  Tensor q = wantQ ? Tensor::empty(in.dtype(), qShape, in.device()) : Tensor();
  Tensor r = wantR ? Tensor::empty(in.dtype(), rShape, in.device()) : Tensor();
  if (m == 0 || n == 0) {  // R is all zeros; a complete Q of an m x 0 matrix the identity
    if (wantR && r.numel() > 0) launch<ir::Op::Full>(in.device(), in.dtype(), loc, 0.0, r);
    if (wantQ && q.numel() > 0)
      q = contiguousOnItsDevice(broadcastTo(eye(in.dtype(), m, k, in.device(), loc), qShape, loc), loc);
    return {q, r};
  }
  if (in.numel() > 0)
    launch<ir::Op::QrQ>(in.device(), in.dtype(), loc, in, complete, wantQ ? &q : nullptr, wantR ? &r : nullptr);
  return {q, r};
}

Tensor qrFactor(const Tensor& x, bool wantR, bool complete, SourceLoc loc) {
  auto [q, r] = qrParts(x, complete, !wantR, wantR, loc);
  return wantR ? r : q;
}

Tensor cholesky(const Tensor& x, bool upper, SourceLoc loc) {
  Tensor in = matrices(x, ir::Op::Cholesky, true, loc);
  Tensor out = Tensor::empty(in.dtype(), in.shape(), in.device());
  if (out.numel() > 0) launch<ir::Op::Cholesky>(in.device(), in.dtype(), loc, in, upper, out, loc);
  return out;
}

std::pair<Tensor, Tensor> luFactor(const Tensor& x, bool pivot, ir::Op op, SourceLoc loc) {
  Tensor in = matrices(x, op, false, loc);
  int64_t m = in.dim(in.ndim() - 2), n = in.dim(in.ndim() - 1);
  Shape pivotShape(in.shape().begin(), in.shape().end() - 2);
  pivotShape.push_back(std::min(m, n));
  Tensor lu = Tensor::empty(in.dtype(), in.shape(), in.device());
  Tensor pivots = Tensor::empty(DType::I32, pivotShape, in.device());
  if (in.numel() > 0) launch<ir::Op::LuFactor>(in.device(), in.dtype(), loc, in, pivot, lu, pivots);
  return {lu, pivots};
}

std::pair<Tensor, Tensor> ldlFactor(const Tensor& x, ir::Op op, SourceLoc loc) {
  Tensor in = matrices(x, op, true, loc);
  Tensor ld = Tensor::empty(in.dtype(), in.shape(), in.device());
  Tensor pivots = Tensor::empty(DType::I32, Shape(in.shape().begin(), in.shape().end() - 1), in.device());
  if (in.numel() > 0) launch<ir::Op::LdlFactor>(in.device(), in.dtype(), loc, in, ld, pivots);
  return {ld, pivots};
}

Tensor luPermutation(const Tensor& pivots, int64_t rows, bool inverse, SourceLoc loc) {
  if (pivots.ndim() < 1 || !isIntegral(pivots.dtype()))
    fail(loc, "lu_unpack: expects integer pivots [..., k], not " + typeString(pivots), ErrorClass::TypeError);
  int64_t k = pivots.dim(pivots.ndim() - 1);
  if (rows < k)
    fail(loc,
         "lu_unpack: " + std::to_string(k) + " pivots are more than the " + std::to_string(rows) +
             " rows of the factorised matrix",
         ErrorClass::ValueError);
  Tensor in = contiguousOnItsDevice(astype(pivots, DType::I32), loc);
  Shape shape(in.shape().begin(), in.shape().end() - 1);
  shape.push_back(rows);
  Tensor perm = Tensor::empty(DType::I64, shape, in.device());
  if (perm.numel() > 0) launch<ir::Op::LuPermutation>(in.device(), DType::I32, loc, in, inverse, perm, loc);
  return perm;
}

namespace {

// The operands of a solve with a [..., n, n] and b [..., n, k] (left) or
// [..., k, n], checked, promoted to one dtype and broadcast to one batch
// shape, contiguous; and the result's tensor.
struct SolveOperands {
  Tensor a, b, out;
};

SolveOperands solveOperands(const Tensor& a, const Tensor& b, ir::Op op, bool left, SourceLoc loc) {
  std::string name = ir::shape_rules::linearAlgebraName(op);
  Tensor t = matrices(a, op, true, loc);
  if (b.ndim() < 2)
    fail(loc,
         name + ": expects B to be a matrix or a batch of matrices " + (left ? "[..., n, k]" : "[..., k, n]") +
             ", not " + typeString(b),
         ErrorClass::ValueError);
  if (!isFloating(b.dtype()))
    fail(loc, name + ": expects a floating-point tensor, not " + typeString(b), ErrorClass::TypeError);
  if (std::max(b.dim(b.ndim() - 2), b.dim(b.ndim() - 1)) > std::numeric_limits<int>::max())
    fail(loc, name + ": matrices of more than 2^31 - 1 rows or columns are beyond BLAS, not " + typeString(b),
         ErrorClass::ValueError);
  int64_t n = t.dim(t.ndim() - 1), side = b.dim(b.ndim() - (left ? 2 : 1));
  if (n != side)
    fail(loc,
         name + ": A " + typeString(a) + " and B " + typeString(b) + " do not fit: B's " + (left ? "rows" : "columns") +
             " must be A's side",
         ErrorClass::ValueError);
  commonDevice(t, b, name.c_str(), loc);
  Shape tBatch(t.shape().begin(), t.shape().end() - 2), bBatch(b.shape().begin(), b.shape().end() - 2);
  std::optional<Shape> batch = tryBroadcastShapes(tBatch, bBatch);
  if (!batch)
    fail(loc, name + ": the batch dims of " + typeString(a) + " and " + typeString(b) + " do not broadcast",
         ErrorClass::ValueError);
  DType dt = promote(t.dtype(), b.dtype());
  Shape tShape = *batch, bShape = *batch;
  tShape.push_back(n), tShape.push_back(n);
  bShape.push_back(b.dim(b.ndim() - 2)), bShape.push_back(b.dim(b.ndim() - 1));
  return {contiguousOnItsDevice(broadcastTo(astype(t, dt), tShape, loc), loc),
          contiguousOnItsDevice(broadcastTo(astype(b, dt), bShape, loc), loc), Tensor::empty(dt, bShape, b.device())};
}

}  // namespace

Tensor solveTriangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unit, SourceLoc loc) {
  SolveOperands s = solveOperands(a, b, ir::Op::SolveTriangular, left, loc);
  if (s.out.numel() > 0)
    launch<ir::Op::SolveTriangular>(s.out.device(), s.out.dtype(), loc, s.a, s.b, upper, left, unit, s.out);
  return s.out;
}

Tensor ldlSolve(const Tensor& ld, const Tensor& pivots, const Tensor& b, SourceLoc loc) {
  SolveOperands s = solveOperands(ld, b, ir::Op::LdlSolve, true, loc);
  Shape factorBatch(ld.shape().begin(), ld.shape().end() - 1);
  if (!isIntegral(pivots.dtype()) || pivots.shape() != factorBatch)
    fail(loc,
         "linalg.ldl_solve: expects integer pivots " + shapeString(factorBatch) +
             " (LD's shape without its last dim), not " + typeString(pivots),
         isIntegral(pivots.dtype()) ? ErrorClass::ValueError : ErrorClass::TypeError);
  commonDevice(s.a, pivots, "linalg.ldl_solve", loc);
  // Wider pivots are checked before they are narrowed to LAPACK's int
  // (the kernel checks each against the factorisation's form).
  int64_t n = ld.dim(ld.ndim() - 1);
  if (pivots.dtype() != DType::I32 && pivots.numel() > 0) {
    auto extreme = [&](Reduction r) {
      return readableOnHost(reduce(pivots, r, {}, false, loc, "linalg.ldl_solve"), loc).flatAsInt(0);
    };
    int64_t low = extreme(Reduction::Min), high = extreme(Reduction::Max);
    if (low < -n || high > n)
      fail(loc,
           "linalg.ldl_solve: the pivot " + std::to_string(high > n ? high : low) + " is outside [-" +
               std::to_string(n) + ", " + std::to_string(n) + "], the rows of the factorised matrix",
           ErrorClass::ValueError);
  }
  Shape pivotShape(s.a.shape().begin(), s.a.shape().end() - 1);
  Tensor p = contiguousOnItsDevice(broadcastTo(astype(pivots, DType::I32), pivotShape, loc), loc);
  if (s.out.numel() > 0) launch<ir::Op::LdlSolve>(s.out.device(), s.out.dtype(), loc, s.a, p, s.b, s.out, loc);
  return s.out;
}

Tensor solve(const Tensor& a, const Tensor& b, SourceLoc loc) {
  SolveOperands s = solveOperands(a, b, ir::Op::Solve, true, loc);
  if (s.out.numel() > 0) launch<ir::Op::Solve>(s.out.device(), s.out.dtype(), loc, s.a, s.b, s.out, loc);
  return s.out;
}

}  // namespace nn::rt
