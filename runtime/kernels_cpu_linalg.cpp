// CPU kernels of the linear algebra ops (inverse, det and slogdet's
// halves, det's gradient, cholesky, eigvalsh and eigh's vectors) through
// LAPACK's LU (getrf, getri) and Cholesky (potrf) factorisations, its
// symmetric eigensolver (syevd), its divide-and-conquer SVD (gesdd, as
// PyTorch's CPU default) and its Householder QR (geqrf, orgqr), one matrix
// of the batch at a time. LAPACK reads matrices column by column: a
// row-major matrix is its transpose there, so a row-major inverse is
// LAPACK's inverse of the transpose read back row by row, a determinant is
// the transpose's, and the upper factor U of the transpose of a symmetric
// A (A itself) is read back as L = U^T.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/kernel_loops.h"

extern "C" {
// LAPACK's Fortran interface (liblapack): arguments by address.
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
}

namespace nn::rt {
namespace {

void getrf(int n, float* a, int* pivots, int* info) { sgetrf_(&n, &n, a, &n, pivots, info); }
void getrf(int n, double* a, int* pivots, int* info) { dgetrf_(&n, &n, a, &n, pivots, info); }
void getri(int n, float* a, const int* pivots, float* work, int lwork, int* info) {
  sgetri_(&n, a, &n, pivots, work, &lwork, info);
}
void getri(int n, double* a, const int* pivots, double* work, int lwork, int* info) {
  dgetri_(&n, a, &n, pivots, work, &lwork, info);
}
void potrf(int n, float* a, int* info) { spotrf_("U", &n, a, &n, info); }
void potrf(int n, double* a, int* info) { dpotrf_("U", &n, a, &n, info); }
// The lower triangle of a row-major matrix is the upper one of LAPACK's
// column-major view: "U".
void syevd(const char* jobz, int n, float* a, float* w, float* work, int lwork, int* iwork, int liwork, int* info) {
  ssyevd_(jobz, "U", &n, a, &n, w, work, &lwork, iwork, &liwork, info);
}
void syevd(const char* jobz, int n, double* a, double* w, double* work, int lwork, int* iwork, int liwork, int* info) {
  dsyevd_(jobz, "U", &n, a, &n, w, work, &lwork, iwork, &liwork, info);
}

// The LinAlgError of matrix m of `matrices` that LAPACK could not take
// (its info > 0), as PyTorch words it: "inverse: (Batch element 3): why",
// the batch element named where x holds more than one matrix.
[[noreturn]] void linAlgFailure(SourceLoc loc, const char* name, int64_t matrices, int64_t m, const std::string& why) {
  fail(loc, std::string(name) + ": " + (matrices > 1 ? "(Batch element " + std::to_string(m) + "): " : "") + why,
       ErrorClass::LinAlgError);
}

int64_t matrixSide(const Tensor& x) { return x.dim(x.ndim() - 1); }

template <class T>
void inverseKernel(const Tensor& x, Tensor& out, SourceLoc loc) {
  int64_t n = matrixSide(x), size = n * n, matrices = x.numel() / size;
  std::memcpy(out.data<T>(), x.data<T>(), static_cast<size_t>(x.numel()) * sizeof(T));
  std::vector<int> pivots(static_cast<size_t>(n));
  int side = static_cast<int>(n), info = 0;
  T query;
  getri(side, out.data<T>(), pivots.data(), &query, -1, &info);
  std::vector<T> work(static_cast<size_t>(std::max<T>(query, T(1))));
  for (int64_t m = 0; m < matrices; ++m) {
    T* a = out.data<T>() + m * size;
    getrf(side, a, pivots.data(), &info);
    if (info > 0)
      linAlgFailure(loc, "inverse", matrices, m,
                    "The diagonal element " + std::to_string(info) +
                        " is zero, the inversion could not be completed because the input matrix is singular.");
    getri(side, a, pivots.data(), work.data(), static_cast<int>(work.size()), &info);
    // getri leaves -0 at the inverse's exact zeros (below an identity's
    // diagonal); adding +0 makes them 0, as PyTorch's solve gives them.
    for (int64_t i = 0; i < size; ++i) a[i] += T(0);
  }
}

// The determinant from an LU factorisation: the product of U's diagonal,
// negated for each row exchange; its sign, or the sum of the logarithms of
// the diagonal's absolute values (-inf for a singular matrix, sign 0).
template <class T>
void detKernel(const Tensor& x, Tensor* value, Tensor* signs, Tensor* logs) {
  int64_t n = matrixSide(x), size = n * n, matrices = x.numel() / size;
  std::vector<T> a(static_cast<size_t>(size));
  std::vector<int> pivots(static_cast<size_t>(n));
  int side = static_cast<int>(n), info = 0;
  for (int64_t m = 0; m < matrices; ++m) {
    std::memcpy(a.data(), x.data<T>() + m * size, static_cast<size_t>(size) * sizeof(T));
    getrf(side, a.data(), pivots.data(), &info);
    T product = 1, sign = 1, logAbs = 0;
    for (int64_t i = 0; i < n; ++i) {
      T u = a[static_cast<size_t>(i * n + i)];
      if (pivots[static_cast<size_t>(i)] != i + 1) sign = -sign, product = -product;
      product *= u;
      sign = u < 0 ? -sign : u == 0 ? T(0) : sign;
      logAbs += std::log(std::abs(u));
    }
    if (value) value->data<T>()[m] = product;
    if (signs) signs->data<T>()[m] = sign;
    if (logs) logs->data<T>()[m] = logAbs;
  }
}

template <class T>
void choleskyKernel(const Tensor& x, bool upper, Tensor& out, SourceLoc loc) {
  int64_t n = matrixSide(x), size = n * n, matrices = x.numel() / size;
  std::memcpy(out.data<T>(), x.data<T>(), static_cast<size_t>(x.numel()) * sizeof(T));
  int side = static_cast<int>(n), info = 0;
  for (int64_t m = 0; m < matrices; ++m) {
    T* a = out.data<T>() + m * size;
    potrf(side, a, &info);
    if (info > 0)
      linAlgFailure(loc, "cholesky", matrices, m,
                    "The factorization could not be completed because the input is not positive-definite (the "
                    "leading minor of order " +
                        std::to_string(info) + " is not positive-definite).");
    // Row by row, a holds L on and below the diagonal; above it, what
    // LAPACK did not touch.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) a[i * n + j] = 0;
    if (upper)
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = i + 1; j < n; ++j) std::swap(a[i * n + j], a[j * n + i]);
  }
}

// syevd's eigenvalues (ascending) and eigenvectors, the columns of its
// column-major answer: the rows of a row-major one, transposed back.
template <class T>
void eigenKernel(const Tensor& x, Tensor* values, Tensor* vectors, SourceLoc loc) {
  int64_t n = matrixSide(x), size = n * n, matrices = x.numel() / size;
  std::vector<T> a(static_cast<size_t>(size)), w(static_cast<size_t>(n));
  int side = static_cast<int>(n), info = 0, iquery = 0;
  const char* jobz = vectors ? "V" : "N";
  T query;
  syevd(jobz, side, a.data(), w.data(), &query, -1, &iquery, -1, &info);
  std::vector<T> work(static_cast<size_t>(std::max<T>(query, T(1))));
  std::vector<int> iwork(static_cast<size_t>(std::max(iquery, 1)));
  for (int64_t m = 0; m < matrices; ++m) {
    std::memcpy(a.data(), x.data<T>() + m * size, static_cast<size_t>(size) * sizeof(T));
    syevd(jobz, side, a.data(), w.data(), work.data(), static_cast<int>(work.size()), iwork.data(),
          static_cast<int>(iwork.size()), &info);
    if (info > 0)
      linAlgFailure(loc, "eigh", matrices, m,
                    "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                    "repeated eigenvalues (error code: " +
                        std::to_string(info) + ").");
    if (values) std::copy(w.begin(), w.end(), values->data<T>() + m * n);
    if (!vectors) continue;
    T* o = vectors->data<T>() + m * size;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) o[i * n + j] = a[static_cast<size_t>(j * n + i)];
  }
}

void gesdd(const char* jobz, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt, float* work,
           int lwork, int* iwork, int* info) {
  sgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
}
void gesdd(const char* jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt, double* work,
           int lwork, int* iwork, int* info) {
  dgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info);
}

// gesdd of the transpose X = A^T [n, m] that LAPACK reads in a row-major A:
// X = Ux S VTx gives A = VTx^T S Ux^T, and LAPACK's column-major VTx
// [k, m] read row by row is U [m, k], its Ux [n, k] is Vh [k, n] (full:
// [m, m] and [n, n]), so no transposing.
template <class T>
void svdKernel(const Tensor& x, bool full, Tensor* values, Tensor* u, Tensor* vh, SourceLoc loc) {
  int64_t m = x.dim(x.ndim() - 2), n = x.dim(x.ndim() - 1), k = std::min(m, n), size = m * n;
  int64_t matrices = x.numel() / size;
  int rows = static_cast<int>(n), cols = static_cast<int>(m);  // X's
  bool vectors = u || vh;
  const char* jobz = !vectors ? "N" : full ? "A" : "S";
  int uCols = full ? rows : static_cast<int>(k), vtRows = full ? cols : static_cast<int>(k);
  std::vector<T> a(static_cast<size_t>(size)), s(static_cast<size_t>(k));
  std::vector<T> ux(vectors ? static_cast<size_t>(rows) * uCols : 1),
      vtx(vectors ? static_cast<size_t>(vtRows) * cols : 1);
  std::vector<int> iwork(static_cast<size_t>(8 * k));
  int info = 0;
  T query;
  gesdd(jobz, rows, cols, a.data(), s.data(), ux.data(), rows, vtx.data(), std::max(vtRows, 1), &query, -1,
        iwork.data(), &info);
  std::vector<T> work(static_cast<size_t>(std::max<T>(query, T(1))));
  int64_t uSize = int64_t{vtRows} * cols, vhSize = int64_t{rows} * uCols;
  for (int64_t mat = 0; mat < matrices; ++mat) {
    std::memcpy(a.data(), x.data<T>() + mat * size, static_cast<size_t>(size) * sizeof(T));
    gesdd(jobz, rows, cols, a.data(), s.data(), ux.data(), rows, vtx.data(), std::max(vtRows, 1), work.data(),
          static_cast<int>(work.size()), iwork.data(), &info);
    if (info > 0)
      linAlgFailure(loc, "svd", matrices, mat,
                    "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                    "repeated singular values (error code: " +
                        std::to_string(info) + ").");
    if (values) std::copy(s.begin(), s.end(), values->data<T>() + mat * k);
    if (u) std::copy(vtx.begin(), vtx.begin() + uSize, u->data<T>() + mat * uSize);
    if (vh) std::copy(ux.begin(), ux.begin() + vhSize, vh->data<T>() + mat * vhSize);
  }
}

// The sign of the determinant of an orthogonal n x n matrix q (+-1), from
// an LU factorisation of a copy.
template <class T>
T orthogonalSign(std::vector<T> q, int64_t n, std::vector<int>& pivots) {
  int side = static_cast<int>(n), info = 0;
  getrf(side, q.data(), pivots.data(), &info);
  T sign = 1;
  for (int64_t i = 0; i < n; ++i)
    if ((pivots[static_cast<size_t>(i)] != i + 1) != (q[static_cast<size_t>(i * n + i)] < 0)) sign = -sign;
  return sign;
}

// The cofactors of each matrix A, or with g the adjoint of the cofactor
// map at A. An invertible A's cofactors are det(A) A^-T, from its LU
// factorisation. Otherwise, and for the adjoint, through the SVD
// A = U S V^T: cof(A) = s U cof(S) V^T with s = det(U) det(V) and cof(S)
// = diag(p), p_i the product of the singular values but the i-th, and
// the derivative of cof at S in the direction E has diagonal entries
// sum_k!=i E_kk p_ik (p_ik: the product of all but the i-th and k-th)
// and entries -E_ji p_ij off it, so the adjoint of G is s U H V^T with
// G' = U^T G V, H_kk = sum_i!=k G'_ii p_ik and H_ji = -G'_ij p_ij. Each
// product over the singular values is taken directly, so a singular A
// (some of them 0) needs no division.
template <class T>
void cofactorKernel(const Tensor& x, const Tensor* g, Tensor& out, SourceLoc loc) {
  int64_t n = matrixSide(x), size = n * n, matrices = x.numel() / size;
  auto at = [n](std::vector<T>& v, int64_t i, int64_t j) -> T& { return v[static_cast<size_t>(i * n + j)]; };
  std::vector<T> a(static_cast<size_t>(size)), s(static_cast<size_t>(n)), u(static_cast<size_t>(size)),
      vh(static_cast<size_t>(size)), h(static_cast<size_t>(size)), t(static_cast<size_t>(size));
  std::vector<T> others(static_cast<size_t>(n)), pairs(static_cast<size_t>(size));
  std::vector<int> pivots(static_cast<size_t>(n)), iwork(static_cast<size_t>(8 * n));
  int side = static_cast<int>(n), info = 0;
  T query;
  getri(side, a.data(), pivots.data(), &query, -1, &info);
  T svdQuery;
  gesdd("A", side, side, a.data(), s.data(), vh.data(), side, u.data(), side, &svdQuery, -1, iwork.data(), &info);
  std::vector<T> work(static_cast<size_t>(std::max({query, svdQuery, T(1)})));
  for (int64_t m = 0; m < matrices; ++m) {
    const T* in = x.data<T>() + m * size;
    T* o = out.data<T>() + m * size;
    std::memcpy(a.data(), in, static_cast<size_t>(size) * sizeof(T));
    if (!g) {
      getrf(side, a.data(), pivots.data(), &info);
      if (info == 0) {
        // The row-major a now holds A^T's factors; getri's inverse of A^T,
        // read row by row, is A^-1.
        T det = 1;
        for (int64_t i = 0; i < n; ++i) det *= (pivots[static_cast<size_t>(i)] != i + 1 ? -1 : 1) * at(a, i, i);
        getri(side, a.data(), pivots.data(), work.data(), static_cast<int>(work.size()), &info);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) o[i * n + j] = det * at(a, j, i);
        continue;
      }
      std::memcpy(a.data(), in, static_cast<size_t>(size) * sizeof(T));
    }
    // gesdd of the row-major A (LAPACK's A^T = Ux S VTx): its VTx read row
    // by row is U, its Ux is V^T (svdKernel).
    gesdd("A", side, side, a.data(), s.data(), vh.data(), side, u.data(), side, work.data(),
          static_cast<int>(work.size()), iwork.data(), &info);
    if (info > 0)
      linAlgFailure(loc, "det", matrices, m,
                    "The SVD of its gradient failed to converge (error code: " + std::to_string(info) + ").");
    T sign = orthogonalSign(u, n, pivots) * orthogonalSign(vh, n, pivots);
    // others_i: all singular values but the i-th; pairs_ik: but the i-th
    // and the k-th (0 on the diagonal, where it is not used).
    for (int64_t i = 0; i < n; ++i) {
      T all = 1;
      for (int64_t k = 0; k < n; ++k)
        if (k != i) all *= s[static_cast<size_t>(k)];
      others[static_cast<size_t>(i)] = all;
      if (!g) continue;
      for (int64_t k = 0; k < n; ++k) {
        T both = 0;
        if (k != i) {
          both = 1;
          for (int64_t j = 0; j < n; ++j)
            if (j != i && j != k) both *= s[static_cast<size_t>(j)];
        }
        at(pairs, i, k) = both;
      }
    }
    if (!g) {
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < n; ++k) at(h, i, k) = i == k ? others[static_cast<size_t>(i)] : T(0);
    } else {
      // t = U^T G, then G' = t V (V's columns are V^T's rows).
      const T* gm = g->data<T>() + m * size;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          T sum = 0;
          for (int64_t k = 0; k < n; ++k) sum += at(u, k, i) * gm[k * n + j];
          at(t, i, j) = sum;
        }
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          T sum = 0;
          for (int64_t k = 0; k < n; ++k) sum += at(t, i, k) * at(vh, j, k);
          at(a, i, j) = sum;  // G'
        }
      for (int64_t k = 0; k < n; ++k)
        for (int64_t j = 0; j < n; ++j) {
          if (j != k) {
            at(h, j, k) = -at(a, k, j) * at(pairs, k, j);
            continue;
          }
          T sum = 0;
          for (int64_t i = 0; i < n; ++i)
            if (i != k) sum += at(a, i, i) * at(pairs, i, k);
          at(h, k, k) = sum;
        }
    }
    // out = sign U H V^T.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += at(u, i, k) * at(h, k, j);
        at(t, i, j) = sum;
      }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += at(t, i, k) * at(vh, k, j);
        o[i * n + j] = sign * sum;
      }
  }
}

void geqrf(int m, int n, float* a, float* tau, float* work, int lwork, int* info) {
  sgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void geqrf(int m, int n, double* a, double* tau, double* work, int lwork, int* info) {
  dgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, float* a, const float* tau, float* work, int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}

// Householder QR (geqrf), Q formed from the reflectors (orgqr), of each
// matrix copied column by column (LAPACK's layout) into a buffer wide
// enough for a complete Q, read back row by row.
template <class T>
void qrKernel(const Tensor& x, bool complete, Tensor* q, Tensor* r) {
  int64_t m = x.dim(x.ndim() - 2), n = x.dim(x.ndim() - 1), reflectors = std::min(m, n), size = m * n;
  int64_t k = complete ? m : reflectors, width = std::max(n, k), matrices = x.numel() / size;
  std::vector<T> a(static_cast<size_t>(m * width)), tau(static_cast<size_t>(reflectors));
  int rows = static_cast<int>(m), info = 0;
  T query[2];
  geqrf(rows, static_cast<int>(n), a.data(), tau.data(), &query[0], -1, &info);
  orgqr(rows, static_cast<int>(k), static_cast<int>(reflectors), a.data(), tau.data(), &query[1], -1, &info);
  std::vector<T> work(static_cast<size_t>(std::max({query[0], query[1], T(1)})));
  for (int64_t mat = 0; mat < matrices; ++mat) {
    const T* in = x.data<T>() + mat * size;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) a[static_cast<size_t>(i + j * m)] = in[i * n + j];
    geqrf(rows, static_cast<int>(n), a.data(), tau.data(), work.data(), static_cast<int>(work.size()), &info);
    if (r) {
      T* o = r->data<T>() + mat * k * n;
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j) o[i * n + j] = i <= j ? a[static_cast<size_t>(i + j * m)] : T(0);
    }
    if (!q) continue;
    orgqr(rows, static_cast<int>(k), static_cast<int>(reflectors), a.data(), tau.data(), work.data(),
          static_cast<int>(work.size()), &info);
    T* o = q->data<T>() + mat * m * k;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) o[i * k + j] = a[static_cast<size_t>(i + j * m)];
  }
}

template <class T>
void registerLinalg(KernelTable& t) {
  t.add<ir::Op::Inverse>(dtypeOf<T>(), inverseKernel<T>);
  t.add<ir::Op::Det>(dtypeOf<T>(), detKernel<T>);
  t.add<ir::Op::Cofactor>(dtypeOf<T>(), cofactorKernel<T>);
  t.add<ir::Op::Cholesky>(dtypeOf<T>(), choleskyKernel<T>);
  t.add<ir::Op::Eigvalsh>(dtypeOf<T>(), eigenKernel<T>);
  t.add<ir::Op::Svdvals>(dtypeOf<T>(), svdKernel<T>);
  t.add<ir::Op::QrQ>(dtypeOf<T>(), qrKernel<T>);
}

}  // namespace

void registerCpuLinalgKernels(KernelTable& t) {
  registerLinalg<float>(t);
  registerLinalg<double>(t);
}

}  // namespace nn::rt
