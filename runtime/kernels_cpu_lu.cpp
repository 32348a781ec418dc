// CPU kernels of the LU factorisation (lu_factor and lu_pivots: LAPACK's
// getrf with partial pivoting, or Doolittle's elimination without), the
// permutation its row exchanges make (lu_permutation), triangular solves
// (BLAS's trsm) and general ones (getrf, then trsm), and of the symmetric
// indefinite LDL^T factorisation and its solve (LAPACK's sytrf and
// sytrs), one matrix of the batch at a time. LAPACK reads matrices column
// by column: getrf factors a column-major copy of each matrix, read back
// row by row; a row-major triangular system T X = B is the column-major
// X^T T^T = B^T, which trsm solves from the right on the matrices as they
// lie.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/kernel_loops.h"

extern "C" {
// LAPACK's and BLAS's Fortran interfaces: arguments by address.
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb);
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
             int* info);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork,
             int* info);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv, float* b,
             const int* ldb, int* info);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info);
}

namespace nn::rt {
namespace {

void getrfRect(int m, int n, float* a, int* pivots, int* info) { sgetrf_(&m, &n, a, &m, pivots, info); }
void getrfRect(int m, int n, double* a, int* pivots, int* info) { dgetrf_(&m, &n, a, &m, pivots, info); }
void trsm(const char* side, const char* uplo, const char* diag, int m, int n, const float* a, int lda, float* b,
          int ldb) {
  float one = 1;
  strsm_(side, uplo, "N", diag, &m, &n, &one, a, &lda, b, &ldb);
}
void trsm(const char* side, const char* uplo, const char* diag, int m, int n, const double* a, int lda, double* b,
          int ldb) {
  double one = 1;
  dtrsm_(side, uplo, "N", diag, &m, &n, &one, a, &lda, b, &ldb);
}

// The lower triangle's factorisation (column-major, leading dimension n).
void sytrf(int n, float* a, int* ipiv, float* work, int lwork, int* info) {
  ssytrf_("L", &n, a, &n, ipiv, work, &lwork, info);
}
void sytrf(int n, double* a, int* ipiv, double* work, int lwork, int* info) {
  dsytrf_("L", &n, a, &n, ipiv, work, &lwork, info);
}
void sytrs(int n, int nrhs, const float* a, const int* ipiv, float* b, int* info) {
  ssytrs_("L", &n, &nrhs, a, &n, ipiv, b, &n, info);
}
void sytrs(int n, int nrhs, const double* a, const int* ipiv, double* b, int* info) {
  dsytrs_("L", &n, &nrhs, a, &n, ipiv, b, &n, info);
}

// dst (cols x rows, row-major) = src (rows x cols, row-major)
// transposed, in square tiles, so that the strided side of each tile stays
// in cache: the hop between row-major and LAPACK's column-major layout.
template <class T>
void transposeTiled(const T* src, T* dst, int64_t rows, int64_t cols) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile)
      for (int64_t i = i0; i < std::min(rows, i0 + kTile); ++i)
        for (int64_t j = j0; j < std::min(cols, j0 + kTile); ++j) dst[j * rows + i] = src[i * cols + j];
}

// Without pivoting: Doolittle's elimination in place, row by row; a zero
// pivot gives infinities and NaNs, as PyTorch's (which has it on GPUs only).
template <class T>
void eliminate(T* a, int64_t m, int64_t n) {
  for (int64_t j = 0; j < std::min(m, n); ++j) {
    const T* pivotRow = a + j * n;
    for (int64_t i = j + 1; i < m; ++i) {
      T* row = a + i * n;
      T l = row[j] / pivotRow[j];
      row[j] = l;
      for (int64_t c = j + 1; c < n; ++c) row[c] -= l * pivotRow[c];
    }
  }
}

template <class T>
void luKernel(const Tensor& x, bool pivot, Tensor& lu, Tensor& pivots) {
  int64_t m = x.dim(x.ndim() - 2), n = x.dim(x.ndim() - 1), k = std::min(m, n), size = m * n;
  int64_t matrices = x.numel() / size;
  std::vector<T> a(pivot ? static_cast<size_t>(size) : 0);
  std::vector<int> exchanges(static_cast<size_t>(k));
  for (int64_t mat = 0; mat < matrices; ++mat) {
    const T* in = x.data<T>() + mat * size;
    T* out = lu.data<T>() + mat * size;
    if (pivot) {
      transposeTiled(in, a.data(), m, n);
      int info = 0;  // > 0 where U has a zero on its diagonal: the factorisation is still complete
      getrfRect(static_cast<int>(m), static_cast<int>(n), a.data(), exchanges.data(), &info);
      transposeTiled(a.data(), out, n, m);
    } else {
      std::copy(in, in + size, out);
      eliminate(out, m, n);
      std::iota(exchanges.begin(), exchanges.end(), 1);
    }
    std::copy(exchanges.begin(), exchanges.end(), pivots.data<int32_t>() + mat * k);
  }
}

// The exchanges applied in turn to the rows' order give the row of A that
// each row of L U holds, order[r] (P^T's indices); perm is that map's
// inverse.
void permutationKernel(const Tensor& pivots, bool inverse, Tensor& perm, SourceLoc loc) {
  int64_t k = pivots.dim(pivots.ndim() - 1), rows = perm.dim(perm.ndim() - 1);
  int64_t matrices = k == 0 ? perm.numel() / std::max<int64_t>(rows, 1) : pivots.numel() / k;
  std::vector<int64_t> order(static_cast<size_t>(rows));
  for (int64_t mat = 0; mat < matrices; ++mat) {
    std::iota(order.begin(), order.end(), 0);
    const int32_t* p = pivots.data<int32_t>() + mat * k;
    for (int64_t i = 0; i < k; ++i) {
      if (p[i] < 1 || p[i] > rows)
        fail(loc,
             "lu_unpack: the pivot " + std::to_string(p[i]) + " is outside [1, " + std::to_string(rows) +
                 "], the rows of the factorised matrix",
             ErrorClass::ValueError);
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(p[i] - 1)]);
    }
    int64_t* out = perm.data<int64_t>() + mat * rows;
    if (inverse)
      std::copy(order.begin(), order.end(), out);
    else
      for (int64_t r = 0; r < rows; ++r) out[order[static_cast<size_t>(r)]] = r;
  }
}

// Row-major a is its transpose to BLAS, whose triangle of the other side
// is T^T: X^T T^T = B^T (left), T^T X^T = B^T (right).
template <class T>
void solveTriangularKernel(const Tensor& a, const Tensor& b, bool upper, bool left, bool unit, Tensor& out) {
  int64_t n = a.dim(a.ndim() - 1), rows = b.dim(b.ndim() - 2), cols = b.dim(b.ndim() - 1);
  std::copy(b.data<T>(), b.data<T>() + b.numel(), out.data<T>());
  if (out.numel() == 0 || n == 0) return;
  int64_t matrices = out.numel() / (rows * cols);
  const char* uplo = upper ? "L" : "U";
  const char* diag = unit ? "U" : "N";
  int side = static_cast<int>(n);
  for (int64_t mat = 0; mat < matrices; ++mat) {
    const T* t = a.data<T>() + mat * n * n;
    T* x = out.data<T>() + mat * rows * cols;
    if (left)
      trsm("R", uplo, diag, static_cast<int>(cols), side, t, side, x, static_cast<int>(cols));
    else
      trsm("L", uplo, diag, side, static_cast<int>(rows), t, side, x, side);
  }
}

// A X = B: getrf factors the row-major A as it lies, A^T = P L U to
// LAPACK, and the row-major X is the column-major X^T of X^T P L U = B^T:
// two solves from the right on B as it lies, then X^T P = Z, Z's columns
// (X's rows) exchanged in reverse order.
template <class T>
void solveKernel(const Tensor& a, const Tensor& b, Tensor& out, SourceLoc loc) {
  int64_t n = a.dim(a.ndim() - 1), k = b.dim(b.ndim() - 1), matrices = out.numel() / std::max<int64_t>(n * k, 1);
  std::copy(b.data<T>(), b.data<T>() + b.numel(), out.data<T>());
  if (out.numel() == 0) return;
  std::vector<T> lu(static_cast<size_t>(n * n));
  std::vector<int> exchanges(static_cast<size_t>(n));
  int side = static_cast<int>(n), cols = static_cast<int>(k);
  for (int64_t mat = 0; mat < matrices; ++mat) {
    const T* in = a.data<T>() + mat * n * n;
    std::copy(in, in + n * n, lu.data());
    int info = 0;
    getrfRect(side, side, lu.data(), exchanges.data(), &info);
    if (info > 0)
      fail(loc,
           std::string("linalg.solve: ") +
               (matrices > 1 ? "(Batch element " + std::to_string(mat) + "): " : std::string()) +
               "The solver failed because the input matrix is singular.",
           ErrorClass::LinAlgError);
    T* x = out.data<T>() + mat * n * k;
    trsm("R", "U", "N", cols, side, lu.data(), side, x, cols);
    trsm("R", "L", "U", cols, side, lu.data(), side, x, cols);
    for (int64_t i = n - 1; i >= 0; --i) {
      int64_t j = exchanges[static_cast<size_t>(i)] - 1;
      if (j != i) std::swap_ranges(x + i * k, x + (i + 1) * k, x + j * k);
    }
  }
}

// LAPACK's factorisation reads a column-major matrix: the row-major A
// transposed, whose lower triangle is A's. Its answer, transposed back,
// has L and D on and below the diagonal and what sytrf left of A above
// it, which linalg.ldl_factor gives as zeros.
template <class T>
void ldlKernel(const Tensor& x, Tensor& ld, Tensor& pivots) {
  static_assert(sizeof(int) == sizeof(int32_t), "LAPACK's pivots are the i32 tensor's elements");
  int64_t n = x.dim(x.ndim() - 1), size = n * n, matrices = x.numel() / size;
  int side = static_cast<int>(n), info = 0, ignored = 0;
  T optimal = 0, unread = 0;
  sytrf(side, &unread, &ignored, &optimal, -1, &info);  // the workspace query
  std::vector<T> a(static_cast<size_t>(size)), work(static_cast<size_t>(std::max<T>(optimal, 1)));
  for (int64_t mat = 0; mat < matrices; ++mat) {
    transposeTiled(x.data<T>() + mat * size, a.data(), n, n);
    // info > 0 where D has a zero 1 x 1 block: the factorisation is still
    // complete (ldl_factor_ex reads it off the diagonal)
    sytrf(side, a.data(), pivots.data<int32_t>() + mat * n, work.data(), static_cast<int>(work.size()), &info);
    T* out = ld.data<T>() + mat * size;
    transposeTiled(a.data(), out, n, n);
    for (int64_t i = 0; i < n; ++i) std::fill(out + i * n + i + 1, out + (i + 1) * n, T(0));
  }
}

// Fails at loc unless p [n] are interchanges sytrf could give, which
// sytrs follows: each in [1, n], or a 2 x 2 block's pair, two equal
// negatives in [-n, -1], so that no row outside the matrix is read.
void checkLdlPivots(const int32_t* p, int64_t n, SourceLoc loc) {
  for (int64_t i = 0; i < n; ++i) {
    bool pair = p[i] < 0 && i + 1 < n && p[i + 1] == p[i];
    if ((p[i] > 0 && p[i] <= n) || (pair && p[i] >= -n)) {
      i += pair;
      continue;
    }
    fail(loc,
         "linalg.ldl_solve: pivots[" + std::to_string(i) + "] = " + std::to_string(p[i]) +
             " is not an interchange of an LDL factorisation of " + std::to_string(n) + " x " + std::to_string(n) +
             " matrices (a row in [1, " + std::to_string(n) + "], or the same negative row twice for a 2 x 2 block)",
         ErrorClass::ValueError);
  }
}

// sytrs solves column-major systems: the row-major B [n, k] transposed,
// and the answer transposed back.
template <class T>
void ldlSolveKernel(const Tensor& ld, const Tensor& pivots, const Tensor& b, Tensor& out, SourceLoc loc) {
  if (out.numel() == 0) return;
  int64_t n = ld.dim(ld.ndim() - 1), k = b.dim(b.ndim() - 1), matrices = out.numel() / (n * k);
  std::vector<T> a(static_cast<size_t>(n * n)), x(static_cast<size_t>(n * k));
  for (int64_t mat = 0; mat < matrices; ++mat) {
    const int32_t* p = pivots.data<int32_t>() + mat * n;
    checkLdlPivots(p, n, loc);
    transposeTiled(ld.data<T>() + mat * n * n, a.data(), n, n);
    transposeTiled(b.data<T>() + mat * n * k, x.data(), n, k);
    int info = 0;
    sytrs(static_cast<int>(n), static_cast<int>(k), a.data(), p, x.data(), &info);
    transposeTiled(x.data(), out.data<T>() + mat * n * k, k, n);
  }
}

template <class T>
void registerLu(KernelTable& t) {
  t.add<ir::Op::LuFactor>(dtypeOf<T>(), luKernel<T>);
  t.add<ir::Op::SolveTriangular>(dtypeOf<T>(), solveTriangularKernel<T>);
  t.add<ir::Op::Solve>(dtypeOf<T>(), solveKernel<T>);
  t.add<ir::Op::LdlFactor>(dtypeOf<T>(), ldlKernel<T>);
  t.add<ir::Op::LdlSolve>(dtypeOf<T>(), ldlSolveKernel<T>);
}

}  // namespace

void registerCpuLuKernels(KernelTable& t) {
  registerLu<float>(t);
  registerLu<double>(t);
  t.add<ir::Op::LuPermutation>(DType::I32, permutationKernel);
}

}  // namespace nn::rt
