// Linear algebra of tensors of matrices [..., n, n], each matrix on its
// own (the leading dims a batch): the inverse, the determinant, its sign
// and the logarithm of its absolute value, the Cholesky factor, the
// eigenvalues and eigenvectors of symmetric matrices, the singular value,
// QR and LU decompositions (of any [..., m, n]) and triangular solves. The
// front ends check the operands (rank 2 or more, square, floating: PyTorch
// refuses integers) with located errors, as the ops' shape rules word
// them, and run the device's kernel (LAPACK's on the CPU,
// kernels_cpu_linalg.cpp and kernels_cpu_lu.cpp). A singular matrix
// (inverse) or one that is not positive-definite (cholesky) is a
// LinAlgError naming the batch element.
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "runtime/kernels.h"
#include "runtime/tensor.h"

namespace nn::rt {

Tensor inverse(const Tensor& x, SourceLoc loc);
// det (DetPart::Value), det_sign and log_abs_det: x's shape less the last
// two dims.
Tensor determinant(const Tensor& x, DetPart part, SourceLoc loc);
// The parts asked for (in that order) of one factorisation.
std::vector<Tensor> determinantParts(const Tensor& x, std::initializer_list<DetPart> parts, ir::Op op, SourceLoc loc);
// The cofactors of each matrix (det's gradient), or with g the adjoint of
// the cofactor map at x (its second derivative): both defined at singular
// matrices too.
Tensor cofactor(const Tensor& x, const Tensor* g, SourceLoc loc);
Tensor cholesky(const Tensor& x, bool upper, SourceLoc loc);
// eigvalsh (the eigenvalues [..., n]) or, with `vectors`, eigh's
// eigenvectors [..., n, n]; or the two asked for of one decomposition
// (`op` names it in errors).
Tensor symmetricEigen(const Tensor& x, bool vectors, SourceLoc loc);
std::pair<Tensor, Tensor> symmetricEigenParts(const Tensor& x, bool values, bool vectors, ir::Op op, SourceLoc loc);
// svdvals, svd's U or its Vh (full: square U and Vh); or the values and
// (with `vectors`) U and Vh of one decomposition.
Tensor singular(const Tensor& x, SvdPart part, bool full, SourceLoc loc);
struct SvdParts {
  Tensor values, u, vh;
};
SvdParts singularParts(const Tensor& x, bool full, bool values, bool vectors, ir::Op op, SourceLoc loc);
// qr's Q or (wantR) its R, reduced or complete; or the two asked for of
// one decomposition.
Tensor qrFactor(const Tensor& x, bool wantR, bool complete, SourceLoc loc);
std::pair<Tensor, Tensor> qrParts(const Tensor& x, bool complete, bool wantQ, bool wantR, SourceLoc loc);
// lu_factor's packed L and U of each [m, n] matrix and lu_pivots' row
// exchanges, i32 [..., min(m, n)], of one factorisation (partial pivoting
// or none); `op` (either) names it in errors.
std::pair<Tensor, Tensor> luFactor(const Tensor& x, bool pivot, ir::Op op, SourceLoc loc);
// ldl_factor's packed L and D of each symmetric [n, n] matrix (its lower
// triangle read) and ldl_pivots' interchanges, i32 [..., n], of one
// factorisation; `op` (either) names it in errors.
std::pair<Tensor, Tensor> ldlFactor(const Tensor& x, ir::Op op, SourceLoc loc);
// X with A X = b from ldl_factor's (ld, pivots) of A, ld [..., n, n],
// pivots [..., n] (integers) and b [..., n, k], the batch dims of ld and
// b broadcast.
Tensor ldlSolve(const Tensor& ld, const Tensor& pivots, const Tensor& b, SourceLoc loc);
// P of the row exchanges pivots [..., k] (integers) as indices, i64 [...,
// rows]: P[i, perm[i]] = 1; P^T's with inverse (row r of L U is row
// perm[r] of A).
Tensor luPermutation(const Tensor& pivots, int64_t rows, bool inverse, SourceLoc loc);
// X with T X = b (left) or X T = b, T a's upper (lower) triangle, its
// diagonal ones with unit; a [..., n, n] and b's batch dims broadcast.
Tensor solveTriangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unit, SourceLoc loc);
// X with A X = b, a [..., n, n] and b [..., n, k], the batch dims
// broadcast; a singular A raises LinAlgError (linalg.solve).
Tensor solve(const Tensor& a, const Tensor& b, SourceLoc loc);

}  // namespace nn::rt
