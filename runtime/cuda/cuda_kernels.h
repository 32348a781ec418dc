// The CUDA plugin's device code as the host side calls it: plain launches
// on a stream, declared with host types only, so that cuda_device.cpp is
// compiled by the host compiler and only cuda_kernels.cu by nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/cuda/kernel_codes.h"
#include "runtime/grid_sampling.h"
#include "runtime/resample.h"
#include "runtime/scan_steps.h"
#include "runtime/scatter_steps.h"

namespace nn::rt::cuda {

// out (contiguous, n elements, out's shape `at`) = a op b, all of dtype
// `type` (f32, f64, i32, i64; And and Or: bool; the bitwise ops and
// shifts: integers, and bool for BitAnd, BitOr, BitXor, Maximum, Minimum),
// read through their strides. Integers wrap around; false for an integer
// division or modulo by zero, or an integer to a negative power (found
// after waiting for the stream).
bool binary(Binary op, Elem type, const void* a, const Strided& sa, const void* b, const Strided& sb, void* out,
            const Strided& at, int64_t n, cudaStream_t s);
// out (contiguous) = op(a) read through a's strides, of dtype `type`
// (the float functions: f32 and f64; Neg, Pos, Abs, Sign, Invert, Relu,
// Floor, Ceil, Round: also integers; Not and Invert: bool).
void unary(Unary op, Elem type, const void* a, const Strided& sa, void* out, const Strided& at, int64_t n,
           cudaStream_t s);
// out (bool, contiguous) = isnan / isinf / isfinite of a (of any dtype:
// integers and bools are finite).
void predicate(Predicate op, Elem type, const void* a, const Strided& sa, bool* out, const Strided& at, int64_t n,
               cudaStream_t s);
// out[i] (i < outputs, of dtype `to`) = the sum (or mean) of in's run i of
// `run` elements in each of `outer` blocks of outputs * run (kernels.h's
// Sum), in (of dtype `from`) accumulated as the CPU does: floats in
// double, integers and bools in wrapping int64.
void sum(Elem from, const void* in, int64_t outer, int64_t outputs, int64_t run, Elem to, void* out, bool mean,
         cudaStream_t s);
// out[i] (i < outputs, of dtype `to`) = the reduction of run i of `run`
// elements of contiguous x (of dtype `from`), as the CPU's: max and min
// (and their arg forms) take the first best element and a NaN wins;
// products in double (floats) or wrapping int64.
void reduce(Reduce op, Elem from, const void* x, int64_t outputs, int64_t run, Elem to, void* out, cudaStream_t s);
// n elements of out (of dtype `type`) = value, converted as astype does.
void fill(Elem type, void* out, int64_t n, double value, cudaStream_t s);
// out (bool, contiguous) = a cmp b (both of dtype `type`, any but bool),
// read through their strides; a NaN compares unequal to everything.
void compare(Compare op, Elem type, const void* a, const Strided& sa, const void* b, const Strided& sb, bool* out,
             const Strided& at, int64_t n, cudaStream_t s);
// out (contiguous, of dtype `type`) = cond ? x : y, each read through its
// strides.
void where(const bool* cond, const Strided& sc, Elem type, const void* x, const Strided& sx, const void* y,
           const Strided& sy, void* out, const Strided& at, int64_t n, cudaStream_t s);
// dst (of dtype `to`, through `sd`) = src (of dtype `from`, through `ss`)
// converted as the CPU's astype: to bool, non-zero; float to integer
// truncating, NaN as 0 and saturating.
void convert(Elem from, const void* src, const Strided& ss, Elem to, void* dst, const Strided& sd, int64_t n,
             cudaStream_t s);
// (log_)softmax of contiguous x (f32 or f64) seen as [outer, n, inner]
// along n, summed in double: a row holding a NaN is NaN throughout, as
// PyTorch's.
void softmax(Elem type, const void* x, int64_t outer, int64_t n, int64_t inner, void* out, bool log, cudaStream_t s);
// out (0-d) = -mean over i < rows of logProbs[i, labels[i]], rows
// labelled `ignore` left out (NaN for no rows counted), f32 or f64, summed
// in double; false with `bad` = the first label outside [0, classes) and
// not `ignore`. Waits for the stream.
// p [rows, classes] (softmax(logits)) = (p - one_hot(labels)) * g[0] / M,
// in place, M the rows not labelled `ignore`, which become 0:
// cross_entropy's gradient. f32 or f64.
void crossEntropyGrad(Elem type, const void* g, const int64_t* labels, int64_t rows, int64_t classes, int64_t ignore,
                      void* p, cudaStream_t s);
bool crossEntropy(Elem type, const void* logProbs, const int64_t* labels, int64_t rows, int64_t classes,
                  int64_t ignore, void* out, int64_t& bad, cudaStream_t s);
// out [m, n] (contiguous) = a [m, k] @ b [k, n] of integers (i32 or i64),
// read through the given element strides, wrapping around as the CPU's
// loop does (cuBLAS has no integer GEMM of this kind).
void integerMatmul(Elem type, const void* a, int64_t am, int64_t ak, const void* b, int64_t bk, int64_t bn, void* out,
                   int64_t m, int64_t k, int64_t n, cudaStream_t s);
// out [m, classes] (i64) = one-hot rows of labels (i32 or i64: `wide`);
// false with `bad` = the first label outside [0, classes). Waits for the
// stream.
bool oneHot(const void* labels, bool wide, int64_t m, int64_t classes, int64_t* out, int64_t& bad, cudaStream_t s);
// Indexing, with offsets counted in elements from a storage's start.
// out (contiguous, n * run elements): out[i * run + j] =
// base[offsets[i] + j]; `offsets` is host memory (copied to the device in
// stream order).
void take(Elem type, const void* base, const int64_t* offsets, int64_t n, int64_t run, void* out, cudaStream_t s);
// base[offsets[i]] = values' row-major element i (read through `sv`, in a
// walk of shape `at`); `offsets` is host memory. A repeated offset keeps
// one of its values, not necessarily the last.
void put(Elem type, const void* values, const Strided& sv, const Strided& at, const int64_t* offsets, int64_t n,
         void* base, cudaStream_t s);
// out (contiguous, the index's shape) = x at index along `axis` (index:
// device i64 through `si`, checked in range; x through `sx`).
void gather(Elem type, const void* x, const Strided& sx, int axis, const int64_t* index, const Strided& si, void* out,
            int64_t n, cudaStream_t s);
// out (f64 or i64, `type`, through `so`) += src (`srcType`: out's type,
// or f32 into f64) at the index positions along `axis`, with atomic adds:
// integers wrap around; the order of float additions, so the last bits of
// a sum, may differ from the CPU's.
void scatterAdd(Elem type, int axis, const int64_t* index, const Strided& si, Elem srcType, const void* src,
                const Strided& ss, void* out, const Strided& so, int64_t n, cudaStream_t s);
// out (of `type`, through `so`) gets src (of out's type) at the index
// positions along `axis`, where the index (n elements) has `along`
// elements on the axis and `inner` after it; each line along the axis is
// written in order (deterministic: the later of two writes stays).
void scatter(Elem type, int axis, const int64_t* index, const Strided& si, const void* src, const Strided& ss,
             void* out, const Strided& so, int64_t along, int64_t inner, int64_t n, cudaStream_t s);
// scatter_reduce's product, maximum or minimum (scatter_steps.h) of src
// into out as scatter writes it, line by line in order (type f64 or i64).
void scatterReduce(Elem type, int axis, const int64_t* index, const Strided& si, const void* src, const Strided& ss,
                   void* out, const Strided& so, int64_t along, int64_t inner, int64_t n, ScatterReduction r,
                   cudaStream_t s);
// Scans (cumsum, cumprod, logcumsumexp: scan_steps.h) of contiguous `in`
// seen as lines of `len` elements `inner` apart, reversed with `reverse`;
// floats accumulate in double and integers wrap, in the CPU's order
// (numeric dtypes; logcumsumexp f32 and f64).
void scan(Elem type, const void* in, int64_t lines, int64_t len, int64_t inner, bool reverse, ScanKind kind, void* out,
          cudaStream_t s);
// values and indices (i64) of contiguous `in`'s lines (as for scan)
// sorted stably, ascending with NaN last or descending with NaN first;
// one thread per line.
void sort(Elem type, const void* in, int64_t lines, int64_t len, int64_t inner, bool descending, void* values,
          int64_t* indices, cudaStream_t s);
// out (n elements of matrices [rows, cols], contiguous) = in with the
// elements off the kept triangle set to 0: kept where j - i <= diagonal
// (tril) or j - i >= diagonal (upper: triu).
void triangle(Elem type, const void* in, int64_t rows, int64_t cols, int64_t diagonal, bool upper, void* out,
              int64_t n, cudaStream_t s);
// out [rows, D] = each row of contiguous x normalised (biased variance,
// eps inside the root), times gamma [D] and plus beta [D] where not null;
// f32 or f64, accumulated in double.
void layerNorm(Elem type, const void* x, int64_t rows, int64_t D, const void* gamma, const void* beta, double eps,
               void* out, cudaStream_t s);
// out [rows, D] = layer_norm's gradient g [rows, D] with respect to x
// [rows, D] (all contiguous; gamma [D] or null), accumulated in double.
void layerNormGrad(Elem type, const void* g, const void* x, int64_t rows, int64_t D, const void* gamma, double eps,
                   void* out, cudaStream_t s);
// out (0-d) = the mean of -(y log p + (1 - y) log(1 - p)) over n
// elements (logs clamped at -100; NaN when empty); false when some p is
// outside [0, 1]. f32 or f64; waits for the stream.
bool binaryCrossEntropy(Elem type, const void* p, const void* y, int64_t n, void* out, cudaStream_t s);
// out (n elements: planes of [rows.out, cols.out]) = each [rows.in,
// cols.in] plane of contiguous x resampled (resample.h), one thread per
// output element.
void interpolate(Elem type, const void* x, const Resample& rows, const Resample& cols, void* out, int64_t n,
                 cudaStream_t s);
// dx (f64, zero-filled planes of [rows.in, cols.in]) += the shares of
// each of g's n elements (planes of [rows.out, cols.out], contiguous, f32
// or f64), with atomic adds: the last bits of a sum may differ from the
// CPU's.
void interpolateGrad(Elem type, const void* g, const Resample& rows, const Resample& cols, double* dx, int64_t n,
                     cudaStream_t s);
// out (n elements: [N, C] planes of `positions`) = contiguous x [N, C, h,
// w] sampled at grid [N, positions, 2] (grid_sampling.h), one thread per
// output element. f32 or f64.
void gridSample(Elem type, const void* x, const void* grid, const GridSampling& s, int64_t channels,
                int64_t positions, void* out, int64_t n, cudaStream_t st);
// Its gradients from g [N, C, positions]: dx (f64, zero-filled [N, C, h,
// w]; null: not wanted) += each element's shares, with atomic adds (the
// last bits of a sum may differ from the CPU's); dgrid ([N, positions, 2]
// of g's dtype; null: not wanted) = the slopes' shares summed over the
// channels.
void gridSampleGrad(Elem type, const void* g, const void* x, const void* grid, const GridSampling& s, int64_t batch,
                    int64_t channels, int64_t positions, double* dx, void* dgrid, cudaStream_t st);
// Max pooling's windows (PoolParams's) over [h, w] planes into [outH, outW].
struct PoolWindows {
  int64_t h, w, outH, outW, kH, kW, strideH, strideW, padH, padW, dilH, dilW;
};
// out (i64, n elements: planes of [outH, outW]) = the flat index within its
// plane of contiguous x of each window's maximum, the CPU's choice (the
// first largest in row order, a NaN the last; -1 for a window wholly in the
// padding), one thread per output element. f32 or f64.
void maxPoolIndices(Elem type, const void* x, const PoolWindows& p, int64_t* out, int64_t n, cudaStream_t s);
}  // namespace nn::rt::cuda
