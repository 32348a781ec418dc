// The gradient rules (see gradient.h) of the triangular and general solves
// and the LU factorisation, on each matrix of the last two dims, written
// in ops that have rules of their own (solves, triangles, matrix
// products), so that second derivatives follow.
//
// LU: with A = P L U of A [m, n], k = min(m, n), L [m, k] unit lower and U
// [k, n] upper triangular, and gL, gU the adjoint's strict lower and upper
// parts: for m <= n (L square, U = [U1 U2])
//   gA = P L^-T ([tril(L^T gL - gU U^T, -1) U1^-T, 0] + gU),
// and for m > n (U square, L = [L1; L2])
//   gA = P ([L1^-T triu(gU U^T - L^T gL); 0] + gL) U^-T,
// both PyTorch's (linalg_lu_backward), found by differentiating A = P L U
// and taking the adjoint. A zero on U's diagonal gives infinities, as
// PyTorch's.
#include <algorithm>

#include "ir/gradient_matrices.h"
#include "support/diagnostics.h"

namespace nn::ir {

namespace {

bool flag(GradientBuilder& b, const char* name, bool dflt) {
  const Attr* a = b.attr(name);
  return a && std::holds_alternative<bool>(*a) ? std::get<bool>(*a) : dflt;
}

Value* triangle(GradientBuilder& b, Value* v, bool upper, int64_t diagonal) {
  return b.emit(upper ? Op::Triu : Op::Tril, {v}, {{"diagonal", diagonal}});
}

// X with T X = rhs (left) or X T = rhs, T a's upper or lower triangle.
Value* solve(GradientBuilder& b, Value* a, Value* rhs, bool upper, bool left, bool unit = false) {
  return b.emit(Op::SolveTriangular, {a, rhs}, {{"upper", upper}, {"left", left}, {"unitriangular", unit}});
}

// v[..., r0:r1, c0:c1].
Value* block(GradientBuilder& b, Value* v, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  Value* none = b.literal(NoneAttr{});
  std::vector<Value*> index{b.emit(Op::Builtin, {}, {{"name", std::string("Ellipsis")}}),
                            b.emit(Op::MakeSlice, {b.literal(r0), b.literal(r1), none}),
                            b.emit(Op::MakeSlice, {b.literal(c0), b.literal(c1), none})};
  return b.emit(Op::GetItem, {v, b.emit(Op::MakeTuple, index)});
}

}  // namespace

// X = T^-1 B: gB = T^-T gX, gT = -gB X^T; X = B T^-1: gB = gX T^-T, gT =
// -X^T gB; gT kept on T's triangle (without the diagonal where it is taken
// as ones), each summed over the batch dims the broadcast added.
void GradSolveTriangular(GradientBuilder& b) {
  bool upper = flag(b, "upper", false), left = flag(b, "left", true), unit = flag(b, "unitriangular", false);
  Value* a = b.operands[0];
  Value* gb = solve(b, transposed(b, a), b.adjoint, !upper, left, unit);
  if (b.wanted[1]) b.grads[1] = b.sumTo(gb, b.operands[1]);
  if (!b.wanted[0]) return;
  Value* x = b.result();
  Value* ga = b.neg(left ? matrixProduct(b, gb, transposed(b, x)) : matrixProduct(b, transposed(b, x), gb));
  b.grads[0] = b.sumTo(triangle(b, ga, upper, unit ? (upper ? 1 : -1) : 0), a);
}

// X = A^-1 B: gB = A^-T gX, a solve of its own (so that every order
// follows), gA = -gB X^T, each summed over the batch dims the broadcast
// added.
void GradSolve(GradientBuilder& b) {
  Value* gb = b.emit(Op::Solve, {transposed(b, b.operands[0]), b.adjoint});
  if (b.wanted[1]) b.grads[1] = b.sumTo(gb, b.operands[1]);
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.neg(matrixProduct(b, gb, transposed(b, b.result()))), b.operands[0]);
}

// X = A^-1 b with A symmetric: b's gradient is A^-1 g, the same solve of
// the adjoint (summed to b's shape where b was broadcast).
void GradLdlSolve(GradientBuilder& b) {
  if (b.wanted[0])
    fail(b.forward.loc(), "the gradient of ldl_solve with respect to LD is not supported (PyTorch's has none either)");
  if (b.wanted[2]) b.grads[2] = b.sumTo(b.emit(Op::LdlSolve, {b.operands[0], b.operands[1], b.adjoint}), b.operands[2]);
}

void GradLuFactor(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Type& a = b.forward.operand(0)->type();
  const DimList* d = a.shape ? &*a.shape : nullptr;
  if (!d || d->size() < 2 || !(*d)[d->size() - 2].isKnown() || !d->back().isKnown())
    fail(b.forward.loc(), "the gradient of lu_factor is not supported where the matrices' sizes are not known");
  int64_t m = (*d)[d->size() - 2].size, n = d->back().size, k = std::min(m, n);
  if (k == 0) {  // an empty A
    b.grads[0] = b.mul(b.adjoint, b.constant(0.0));
    return;
  }
  Value* lu = b.result();
  // The leading k x k block's transpose: L1^T above its (unit) diagonal,
  // U1^T on and below it.
  Value* squareT = transposed(b, block(b, lu, 0, k, 0, k));
  Value* l = block(b, triangle(b, lu, false, -1), 0, m, 0, k);  // L less its unit diagonal
  Value* u = block(b, triangle(b, lu, true, 0), 0, k, 0, n);
  Value* gl = block(b, triangle(b, b.adjoint, false, -1), 0, m, 0, k);
  Value* gu = block(b, triangle(b, b.adjoint, true, 0), 0, k, 0, n);
  // L^T gL, L = l + I[m, k]: I's part is gL's first k rows.
  Value* ltgl = b.add(matrixProduct(b, transposed(b, l), gl), block(b, gl, 0, k, 0, k));
  Value* gutu = matrixProduct(b, gu, transposed(b, u));
  Value* g;
  if (m <= n) {
    Value* inner = solve(b, squareT, triangle(b, b.sub(ltgl, gutu), false, -1), false, false);
    if (n > k) inner = b.emit(Op::Pad, {inner}, {{"widths", Ints{0, n - k}}});
    g = solve(b, squareT, b.add(inner, gu), true, true, true);
  } else {
    Value* inner = solve(b, squareT, triangle(b, b.sub(gutu, ltgl), true, 0), true, true, true);
    inner = b.emit(Op::Pad, {inner}, {{"widths", Ints{0, 0, 0, m - k}}});
    g = solve(b, squareT, b.add(inner, gl), false, false);
  }
  // gA = P g, row i of which is row perm[i] of g, with the pivots of the
  // factorisation run again (the rule sees the forward's LU, not its
  // pivots).
  if (flag(b, "pivot", true)) {
    Value* pivots = b.emit(Op::LuPivots, {b.operands[0]}, {{"pivot", true}});
    Value* perm = b.emit(Op::Unsqueeze, {b.emit(Op::LuPermutation, {pivots}, {{"rows", m}, {"inverse", false}})},
                         {{"axis", int64_t(-1)}});
    Value* rows = b.add(perm, b.emit(Op::ZerosLike, {g}, {{"dtype", std::string("i64")}}));
    g = b.emit(Op::Gather, {g, rows}, {{"axis", static_cast<int64_t>(d->size()) - 2}});
  }
  b.grads[0] = g;
}

}  // namespace nn::ir
