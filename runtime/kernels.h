// Kernel dispatch in two levels, as PyTorch does: first by device (each
// Device has a KernelTable, device.h), then by op and element type.
// Kernels are registered against IR ops (ir::Op) from the op table, never
// looked up by name. The elementwise ops share two signatures (binary and
// unary: inputs already broadcast to the output shape as stride-0 views and
// converted to the kernel's dtype); every other op with a kernel has its
// own signature, KernelFor<op>::Fn, so a table entry cannot be registered
// or called with the wrong one. Kernels compute only: the op's front end
// (runtime/*_ops.cpp, nn_*.cpp) has checked shapes and attributes with
// located errors, converted operands to the dtype the kernel is keyed by,
// and allocated `out` contiguous on the device; dispatch.h runs them.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "ir/ir.h"
#include "runtime/grid_sampling.h"
#include "runtime/random.h"
#include "runtime/resample.h"
#include "runtime/scatter_steps.h"
#include "runtime/tensor.h"
#include "support/diagnostics.h"

namespace nn::rt {

constexpr size_t kNumDTypes = 5;
// Elementwise loops run on all cores from this many elements up; below it
// the fork/join cost of a parallel region exceeds the work.
constexpr int64_t kParallelThreshold = 1 << 15;

// out[i] = op(a[i], b[i]); out is contiguous with the broadcast shape.
using BinaryKernel = void (*)(const Tensor& a, const Tensor& b, Tensor& out, SourceLoc loc);
// out[i] = op(a[i]).
using UnaryKernel = void (*)(const Tensor& a, Tensor& out, SourceLoc loc);

struct ConvParams {
  int64_t strideH = 1, strideW = 1, padH = 0, padW = 0, dilH = 1, dilW = 1, groups = 1;
};
struct PoolParams {
  int64_t kH = 1, kW = 1, strideH = 1, strideW = 1, padH = 0, padW = 0;
  int64_t dilH = 1, dilW = 1;  // max pooling's
  bool ceilMode = false;
  bool countPadding = true;  // average pooling's count_include_pad
  int64_t divisor = 0;       // average pooling's divisor_override; 0: none
};

// The signature of each op's kernel. Operands are contiguous unless a line
// says otherwise; the dtype in brackets is the one the entry is keyed by.
template <ir::Op>
struct KernelFor;
// a [..., M, K] and b [..., K, N] lifted to out's rank (batch dimensions
// of size 1 broadcast, any strides), out [..., M, N]  [a's dtype]
template <>
struct KernelFor<ir::Op::MatMul> {
  using Fn = void (*)(const Tensor& a, const Tensor& b, Tensor& out);
};
// out [M, N] = x [M, K] @ w [N, K].T (+ bias [N] when given); w row-major
// or the transpose of a row-major [K, N]  [x's dtype]
template <>
struct KernelFor<ir::Op::Linear> {
  using Fn = void (*)(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out);
};
// along `axis` of x  [x's dtype, floating]
template <>
struct KernelFor<ir::Op::Softmax> {
  using Fn = void (*)(const Tensor& x, int axis, Tensor& out);
};
template <>
struct KernelFor<ir::Op::LogSoftmax> : KernelFor<ir::Op::Softmax> {};
// x [N, C, H, W], w [OC, C/groups, KH, KW], bias [OC] or null  [x's dtype]
template <>
struct KernelFor<ir::Op::Conv2d> {
  using Fn = void (*)(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out);
};
// x [N, C, H, W]  [x's dtype]
template <>
struct KernelFor<ir::Op::MaxPool2d> {
  using Fn = void (*)(const Tensor& x, const PoolParams& p, Tensor& out);
};
template <>
struct KernelFor<ir::Op::AvgPool2d> : KernelFor<ir::Op::MaxPool2d> {};
// x [N, C, H, W] into the i64 indices of max pooling's maxima  [x's dtype]
template <>
struct KernelFor<ir::Op::MaxPool2dIndices> : KernelFor<ir::Op::MaxPool2d> {};
// The gradients of conv2d: g [N, OC, OH, OW] with w [OC, C/groups, KH, KW]
// into dx [N, C, H, W]; with x [N, C, H, W] into dw  [g's dtype]
template <>
struct KernelFor<ir::Op::Conv2dGradInput> {
  using Fn = void (*)(const Tensor& g, const Tensor& w, const ConvParams& p, Tensor& dx);
};
template <>
struct KernelFor<ir::Op::Conv2dGradWeight> {
  using Fn = void (*)(const Tensor& g, const Tensor& x, const ConvParams& p, Tensor& dw);
};
// The gradient g [N, C, OH, OW] of max (isMax) or average pooling of x
// [N, C, H, W] into dx of x's shape  [g's dtype, x of the same]
template <>
struct KernelFor<ir::Op::Pool2dGrad> {
  using Fn = void (*)(const Tensor& g, const Tensor& x, const PoolParams& p, bool isMax, Tensor& dx);
};
// x [N, C, ...], statistics and affine parameters [C] (gamma, beta may be
// null)  [x's dtype]
template <>
struct KernelFor<ir::Op::BatchNorm> {
  using Fn = void (*)(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma,
                      const Tensor* beta, double eps, Tensor& out);
};
// over the last axis of x; gamma, beta [D] or null  [x's dtype]
template <>
struct KernelFor<ir::Op::LayerNorm> {
  using Fn = void (*)(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, Tensor& out);
};
// layer_norm's gradient over the last axis: g and x contiguous [rows, D]
// of one floating dtype, gamma [D] or null; out [rows, D] = per row
// (g' - mean(g') - xhat mean(g' xhat)) / sqrt(var + eps), g' = g gamma,
// xhat = (x - mean) / sqrt(var + eps), the biased variance  [x's dtype]
template <>
struct KernelFor<ir::Op::LayerNormGrad> {
  using Fn = void (*)(const Tensor& g, const Tensor& x, const Tensor* gamma, double eps, Tensor& out);
};
// Sum and mean: contiguous `in` holds `outer` blocks, each of out.numel()
// consecutive runs of `run` elements; out[i] reduces run i of every block
// (outer * run elements; mean of none is NaN). outer > 1 reduces leading
// axes in place, e.g. a bias gradient over the batch, without first
// permuting them last  [in's dtype]
template <>
struct KernelFor<ir::Op::Sum> {
  using Fn = void (*)(const Tensor& in, int64_t outer, int64_t run, Tensor& out);
};
template <> struct KernelFor<ir::Op::Mean> : KernelFor<ir::Op::Sum> {};
// float(sum(t)) (or of mean) of a small contiguous float tensor in host
// memory, computed as the CPU kernel computes the 0-d sum, without it;
// false (out untouched) for any other tensor.
bool cpuSmallFullSum(const Tensor& t, bool mean, double& out);
// Variance's sums of squared deviations on a CPU device, without the
// tensors of the steps: out[i] (f64) of run i of the out.numel()
// consecutive runs of `run` elements of contiguous float `x`, from the
// run's mean, each as the device's sum kernel would fold the squares of
// the deviations made op by op; false (out untouched) for any other tensor.
bool cpuSquaredDeviations(const Tensor& x, int64_t run, Tensor& out);
// The sums of x * x (each square rounded to x's type) of the out.numel()
// consecutive runs of `run` elements of contiguous float x on a CPU
// device, in x's type, as the device's sum kernel would sum the squares
// made op by op; false (out untouched) for any other tensor.
bool cpuSumsOfSquares(const Tensor& x, int64_t run, Tensor& out);
// clip(x, lo, hi) of contiguous f32 or f64 x on a CPU device in one pass,
// the bits of its maximum then its minimum with the bounds as numbers
// (rounded to x's type); none for any other tensor or a NaN bound.
std::optional<Tensor> cpuClip(const Tensor& x, double lo, double hi);
// Max or min (isMax), or with `index` argmax or argmin (out i64), of each
// column of contiguous x viewed as [outer, out.numel()], read in place on a
// CPU device, giving what its kernels give on the permuted copy; false
// (out untouched) for any other tensor, a bool one, or fewer than 16
// columns.
bool cpuLeadingExtremum(const Tensor& x, int64_t outer, bool isMax, bool index, Tensor& out);
// Other reductions (prod, max, min, argmax, argmin, all, any): `in` holds
// out.numel() consecutive runs of `run` elements; out[i] reduces run i
// [in's dtype]
template <>
struct KernelFor<ir::Op::Prod> {
  using Fn = void (*)(const Tensor& in, int64_t run, Tensor& out);
};
template <> struct KernelFor<ir::Op::Max> : KernelFor<ir::Op::Prod> {};
template <> struct KernelFor<ir::Op::Min> : KernelFor<ir::Op::Prod> {};
template <> struct KernelFor<ir::Op::ArgMax> : KernelFor<ir::Op::Prod> {};
template <> struct KernelFor<ir::Op::ArgMin> : KernelFor<ir::Op::Prod> {};
template <> struct KernelFor<ir::Op::All> : KernelFor<ir::Op::Prod> {};
template <> struct KernelFor<ir::Op::Any> : KernelFor<ir::Op::Prod> {};
// out[i] = cond[i] ? x[i] : y[i]; cond bool, all three broadcast to out's
// shape (stride-0 views)  [out's dtype]
template <>
struct KernelFor<ir::Op::Where> {
  using Fn = void (*)(const Tensor& cond, const Tensor& x, const Tensor& y, Tensor& out);
};
// Advanced indexing (x[idx], x[mask]): out[i * run + j] = the element of
// t's storage at offsets[i] + j for j < run (element offsets from the
// storage's start, in range; run > 1 where whole rows are taken)
//   [t's dtype]
template <>
struct KernelFor<ir::Op::GetItem> {
  using Fn = void (*)(const Tensor& t, const int64_t* offsets, int64_t n, int64_t run, Tensor& out);
};
// ... and assignment through it: the element of dst's storage at
// offsets[i] = values' flat element i (values has n elements, any strides)
//   [dst's dtype]
template <>
struct KernelFor<ir::Op::SetItem> {
  using Fn = void (*)(const Tensor& values, const int64_t* offsets, int64_t n, Tensor& dst);
};
// Every element of out set to value (converted to out's dtype as astype
// converts)  [out's dtype]
template <>
struct KernelFor<ir::Op::Full> {
  using Fn = void (*)(double value, Tensor& out);
};
// Every copy of tensor data (astype, contiguous, clone, assignment into a
// view): src of any dtype and strides into dst of the same shape and any
// strides, converting  [dst's dtype]
template <>
struct KernelFor<ir::Op::AsType> {
  using Fn = void (*)(const Tensor& src, const Tensor& dst);
};
// out[..., i, ...] = x[..., index[..., i, ...], ...] along `axis`; index
// i64 with every entry already checked in range  [x's dtype]
template <>
struct KernelFor<ir::Op::Gather> {
  using Fn = void (*)(const Tensor& x, int axis, const Tensor& index, Tensor& out);
};
// out holds a copy of x; adds src at the index positions along `axis`
// (index i64, checked; src of out's dtype, or f32 where out is f64, each
// term widened as it is added)  [out's dtype]
template <>
struct KernelFor<ir::Op::ScatterAdd> {
  using Fn = void (*)(int axis, const Tensor& index, const Tensor& src, Tensor& out);
};
// out holds a copy of x; src's elements written at the index positions
// along `axis` in index order (index i64, checked)  [out's dtype]
template <>
struct KernelFor<ir::Op::Scatter> {
  using Fn = void (*)(int axis, const Tensor& index, const Tensor& src, Tensor& out);
};
// out holds a copy of x (where x is left out, with a start that leaves
// the reduction as it is at the places the index reaches); reduces src's
// elements into it at the index positions along `axis`, each line in
// index order (index i64, checked)  [out's dtype: f64 or i64]
template <>
struct KernelFor<ir::Op::ScatterReduce> {
  using Fn = void (*)(int axis, const Tensor& index, const Tensor& src, ScatterReduction reduction, Tensor& out);
};

// out [..., n] (i64, zero-filled) gets a 1 at each label's class; false
// with `bad` = the first label outside [0, n)  [labels' dtype, integral]
template <>
struct KernelFor<ir::Op::OneHot> {
  using Fn = bool (*)(const Tensor& labels, Tensor& out, int64_t& bad);
};
// The negative mean over rows of logProbs [N, C] at labels [N] (i64),
// rows labelled `ignore` left out, into the 0-d out (NaN when no row is
// counted); false with `bad` = the first label outside [0, C) and not
// `ignore`  [logProbs' dtype, floating]
template <>
struct KernelFor<ir::Op::CrossEntropy> {
  using Fn = bool (*)(const Tensor& logProbs, const Tensor& labels, int64_t ignore, Tensor& out, int64_t& bad);
};
// cross_entropy's gradient, in place: p [N, C] (softmax(logits),
// contiguous) becomes (p - one_hot(labels)) * (g / M), g 0-d of p's dtype,
// labels [N] (i64), M the rows not labelled `ignore`; those rows become 0
// (a label outside [0, C) subtracts nowhere)  [p's dtype, floating]
template <>
struct KernelFor<ir::Op::CrossEntropyGrad> {
  using Fn = void (*)(const Tensor& g, const Tensor& labels, int64_t ignore, Tensor& p);
};
// The mean of -(y log p + (1 - y) log(1 - p)), logs clamped at -100 as
// PyTorch does, into the 0-d out (NaN when empty); p and y of one shape
// and dtype; false when a probability is outside [0, 1]  [p's dtype, floating]
template <>
struct KernelFor<ir::Op::BinaryCrossEntropy> {
  using Fn = bool (*)(const Tensor& p, const Tensor& y, Tensor& out);
};

// A contiguous tensor seen along one axis, as the scans and the sort walk
// it: count() lines of `len` elements `inner` apart, the axis in the
// middle, so one loop serves every axis without transposing.
struct AxisLines {
  int64_t outer = 1, len = 1, inner = 1;
  AxisLines(const Tensor& x, int axis) : len(x.dim(axis)) {
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int d = axis + 1; d < x.ndim(); ++d) inner *= x.dim(d);
  }
  int64_t count() const { return outer * inner; }
  // The first element of line l.
  int64_t start(int64_t l) const { return (l / inner) * len * inner + l % inner; }
};

// Scans along `axis` of x (contiguous, out's shape): out[..., i, ...] the
// sum (product) of x[..., j, ...] for j <= i (j >= i with `reverse`)  [x's dtype]
template <>
struct KernelFor<ir::Op::CumSum> {
  using Fn = void (*)(const Tensor& x, int axis, bool reverse, Tensor& out);
};
template <>
struct KernelFor<ir::Op::CumProd> : KernelFor<ir::Op::CumSum> {};
// The same for log(sum(exp)) of the elements so far  [x's dtype, floating]
template <>
struct KernelFor<ir::Op::LogCumSumExp> : KernelFor<ir::Op::CumSum> {};
// Each line of x (contiguous) along `axis` sorted stably into values (x's
// dtype) and indices (i64, the positions in x), ascending with NaN last or
// descending with NaN first; both of x's shape  [x's dtype]
template <>
struct KernelFor<ir::Op::Sort> {
  using Fn = void (*)(const Tensor& x, int axis, bool descending, Tensor& values, Tensor& indices);
};
// The first values.dim(axis) elements of that order (largest: the
// descending one) of each line of x (contiguous) along `axis`, and their
// positions; values (x's dtype) and indices (i64) of x's shape but for
// that axis  [x's dtype]
template <>
struct KernelFor<ir::Op::TopK> {
  using Fn = void (*)(const Tensor& x, int axis, bool largest, Tensor& values, Tensor& indices);
};
// x (contiguous, rank >= 2) with the elements outside the lower (upper)
// triangle of each matrix of the last two dims set to 0: kept where
// j - i <= diagonal (tril) or j - i >= diagonal (triu)  [x's dtype]
template <>
struct KernelFor<ir::Op::Tril> {
  using Fn = void (*)(const Tensor& x, int64_t diagonal, bool upper, Tensor& out);
};

// Linear algebra of each matrix of x [..., n, n] (contiguous, n > 0),
// failing at loc (LinAlgError) where a matrix has no answer.
// out [..., n, n] = each matrix's inverse  [x's dtype, floating]
template <>
struct KernelFor<ir::Op::Inverse> {
  using Fn = void (*)(const Tensor& x, Tensor& out, SourceLoc loc);
};
// The parts of a determinant (linalg.h's determinant): of each matrix.
enum class DetPart { Value, Sign, LogAbs };
// Of one factorisation, each where its tensor is given (out [...]): the
// determinant, its sign, the log of its absolute value  [x's dtype,
// floating]; det_sign and log_abs_det run Det's entry
template <>
struct KernelFor<ir::Op::Det> {
  using Fn = void (*)(const Tensor& x, Tensor* value, Tensor* sign, Tensor* logAbs);
};
// out [..., n, n] = each matrix's cofactors (det's gradient), or with g
// (the cofactors' adjoint, [..., n, n]) the adjoint of the cofactor map
// at the matrix (det's second derivative)  [x's dtype, floating];
// cofactor_grad runs Cofactor's entry
template <>
struct KernelFor<ir::Op::Cofactor> {
  using Fn = void (*)(const Tensor& x, const Tensor* g, Tensor& out, SourceLoc loc);
};
// out [..., n, n] = L (lower) of each symmetric positive-definite matrix
// A = L L^T, or its transpose U = L^T with `upper`  [x's dtype, floating]
template <>
struct KernelFor<ir::Op::Cholesky> {
  using Fn = void (*)(const Tensor& x, bool upper, Tensor& out, SourceLoc loc);
};

// The eigenvalues [..., n] (ascending) of each symmetric matrix, from its
// lower triangle, and the eigenvectors [..., n, n] (as columns), each
// where its tensor is given  [x's dtype, floating]; eigh_vectors runs
// Eigvalsh's entry
template <>
struct KernelFor<ir::Op::Eigvalsh> {
  using Fn = void (*)(const Tensor& x, Tensor* values, Tensor* vectors, SourceLoc loc);
};

// Of each matrix of x [..., m, n] (m, n > 0), from one decomposition: the
// singular values [..., k] (k = min(m, n), descending), U [..., m, k] and
// Vh [..., k, n] (full: [..., m, m] and [..., n, n]), each where its
// tensor is given  [x's dtype, floating]; svd_u and svd_vh run Svdvals's
// entry
enum class SvdPart { Values, U, Vh };
template <>
struct KernelFor<ir::Op::Svdvals> {
  using Fn = void (*)(const Tensor& x, bool full, Tensor* values, Tensor* u, Tensor* vh, SourceLoc loc);
};

// Of each matrix of x [..., m, n] (m, n > 0), from one decomposition: Q
// [..., m, k] and R [..., k, n] of A = Q R, k = min(m, n), or m with
// `complete`, each where its tensor is given  [x's dtype, floating]; qr_r
// runs QrQ's entry
template <>
struct KernelFor<ir::Op::QrQ> {
  using Fn = void (*)(const Tensor& x, bool complete, Tensor* q, Tensor* r);
};

// Of each matrix of x [..., m, n] (m, n > 0): its LU factorisation with
// partial pivoting or, without `pivot`, none, packed into lu [..., m, n]
// (L below the diagonal, U on and above it), and the row exchanges pivots
// [..., min(m, n)] (i32, 1-based)  [x's dtype, floating]; lu_pivots runs
// LuFactor's entry
template <>
struct KernelFor<ir::Op::LuFactor> {
  using Fn = void (*)(const Tensor& x, bool pivot, Tensor& lu, Tensor& pivots);
};
// perm [..., rows] (i64) of the row exchanges pivots [..., k] (i32,
// contiguous): P[i, perm[i]] = 1, or P^T's with inverse; a pivot outside
// [1, rows] fails at loc  [i32]
template <>
struct KernelFor<ir::Op::LuPermutation> {
  using Fn = void (*)(const Tensor& pivots, bool inverse, Tensor& perm, SourceLoc loc);
};
// Of each symmetric matrix of x [..., n, n] (n > 0, its lower triangle
// read): its LDL^T factorisation with Bunch-Kaufman's pivoting packed
// into ld [..., n, n] (L below the diagonal, D's blocks on it and on the
// first subdiagonal, zeros above) and the interchanges pivots [..., n]
// (i32, 1-based, a 2 x 2 block's negative)  [x's dtype, floating];
// ldl_pivots runs LdlFactor's entry
template <>
struct KernelFor<ir::Op::LdlFactor> {
  using Fn = void (*)(const Tensor& x, Tensor& ld, Tensor& pivots);
};
// out = X of A X = b for each A = L D L^T given as ldl_factor's ld [...,
// n, n] and pivots [..., n] (i32); ld, pivots, b and out contiguous, of
// one batch shape, ld, b and out of one dtype; pivots that no
// factorisation gives fail at loc  [floating]
template <>
struct KernelFor<ir::Op::LdlSolve> {
  using Fn = void (*)(const Tensor& ld, const Tensor& pivots, const Tensor& b, Tensor& out, SourceLoc loc);
};
// out = X of T X = b (left) or X T = b, T the upper (lower) triangle of
// each a [..., n, n], its diagonal ones with unit; a, b and out
// contiguous, of one dtype and one batch shape  [floating]
template <>
struct KernelFor<ir::Op::SolveTriangular> {
  using Fn = void (*)(const Tensor& a, const Tensor& b, bool upper, bool left, bool unit, Tensor& out);
};
// out = X of A X = b for each a [..., n, n]; a, b and out contiguous, of
// one dtype and one batch shape; a singular A fails at loc  [floating]
template <>
struct KernelFor<ir::Op::Solve> {
  using Fn = void (*)(const Tensor& a, const Tensor& b, Tensor& out, SourceLoc loc);
};

// interpolate: x [planes, rows.in, cols.in] (contiguous, any leading
// shape) resampled plane by plane into out [planes, rows.out, cols.out]
// (resample.h)  [x's dtype]
template <>
struct KernelFor<ir::Op::Interpolate> {
  using Fn = void (*)(const Tensor& x, const Resample& rows, const Resample& cols, Tensor& out);
};
// Its gradient: g [planes, rows.out, cols.out] (contiguous) added back
// into the zero-filled f64 dx [planes, rows.in, cols.in]  [g's dtype, floating]
template <>
struct KernelFor<ir::Op::InterpolateGrad> {
  using Fn = void (*)(const Tensor& g, const Resample& rows, const Resample& cols, Tensor& dx);
};

// grid_sample: x [N, C, h, w] sampled at grid [N, Ho, Wo, 2] into out [N,
// C, Ho, Wo] (grid_sampling.h), all contiguous  [x's dtype, floating]
template <>
struct KernelFor<ir::Op::GridSample> {
  using Fn = void (*)(const Tensor& x, const Tensor& grid, const GridSampling& s, Tensor& out);
};
// Its gradients from g [N, C, Ho, Wo] (contiguous, x's dtype): each output
// element's weights times g added into the zero-filled f64 dx [N, C, h,
// w], and the slopes into dgrid [N, Ho, Wo, 2] (x's dtype); either may be
// null (not wanted)  [x's dtype, floating]; grid_sample_grad_grid runs
// GridSampleGradInput's entry
template <>
struct KernelFor<ir::Op::GridSampleGradInput> {
  using Fn = void (*)(const Tensor& g, const Tensor& x, const Tensor& grid, const GridSampling& s, Tensor* dx,
                      Tensor* dgrid);
};

// The labels of a ctc_loss call, read on the host: per batch element its
// input length (time steps of log_probs) and its target, labels[starts[n]
// .. starts[n] + targetLengths[n]]; the blank class; whether an infinite
// loss (no alignment) counts as 0; and for the gradient each element's
// adjoint.
struct CtcLabels {
  int64_t blank = 0;
  bool zeroInfinity = false;
  std::vector<int64_t> inputLengths, targetLengths, starts, labels;
  std::vector<double> weights;
};
// ctc_loss: nll [N] (f64) the negative log-likelihood of each batch
// element's target under log_probs [T, N, C] (contiguous), summed over its
// alignments; with grad ([T, N, C], log_probs's dtype) also weights[n]
// times nll[n]'s derivative in log_probs (0 past the input length and for
// a loss zero_infinity zeroed)  [log_probs's dtype, floating]
template <>
struct KernelFor<ir::Op::CtcLoss> {
  using Fn = void (*)(const Tensor& logProbs, const CtcLabels& labels, Tensor& nll, Tensor* grad);
};

// Creation and random ops fill a fresh contiguous `out` on the device.
// A ramp: out[i] = start + i * step, computed in double and converted as
// astype converts; with `exact`, integral outputs are computed in int64
// (intStart + i * intStep) instead; `last`, when set, is the value of the
// final element (linspace's stop)  [out's dtype]
struct Ramp {
  double start = 0, step = 1;
  bool exact = false;
  int64_t intStart = 0, intStep = 1;
  std::optional<double> last;
};
template <>
struct KernelFor<ir::Op::Arange> {
  using Fn = void (*)(const Ramp& ramp, Tensor& out);
};
template <>
struct KernelFor<ir::Op::Linspace> : KernelFor<ir::Op::Arange> {};
// out [n, m] = ones on the main diagonal, zeros elsewhere  [out's dtype]
template <>
struct KernelFor<ir::Op::Eye> {
  using Fn = void (*)(Tensor& out);
};
// Random draws in element order from the state's generator (random.h):
// uniform in [0, 1) for rand, standard normal for randn  [out's dtype,
// floating]; uniform integers in [low, low + range) for randint  [out's
// dtype, integral]. A device whose kernels run elsewhere draws its seed
// from the generator instead.
template <>
struct KernelFor<ir::Op::Rand> {
  using Fn = void (*)(RandomGenerator& rng, Tensor& out);
};
template <>
struct KernelFor<ir::Op::Randn> : KernelFor<ir::Op::Rand> {};
template <>
struct KernelFor<ir::Op::Randint> {
  using Fn = void (*)(RandomGenerator& rng, int64_t low, uint64_t range, Tensor& out);
};
// out [n] = a uniformly random permutation of 0 .. n-1 (Fisher-Yates)  [out's dtype]
template <>
struct KernelFor<ir::Op::Randperm> {
  using Fn = void (*)(RandomGenerator& rng, Tensor& out);
};
// out[i] = x[i] / (1 - p), or 0 where the i-th uniform draw is below p
// (all zeros for p = 1); x of out's shape and dtype  [out's dtype, floating]
template <>
struct KernelFor<ir::Op::Dropout> {
  using Fn = void (*)(const Tensor& x, double p, RandomGenerator& rng, Tensor& out);
};

// One device's kernels, by op and dtype (null where it has none).
class KernelTable {
 public:
  void addBinary(ir::Op op, DType t, BinaryKernel k) { binary_[idx(op, t)] = k; }
  void addUnary(ir::Op op, DType t, UnaryKernel k) { unary_[idx(op, t)] = k; }
  BinaryKernel binary(ir::Op op, DType t) const { return binary_[idx(op, t)]; }
  UnaryKernel unary(ir::Op op, DType t) const { return unary_[idx(op, t)]; }

  template <ir::Op O>
  void add(DType t, typename KernelFor<O>::Fn k) {
    other_[idx(O, t)] = reinterpret_cast<AnyKernel>(k);
  }
  // Null where the device has no kernel for op O and dtype t.
  template <ir::Op O>
  typename KernelFor<O>::Fn get(DType t) const {
    // Converting back to the type stored by add<O> is well defined.
    return reinterpret_cast<typename KernelFor<O>::Fn>(other_[idx(O, t)]);
  }
  // Whether any kernel (of any signature) is registered for op and dtype.
  bool has(ir::Op op, DType t) const {
    size_t i = idx(op, t);
    return binary_[i] || unary_[i] || other_[i];
  }
  // Drops every kernel whose op and dtype `other` has none for: this
  // table's kernels on another table's coverage (the CUDA plugin's, checked
  // on a machine without a GPU).
  void keepOnly(const KernelTable& other) {
    for (size_t i = 0; i < kSize; ++i)
      if (!other.binary_[i] && !other.unary_[i] && !other.other_[i]) {
        binary_[i] = nullptr;
        unary_[i] = nullptr;
        other_[i] = nullptr;
      }
  }

 private:
  using AnyKernel = void (*)();
  static size_t idx(ir::Op op, DType t) { return static_cast<size_t>(op) * kNumDTypes + static_cast<size_t>(t); }
  static constexpr size_t kSize = ir::kNumOps * kNumDTypes;
  std::array<BinaryKernel, kSize> binary_{};
  std::array<UnaryKernel, kSize> unary_{};
  std::array<AnyKernel, kSize> other_{};
};

// Registers the CPU kernels of the arithmetic ops (kernels_cpu_elementwise.cpp)
// and of the tensor math ops (kernels_cpu_math.cpp).
void registerCpuElementwiseKernels(KernelTable& r);
void registerCpuMathKernels(KernelTable& r);
// ... of f32 tensors' transcendental math through SLEEF
// (kernels_cpu_float32_math.cpp), registered over registerCpuMathKernels'.
void registerCpuFloat32MathKernels(KernelTable& r);
// i0, i0e, i1, i1e and airy_ai of f32 and f64 tensors, a block of
// elements at a time (kernels_cpu_bessel.cpp), over registerCpuMathKernels'
// own.
void registerCpuBesselKernels(KernelTable& t);
// A Python float's elementwise math, computed as an f64 tensor's CPU
// kernel computes an element (runtime/float_unary.def declares both):
// nullopt where op is not such math (floatUnary) or test (floatTest).
std::optional<double> floatUnary(ir::Op op, double x);
std::optional<bool> floatTest(ir::Op op, double x);
// ... of matmul and normalisation (kernels_cpu_nn.cpp: oneDNN for f32,
// loops for the other dtypes), of softmax and log_softmax
// (kernels_cpu_softmax.cpp), of the
// reductions (kernels_cpu_reduce.cpp) and of copies, gather and
// scatter_add (kernels_cpu_copy.cpp).
void registerCpuNnKernels(KernelTable& r);
void registerCpuSoftmaxKernels(KernelTable& r);
// ... of convolution and its gradients (kernels_cpu_conv.cpp), and of
// pooling and its gradient (kernels_cpu_pool.cpp).
void registerCpuConvKernels(KernelTable& r);
void registerCpuPoolKernels(KernelTable& r);
void registerCpuReduceKernels(KernelTable& r);
void registerCpuCopyKernels(KernelTable& r);
// dst = src, of one dtype and shape, any strides: the CPU's copy
// (kernels_cpu_copy.cpp: memcpy spans, rows, or 8 x 8 blocks of a
// transposed src).
void copySameType(const Tensor& src, const Tensor& dst);
// ... of one_hot and the losses' per-element work (kernels_cpu_loss.cpp).
void registerCpuLossKernels(KernelTable& r);
// ... of the creation ops (kernels_cpu_create.cpp) and the random ones
// (kernels_cpu_random.cpp).
void registerCpuCreateKernels(KernelTable& r);
void registerCpuRandomKernels(KernelTable& r);
// ... of the scans, sorts and triangles (kernels_cpu_order.cpp).
void registerCpuOrderKernels(KernelTable& r);
// ... of interpolate and grid_sample and their gradients
// (kernels_cpu_resample.cpp).
void registerCpuResampleKernels(KernelTable& r);
// ... of the linear algebra ops, through LAPACK (kernels_cpu_linalg.cpp).
void registerCpuLinalgKernels(KernelTable& r);
void registerCpuLuKernels(KernelTable& r);
// ... of the CTC loss and its gradient (kernels_cpu_ctc.cpp).
void registerCpuCtcKernels(KernelTable& r);

}  // namespace nn::rt
