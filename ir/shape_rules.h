// The shape rules that ops.def names for the tensor ops: each gives the
// result type of the op from the types (and constant attributes) of its
// bound arguments (op_args.h: an op node's, or a call's of the op's
// builtin), or nullopt when they do not determine it, and fails at the node
// with the runtime's message when they prove a mismatch (reshape to a size
// that cannot fit, linear of incompatible shapes).
#pragma once

#include "ir/op_args.h"

namespace nn::ir::shape_rules {

std::optional<Type> Untyped(const OpArgs& args);      // no rule: the result is any
std::optional<Type> Elementwise(const OpArgs& args);  // the op's own rule (tensor_type_rules.cpp)
std::optional<Type> Creation(const OpArgs& args);     // zeros(2, 3, dtype=f64)
std::optional<Type> Like(const OpArgs& args);         // zeros_like(x)
std::optional<Type> Reduce(const OpArgs& args);       // sum(x), sum(x, axis=1, keepdims=True)
std::optional<Type> Reshape(const OpArgs& args);
std::optional<Type> Transpose(const OpArgs& args);    // swaps two dims; no axes reverses them
std::optional<Type> Permute(const OpArgs& args);      // a permutation; no dims reverses them
std::optional<Type> Flatten(const OpArgs& args);      // dims start_dim..end_dim as one
std::optional<Type> Linear(const OpArgs& args);       // x @ w.T + b
std::optional<Type> Softmax(const OpArgs& args);     // x's shape, floating (also layer_norm_grad)
std::optional<Type> Conv2d(const OpArgs& args);      // [N, OC, OH, OW]
std::optional<Type> Pool2d(const OpArgs& args);      // [N, C, OH, OW]
std::optional<Type> Interpolate(const OpArgs& args);       // [N, C] and the resized dims, x's dtype
std::optional<Type> GridSample(const OpArgs& args);        // [N, C, Ho, Wo], the input's dtype
std::optional<Type> OneHot(const OpArgs& args);      // i64[..., n]
std::optional<Type> Randperm(const OpArgs& args);    // i64[n]
std::optional<Type> Scan(const OpArgs& args);        // x's shape (no axis: flattened); cumsum of ints i64
std::optional<Type> Ordered(const OpArgs& args);     // sort/topk: a tuple; argsort: i64 of x's shape
std::optional<Type> MaskedFill(const OpArgs& args);  // x's type; the mask broadcasts to it
std::optional<Type> Outer(const OpArgs& args);       // [len(a), len(b)]
std::optional<Type> SquareMatrices(const OpArgs& args);  // x's type; x [..., n, n]
std::optional<Type> Determinants(const OpArgs& args);    // x's dtype, x's shape less the last two dims
std::optional<Type> Eigenvalues(const OpArgs& args);     // x's dtype, x's shape less the last dim
std::optional<Type> SingularValues(const OpArgs& args);   // [..., min(m, n)]
std::optional<Type> SingularVectors(const OpArgs& args);  // svd_u's U, svd_vh's Vh
std::optional<Type> QrFactor(const OpArgs& args);         // qr_q's Q, qr_r's R
std::optional<Type> Matrices(const OpArgs& args);         // x's type; x [..., m, n] (lu_factor)
std::optional<Type> LuPivots(const OpArgs& args);         // i32 [..., min(m, n)]
std::optional<Type> LuPermutation(const OpArgs& args);    // i64 [..., rows] of pivots [..., k]
std::optional<Type> SolveTriangular(const OpArgs& args);  // b's shape, the batch dims broadcast
std::optional<Type> Solve(const OpArgs& args);            // b's shape, the batch dims broadcast
std::optional<Type> IsClose(const OpArgs& args);     // bool, a and b broadcast
std::optional<Type> Loss(const OpArgs& args);
std::optional<Type> CtcLoss(const OpArgs& args);     // 0-d, or [N] with reduction 'none'
std::optional<Type> CrossEntropy(const OpArgs& args);  // 0-d, or input's shape less the class dim ('none')
// The ops gradient rules emit (ir/gradient.h).
std::optional<Type> SumTo(const OpArgs& args);          // like's shape
std::optional<Type> BroadcastLike(const OpArgs& args);  // like's shape, x's dtype
std::optional<Type> ReduceGrad(const OpArgs& args);     // x's shape, g's dtype
std::optional<Type> IndexGrad(const OpArgs& args);      // x's shape, g's dtype
std::optional<Type> Conv2dGradInput(const OpArgs& args);   // x's shape, g's dtype
std::optional<Type> Conv2dGradWeight(const OpArgs& args);  // w's shape, g's dtype
std::optional<Type> Pool2dGrad(const OpArgs& args);        // x's shape, g's dtype
std::optional<Type> InterpolateGrad(const OpArgs& args);   // x's shape, g's dtype
std::optional<Type> GridSampleGrad(const OpArgs& args);    // the input's or the grid's type
std::optional<Type> CtcLossGrad(const OpArgs& args);       // log_probs's type
std::optional<Type> CrossEntropyGrad(const OpArgs& args);  // logits' type

// For the rules' files: the tensor operand `name`'s type (nullopt where
// it is absent or not a tensor), and the rule of a language op (matmul,
// pow, neg, +) applied to `operands`.
std::optional<Type> tensorOperand(const OpArgs& args, std::string_view name);
std::optional<Type> asOp(Op op, SourceLoc loc, const std::vector<const Value*>& operands);

// The name a linear algebra op's errors give it, in every mode: its
// builtin's (slogdet for det_sign and log_abs_det, eigh for eigh_vectors,
// svd for svd_u and svd_vh, qr for qr_q and qr_r).
const char* linearAlgebraName(Op op);

// What is wrong with grid_sample's input and grid of these types (nullopt:
// nothing it can prove): its shape rule and its run-time check word it
// alike.
std::optional<std::string> gridSampleMismatch(const Type& input, const Type& grid);

// The number of windows of size k (dilated by dil) that convolution or
// pooling sweeps over a length `in` padded by `pad` on each side at
// `stride` (PyTorch's pooling_output_shape): the whole windows, or with
// ceil_mode one more where a partial window would start inside the input
// or its left padding; 0 when no window fits. The shape rules and the
// runtime share it.
int64_t windowCount(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dil, bool ceilMode = false);

// The pieces' lengths when split cuts `len` into pieces of `size` (> 0):
// `size` each, the last one shorter; the runtime and lower-splits share it.
std::vector<int64_t> evenSplit(int64_t len, int64_t size);
// The piece length chunk uses for `chunks` (> 0) pieces: ceil(len /
// chunks), at least 1, as PyTorch.
int64_t chunkSize(int64_t len, int64_t chunks);

// The permutation of a rank-`rank` tensor's dims that transpose (`swap`:
// two axes are the dims to swap, as PyTorch; otherwise none or a full
// permutation, as NumPy) or permute (`swap` false) make of `axes`; nullopt
// with `error` set when the axes do not fit. The runtime and the rules
// share it.
std::optional<std::vector<int64_t>> permutationOf(int64_t rank, const std::vector<int64_t>& axes, bool swap,
                                                  std::string& error);
// The shape flatten(x, start_dim, end_dim) makes of dims `shape` (-1 for
// an unknown one); nullopt with `error` set when the dims are out of range.
std::optional<std::vector<int64_t>> flattenedShape(const std::vector<int64_t>& shape, int64_t start, int64_t end,
                                                   std::string& error);

// A full reduction of `x` by `op`: its dtype, rank 0.
Type fullReduction(Op op, const Type& x);

}  // namespace nn::ir::shape_rules
