// Tensor operations on runtime values: dtype conversion, NumPy broadcasting,
// elementwise arithmetic through the kernel registry, construction from
// nested lists, shape views, basic indexing and reductions. Errors are
// NnErrors at the given location, naming the op and the operand types
// ("shape mismatch in add: f32[2, 3] + f32[4]").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "runtime/kernels.h"
#include "runtime/scan_steps.h"
#include "runtime/tensor.h"
#include "support/diagnostics.h"

namespace nn::rt {

// "f32[2, 3]"
std::string typeString(const Tensor& t);

Tensor astype(const Tensor& t, DType dtype);
// t as a contiguous tensor on its own device (t itself when contiguous),
// copied by that device's kernel: what a transfer can move in one piece.
Tensor contiguousOnItsDevice(const Tensor& t, SourceLoc loc);
// t with memory the host can read: t itself when it has such memory, else
// a contiguous copy on its device's host (the index arrays of indexing,
// gather and scatter_add are read there to check and resolve them).
Tensor readableOnHost(const Tensor& t, SourceLoc loc);
// x's elements in new memory of `to` (x itself when it is there): x.to().
Tensor copyTo(const Tensor& x, Device& to, SourceLoc loc);
// Where the host writes a tensor meant for `device` (then copyTo it): the
// device itself when the host can address its memory, else its host.
Device& hostSideOf(Device& device);
Tensor broadcastTo(const Tensor& t, const Shape& shape, SourceLoc loc);
Shape broadcastShapes(const Shape& a, const Shape& b, SourceLoc loc, const std::string& what);
// The device two operands of `op` share; fails when they differ (an op
// never moves data between devices implicitly).
Device& commonDevice(const Tensor& a, const Tensor& b, const char* op, SourceLoc loc);
// The broadcast shape, or nullopt when the shapes are incompatible.
std::optional<Shape> tryBroadcastShapes(const Shape& a, const Shape& b);

// Elementwise ops may write their result into an operand the caller is
// giving up (its last use): the caller sets the operand's bit, and the
// buffer is reused only when that Value and its storage are held nowhere
// else and already have the result's dtype and shape, so the reuse can
// never be observed. It saves the allocation and keeps chains such as
// relu(a*b+c) in cache.
constexpr unsigned kConsumeFirst = 1, kConsumeSecond = 2;
// The buffer for an elementwise result: a consumable operand's (a, or b
// when given), else a new one.
Tensor elementwiseResult(DType dtype, const Shape& shape, const Value& a, const Value* b, unsigned consumable);

// a OP b where at least one side is a tensor and the other a tensor or a
// Python scalar (bool, int, float).
Value tensorBinary(ir::Op op, const Value& a, const Value& b, SourceLoc loc, unsigned consumable = 0);
Value tensorUnary(ir::Op op, const Value& a, SourceLoc loc, unsigned consumable = 0);

// The tensor math ops of ops.def (Exp ... LogicalNot) on a tensor or a
// Python number (which gives a Python number back).
Value mathUnary(ir::Op op, const Value& x, SourceLoc loc, unsigned consumable = 0);
// mathUnary's result for a float x where the float table computes it
// (runtime/float_unary.def: a float or, for the tests, a bool), else none.
std::optional<Value> floatMath(ir::Op op, double x);
// maximum, minimum, logical_and, logical_or with broadcasting.
Value mathBinary(ir::Op op, const Value& a, const Value& b, SourceLoc loc);
Value whereOp(const Value& cond, const Value& a, const Value& b, SourceLoc loc);
// clip(x, lo, hi); lo or hi may be None.
Value clipOp(const Value& x, const Value& lo, const Value& hi, SourceLoc loc);

// tensor(data, dtype=None): nested lists/tuples of numbers or bools,
// written element by element from the host, so `device` must be one whose
// memory the host addresses (as torch.tensor builds on the CPU; a copy
// moves the result to another device).
Tensor tensorFromData(const Value& data, std::optional<DType> dtype, SourceLoc loc, Device& device);
Value toList(const Tensor& t);
// The single element of a one-element tensor as a Python scalar.
Value item(const Tensor& t, SourceLoc loc);

// t in `shape` (one dim may be -1), contiguous: a view of contiguous t,
// else a copy.
Tensor reshape(const Tensor& t, Shape shape, SourceLoc loc);
// The same elements in `shape`, as PyTorch's reshape gives them: a view of
// t wherever strides can lay them out (an expanded or transposed tensor's
// dims split or merged within the runs one stride walks), which may then
// not be contiguous; else a contiguous copy. The language's reshape,
// flatten and a gradient's reshape back: the adjoint of a sum is an
// expanded scalar, which a copy would write out whole.
Tensor reshapeView(const Tensor& t, Shape shape, SourceLoc loc);
Tensor transpose(const Tensor& t, const std::vector<int64_t>& perm, SourceLoc loc);

// Creation on `device` (tensor_create.cpp), each through the device's
// kernel: a tensor of `value`; n elements of a ramp (op: Arange or
// Linspace); the n x m identity; rand/randn (op: Rand or Randn, floating
// dtypes) and randint's integers in [low, high) from the state's generator.
Tensor fullLike(DType dtype, const Shape& shape, double value, Device& device);
Tensor rampTensor(ir::Op op, DType dtype, int64_t n, const Ramp& ramp, Device& device, SourceLoc loc);
Tensor eye(DType dtype, int64_t n, int64_t m, Device& device, SourceLoc loc);
Tensor randomTensor(ir::Op op, DType dtype, const Shape& shape, RandomGenerator& rng, Device& device, SourceLoc loc);
Tensor randint(DType dtype, const Shape& shape, int64_t low, int64_t high, RandomGenerator& rng, Device& device,
               SourceLoc loc);

// x[index] for ints, slices, None, Ellipsis and tuples of them (views).
Tensor tensorGetItem(const Tensor& t, const Value& index, SourceLoc loc);
// A copy of t with t[index] = value (value broadcast to the selection).
Tensor tensorSetItem(const Tensor& t, const Value& index, const Value& value, SourceLoc loc);
// acc with g added at acc[index] for a basic index (ints, slices, None,
// Ellipsis), g of the selection's shape and acc's dtype: written into acc's
// own buffer when `consume` allows (nothing else holds it), else into a
// copy; nullopt for any other index or dtype.
std::optional<Tensor> addAtBasicIndex(const Value& acc, const Tensor& g, const Value& index, bool consume,
                                      SourceLoc loc);

// Joining, splitting and index-driven ops (tensor_shape_ops.cpp), with
// PyTorch's conventions: pad widths run from the last axis backwards,
// split takes a chunk size or a list of sizes, gather/scatter/scatter_add index
// along one axis.
Tensor concat(const std::vector<Tensor>& xs, int64_t axis, SourceLoc loc);
Tensor stack(const std::vector<Tensor>& xs, int64_t axis, SourceLoc loc);
std::vector<Tensor> splitSizes(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis, SourceLoc loc);
Tensor pad(const Tensor& x, const std::vector<int64_t>& widths, double value, SourceLoc loc);
// pad's widths check for a tensor of `rank` dims, every mode's.
void checkPadWidths(size_t rank, const std::vector<int64_t>& widths, SourceLoc loc);
// pad's other modes (pad_modes.cpp): reflect, replicate, circular, and
// the gradient g of such a pad of a tensor of inputShape.
enum class PadMode { Constant, Reflect, Replicate, Circular };
std::optional<PadMode> padMode(const std::string& name);
Tensor padWithMode(const Tensor& x, const std::vector<int64_t>& widths, PadMode mode, SourceLoc loc);
Tensor padWithModeGrad(const Tensor& g, const Shape& inputShape, const std::vector<int64_t>& widths, PadMode mode,
                       SourceLoc loc);
Tensor gather(const Tensor& x, int64_t axis, const Tensor& index, SourceLoc loc);
Tensor scatterAdd(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, SourceLoc loc);
Tensor scatter(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, SourceLoc loc);
// src as the ScatterAdd kernels sum it into an accumulator of dtype acc:
// f32 as it is into f64 (widened term by term), anything else converted.
Tensor scatterAddTerms(const Tensor& src, DType acc);
// scatter_reduce (scatter_reduce.cpp): PyTorch's, reduce "sum", "prod",
// "mean", "amax" or "amin", with x's own elements in the reduction or not.
Tensor scatterReduce(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, const std::string& reduce,
                     bool includeSelf, SourceLoc loc);
// Checks the operands of a scatter (index as for gather, src at least as
// large as index on every axis; `what` names the op) and returns the axis.
int scatterAxis(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, SourceLoc loc,
                const char* what);
int64_t normalizeAxis(int64_t axis, int ndim, SourceLoc loc, const char* what);

// Ops along one axis in order or by position (tensor_order.cpp): the
// scans cumsum, cumprod and logcumsumexp (no axis: the flattened tensor;
// integer and bool cumsums and cumprods in i64, logcumsumexps in f32), a
// stable sort's values and indices, the k first
// of that order (topk), and the triangles tril/triu (`upper`) of the last
// two dims.
Tensor scan(const Tensor& x, std::optional<int64_t> axis, bool reverse, ScanKind kind, SourceLoc loc);
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t axis, bool descending, SourceLoc loc);
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t axis, bool largest, SourceLoc loc);
Tensor triangle(const Tensor& x, int64_t diagonal, bool upper, SourceLoc loc);
// A random permutation of 0 .. n-1 (creation, tensor_create.cpp).
Tensor randperm(DType dtype, int64_t n, RandomGenerator& rng, Device& device, SourceLoc loc);

// Advanced indexing (tensor_index.cpp): integer arrays and boolean masks.
bool hasAdvancedIndex(const Value& index);
// The coordinates of the true (non-zero) elements of a tensor in host
// memory, in row-major order: [count, ndim] i64 (nonzero's result; a 0-d
// tensor gives [1, 0] or [0, 0]).
Tensor trueCoordinates(const Tensor& hostMask);
Tensor advancedGetItem(const Tensor& t, const Value& index, SourceLoc loc);
Tensor advancedSetItem(const Tensor& t, const Value& index, const Tensor& value, SourceLoc loc);

enum class Reduction { Sum, Mean, Prod, Max, Min, ArgMax, ArgMin, All, Any };
// sum(x * x) over x's trailing `axes` (all of them when none), in one pass
// on a CPU device for contiguous float x (the bits of the square op then
// the sum op); none for any other tensor or axes.
std::optional<Tensor> trailingSumsOfSquares(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims);
// Variance with `ddof` delta degrees of freedom (NumPy's convention, ddof=0).
Tensor variance(const Tensor& t, std::vector<int64_t> axes, bool keepdims, int64_t ddof, bool sqrtResult,
                SourceLoc loc, const char* name);
Tensor logsumexp(const Tensor& t, std::vector<int64_t> axes, bool keepdims, SourceLoc loc);
// axes empty = all axes; negative axes count from the end.
Tensor reduce(const Tensor& t, Reduction r, std::vector<int64_t> axes, bool keepdims, SourceLoc loc,
              const char* name);

}  // namespace nn::rt
