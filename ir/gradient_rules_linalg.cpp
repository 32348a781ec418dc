// The gradient rules (see gradient.h) of the linear algebra ops, as
// PyTorch's (FunctionsManual.cpp), on each matrix of the last two dims:
// inverse (-R^T g R^T), the determinant and the log of its absolute value
// (through the inverse: at a singular matrix the backward pass raises the
// inverse's LinAlgError, where PyTorch's det takes an SVD), the Cholesky
// factor, and the symmetric eigendecomposition (eigh's two halves, whose
// gradients add up to PyTorch's of the pair).
#include "ir/gradient.h"

namespace nn::ir {

namespace {

Value* transposed(GradientBuilder& b, Value* v) { return b.emit(Op::Transpose, {v}, {{"axes", Ints{-2, -1}}}); }

Value* matmul(GradientBuilder& b, Value* x, Value* y) { return b.emit(Op::MatMul, {x, y}); }

// g [...] as [..., 1, 1], to scale each matrix.
Value* perMatrix(GradientBuilder& b, Value* g) {
  Value* column = b.emit(Op::Unsqueeze, {g}, {{"axis", int64_t{-1}}});
  return b.emit(Op::Unsqueeze, {column}, {{"axis", int64_t{-1}}});
}

}  // namespace

void GradInverse(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* rt = transposed(b, b.result());
  b.grads[0] = b.neg(matmul(b, rt, matmul(b, b.adjoint, rt)));
}

// d det(A) = det(A) A^-T.
void GradDet(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* scale = perMatrix(b, b.mul(b.adjoint, b.result()));
  b.grads[0] = b.mul(scale, transposed(b, b.emit(Op::Inverse, {b.operands[0]})));
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
  Value* p = b.emit(Op::Tril, {matmul(b, transposed(b, l), gl)}, {{"diagonal", int64_t{0}}});
  p = b.mul(b.constant(0.5), b.add(p, transposed(b, b.emit(Op::Tril, {p}, {{"diagonal", int64_t{-1}}}))));
  Value* linv = b.emit(Op::Inverse, {l});
  b.grads[0] = matmul(b, transposed(b, linv), matmul(b, p, linv));
}

// A = V diag(L) V^T: the eigenvalues' part of gA, V diag(gL) V^T.
void GradEigvalsh(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* v = b.emit(Op::EighVectors, {b.operands[0]});
  Value* scaled = b.mul(v, b.emit(Op::Unsqueeze, {b.adjoint}, {{"axis", int64_t{-2}}}));
  b.grads[0] = matmul(b, scaled, transposed(b, v));
}

// The eigenvectors' part: V (skew(V^T gV) / E) V^T with E_ij = L_j - L_i,
// 0 on the diagonal (and, where PyTorch's divides by 0 for a repeated
// eigenvalue, between the vectors of one).
void GradEighVectors(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* v = b.result();
  Value* l = b.emit(Op::Eigvalsh, {b.operands[0]});
  Value* vtgv = matmul(b, transposed(b, v), b.adjoint);
  vtgv = b.mul(b.constant(0.5), b.sub(vtgv, transposed(b, vtgv)));
  Value* gaps = b.sub(b.emit(Op::Unsqueeze, {l}, {{"axis", int64_t{-2}}}), b.emit(Op::Unsqueeze, {l}, {{"axis", int64_t{-1}}}));
  Value* same = b.emit(Op::Eq, {gaps, b.constant(0.0)});
  Value* inner = b.emit(Op::Where, {same, b.constant(0.0), b.div(vtgv, b.emit(Op::Where, {same, b.constant(1.0), gaps}))});
  b.grads[0] = matmul(b, v, matmul(b, inner, transposed(b, v)));
}

}  // namespace nn::ir
