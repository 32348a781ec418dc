// The gradient rules (see gradient.h) of the linear algebra ops, as
// PyTorch's (FunctionsManual.cpp), on each matrix of the last two dims:
// inverse (-R^T g R^T), the determinant (its cofactors, an op of their
// own, defined at singular matrices too, as PyTorch's) and the log of its
// absolute value (through the inverse: at a singular matrix, where it is
// -inf, the backward pass raises the inverse's LinAlgError), the Cholesky
// factor, the symmetric eigendecomposition (eigh's two halves, whose
// gradients add up to PyTorch's of the pair), and the singular value and
// QR decompositions (svd's three parts and qr's two, likewise).
#include "ir/gradient_matrices.h"
#include "support/diagnostics.h"

namespace nn::ir {

namespace {

// g [...] as [..., 1, 1], to scale each matrix.
Value* perMatrix(GradientBuilder& b, Value* g) {
  Value* column = b.emit(Op::Unsqueeze, {g}, {{"axis", int64_t{-1}}});
  return b.emit(Op::Unsqueeze, {column}, {{"axis", int64_t{-1}}});
}

}  // namespace

void GradInverse(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* rt = transposed(b, b.result());
  b.grads[0] = b.neg(matrixProduct(b, rt, matrixProduct(b, b.adjoint, rt)));
}

// d det(A) = cof(A), the matrix of cofactors (det(A) A^-T where A is
// invertible), as PyTorch's, also at a singular A.
void GradDet(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  b.grads[0] = b.mul(perMatrix(b, b.adjoint), b.emit(Op::Cofactor, {b.operands[0]}));
}

// The cofactors' derivative, as one op (cofactor_grad), whose own is not
// written: det's third derivative is a located error.
void GradCofactor(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::CofactorGrad, {b.adjoint, b.operands[0]});
}

// d log|det(A)| = A^-T.
void GradLogAbsDet(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  b.grads[0] = b.mul(perMatrix(b, b.adjoint), transposed(b, b.emit(Op::Inverse, {b.operands[0]})));
}

// A = L L^T: with P = tril(L^T gL) made symmetric from its lower half
// (the diagonal halved), gA = L^-T P L^-1 (of U = L^T with `upper`, L and
// gL are the transposes of U and gU).
void GradCholesky(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr* upperAttr = b.attr("upper");
  bool upper = upperAttr && std::holds_alternative<bool>(*upperAttr) && std::get<bool>(*upperAttr);
  Value* l = upper ? transposed(b, b.result()) : b.result();
  Value* gl = upper ? transposed(b, b.adjoint) : b.adjoint;
  Value* p = b.emit(Op::Tril, {matrixProduct(b, transposed(b, l), gl)}, {{"diagonal", int64_t{0}}});
  p = b.mul(b.constant(0.5), b.add(p, transposed(b, b.emit(Op::Tril, {p}, {{"diagonal", int64_t{-1}}}))));
  Value* linv = b.emit(Op::Inverse, {l});
  b.grads[0] = matrixProduct(b, transposed(b, linv), matrixProduct(b, p, linv));
}

// A = V diag(L) V^T: the eigenvalues' part of gA, V diag(gL) V^T.
void GradEigvalsh(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* v = b.emit(Op::EighVectors, {b.operands[0]});
  Value* scaled = b.mul(v, b.emit(Op::Unsqueeze, {b.adjoint}, {{"axis", int64_t{-2}}}));
  b.grads[0] = matrixProduct(b, scaled, transposed(b, v));
}

// The eigenvectors' part: V (skew(V^T gV) / E) V^T with E_ij = L_j - L_i,
// 0 on the diagonal (and, where PyTorch's divides by 0 for a repeated
// eigenvalue, between the vectors of one).
void GradEighVectors(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* v = b.result();
  Value* l = b.emit(Op::Eigvalsh, {b.operands[0]});
  Value* vtgv = matrixProduct(b, transposed(b, v), b.adjoint);
  vtgv = b.mul(b.constant(0.5), b.sub(vtgv, transposed(b, vtgv)));
  Value* gaps =
      b.sub(b.emit(Op::Unsqueeze, {l}, {{"axis", int64_t{-2}}}), b.emit(Op::Unsqueeze, {l}, {{"axis", int64_t{-1}}}));
  Value* same = b.emit(Op::Eq, {gaps, b.constant(0.0)});
  Value* inner =
      b.emit(Op::Where, {same, b.constant(0.0), b.div(vtgv, b.emit(Op::Where, {same, b.constant(1.0), gaps}))});
  b.grads[0] = matrixProduct(b, v, matrixProduct(b, inner, transposed(b, v)));
}

namespace {

// x / E with E_jk = S_k^2 - S_j^2, where E is 0 (the diagonal, a repeated
// singular value: PyTorch's divides there) x's entry 0.
Value* overGaps(GradientBuilder& b, Value* x, Value* s) {
  Value* s2 = b.mul(s, s);
  Value* gaps = b.sub(b.unsqueeze(s2, -2), b.unsqueeze(s2, -1));
  Value* same = b.emit(Op::Eq, {gaps, b.constant(0.0)});
  return b.emit(Op::Where, {same, b.constant(0.0), b.div(x, b.emit(Op::Where, {same, b.constant(1.0), gaps}))});
}

// The singular vectors' gradients are those of the reduced decomposition.
void reducedOnly(GradientBuilder& b) {
  const Attr* full = b.attr("full_matrices");
  if (full && std::holds_alternative<bool>(*full) && std::get<bool>(*full))
    fail(b.forward.loc(), "the gradient of svd with full_matrices=True is not supported: use full_matrices=False");
}

Value* svdPart(GradientBuilder& b, Op op) { return b.emit(op, {b.operands[0]}, {{"full_matrices", false}}); }

}  // namespace

// A = U diag(S) Vh: the values' part of gA, U diag(gS) Vh.
void GradSvdvals(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* u = svdPart(b, Op::SvdU);
  b.grads[0] = matrixProduct(b, b.mul(u, b.unsqueeze(b.adjoint, -2)), svdPart(b, Op::SvdVh));
}

// U's part (PyTorch's svd_backward with gU alone): U (skew(U^T gU) S / E)
// Vh + (I - U U^T) gU S^-1 Vh, skew(X) = X - X^T.
void GradSvdU(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  reducedOnly(b);
  Value* u = b.result();
  Value* s = b.emit(Op::Svdvals, {b.operands[0]});
  Value* vh = svdPart(b, Op::SvdVh);
  Value* utgu = matrixProduct(b, transposed(b, u), b.adjoint);
  Value* inner = overGaps(b, b.mul(b.sub(utgu, transposed(b, utgu)), b.unsqueeze(s, -2)), s);
  Value* gus = b.div(b.adjoint, b.unsqueeze(s, -2));
  Value* beside = b.sub(gus, matrixProduct(b, u, matrixProduct(b, transposed(b, u), gus)));
  b.grads[0] = matrixProduct(b, b.add(matrixProduct(b, u, inner), beside), vh);
}

// Vh's part: U (S skew(V^T gV) / E) Vh + U S^-1 gV^T (I - V V^T).
void GradSvdVh(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  reducedOnly(b);
  Value* vh = b.result();
  Value* v = transposed(b, vh);
  Value* gv = transposed(b, b.adjoint);
  Value* s = b.emit(Op::Svdvals, {b.operands[0]});
  Value* u = svdPart(b, Op::SvdU);
  Value* vtgv = matrixProduct(b, vh, gv);
  Value* inner = overGaps(b, b.mul(b.unsqueeze(s, -1), b.sub(vtgv, transposed(b, vtgv))), s);
  Value* gvs = b.div(gv, b.unsqueeze(s, -2));
  Value* beside = transposed(b, b.sub(gvs, matrixProduct(b, v, matrixProduct(b, vh, gvs))));
  b.grads[0] = matrixProduct(b, u, b.add(matrixProduct(b, inner, vh), beside));
}

namespace {

// The QR gradients are those of the reduced decomposition of an [m, n]
// matrix with m >= n (R square), where A's shape is known to say so.
void reducedTall(GradientBuilder& b) {
  const Attr* complete = b.attr("complete");
  bool tall = !(complete && std::holds_alternative<bool>(*complete) && std::get<bool>(*complete));
  const Type& a = b.forward.operand(0)->type();
  if (tall && a.shape && a.shape->size() >= 2) {
    const Dim &m = (*a.shape)[a.shape->size() - 2], &n = a.shape->back();
    tall = !(m.isKnown() && n.isKnown() && m.size < n.size);
  }
  if (!tall)
    fail(b.forward.loc(),
         "the gradient of qr is not supported for a complete decomposition or a matrix with more columns than "
         "rows");
}

// gA = (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q, copyltu(M) = tril(M)
// + tril(M, -1)^T (Walter and Lehmann's, PyTorch's for m >= n): with gQ
// or gR alone for each op.
Value* qrGradient(GradientBuilder& b, Value* q, Value* r, Value* gq, Value* m) {
  Value* lower = b.emit(Op::Tril, {m}, {{"diagonal", int64_t{0}}});
  Value* copied = b.add(lower, transposed(b, b.emit(Op::Tril, {m}, {{"diagonal", int64_t{-1}}})));
  Value* left = matrixProduct(b, q, copied);
  if (gq) left = b.add(gq, left);
  return matrixProduct(b, left, transposed(b, b.emit(Op::Inverse, {r})));
}

}  // namespace

void GradQrQ(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  reducedTall(b);
  Value* q = b.result();
  Value* r = b.emit(Op::QrR, {b.operands[0]}, {{"complete", false}});
  b.grads[0] = qrGradient(b, q, r, b.adjoint, b.neg(matrixProduct(b, transposed(b, b.adjoint), q)));
}

void GradQrR(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  reducedTall(b);
  Value* r = b.result();
  Value* q = b.emit(Op::QrQ, {b.operands[0]}, {{"complete", false}});
  b.grads[0] = qrGradient(b, q, r, nullptr, matrixProduct(b, r, transposed(b, b.adjoint)));
}

}  // namespace nn::ir
