// The implementations of the tensor ops named after PyTorch's (norm,
// repeat, diag, flip, roll, nonzero, embedding, conv1d) and of layer_norm's
// normalized_shape and its gradient, in terms of the runtime's tensor
// functions and kernels; nonzero alone reads its values on the host.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>

#include "runtime/dispatch.h"
#include "runtime/nn_ops.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;
using ir::Op;

Value normOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  if (!isFloating(x.dtype())) c.fail("expects a floating tensor, not " + typeString(x));
  double p = c.number("p");
  std::vector<int64_t> axes = c.ints("axis");
  bool keep = c.flag("keepdims");
  auto reduced = [&](const Value& v, Reduction r) {
    return makeTensorValue(reduce(tensorOf(v), r, axes, keep, c.loc, "norm"));
  };
  // x * x is |x| * |x| to the bit: no pass for the absolute values; over
  // trailing axes on the CPU no pass for the squares either.
  if (p == 2) {
    if (std::optional<Tensor> squares = trailingSumsOfSquares(x, axes, keep))
      return mathUnary(Op::Sqrt, makeTensorValue(std::move(*squares)), c.loc);
    return mathUnary(Op::Sqrt, reduced(mathUnary(Op::Square, c["x"], c.loc), Reduction::Sum), c.loc);
  }
  Value a = mathUnary(Op::Abs, c["x"], c.loc);
  if (std::isinf(p)) return reduced(a, p > 0 ? Reduction::Max : Reduction::Min);
  if (p == 0)
    return makeTensorValue(astype(tensorOf(reduced(compareOp(Op::Ne, a, Value::real(0), c.loc), Reduction::Sum)), x.dtype()));
  if (p == 1) return reduced(a, Reduction::Sum);
  Value powered = tensorBinary(Op::Pow, a, Value::real(p), c.loc);
  return tensorBinary(Op::Pow, reduced(powered, Reduction::Sum), Value::real(1.0 / p), c.loc);
}

// Each dim d of x (left-padded with 1s) viewed as [1, d], broadcast to
// [r, d] and merged: x tiled r times along it.
Value repeatOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  std::vector<int64_t> sizes = c.ints("sizes");
  if (sizes.size() < static_cast<size_t>(x.ndim()))
    c.fail("the number of repeats (" + std::to_string(sizes.size()) + ") cannot be smaller than the number of dims of " +
           typeString(x));
  std::vector<int64_t> padded(sizes.size() - x.ndim(), 1);
  padded.insert(padded.end(), x.shape().begin(), x.shape().end());
  std::vector<int64_t> pairs, tiled, out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) c.fail("repeats must be non-negative, got " + std::to_string(sizes[i]));
    pairs.insert(pairs.end(), {1, padded[i]});
    tiled.insert(tiled.end(), {sizes[i], padded[i]});
    out.push_back(sizes[i] * padded[i]);
  }
  Tensor spread = broadcastTo(reshape(x, pairs, c.loc), tiled, c.loc);
  return makeTensorValue(reshape(spread.contiguous(), out, c.loc));
}

// The k-th diagonal of [m, n], (i, i + k) for k >= 0 and (i - k, i) below,
// is a view with one stride, the sum of x's two: copied out of a 2-d x, or
// written into a zero square for a 1-d x. Exact for every dtype, and each
// step a kernel of x's device.
Value diagOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  int64_t k = c.integer("diagonal");
  if (x.ndim() != 1 && x.ndim() != 2) c.fail("expects a 1-d or 2-d tensor, got " + typeString(x));
  // (Past int64 every diagonal is out of range, the smallest k alike.)
  int64_t row = k < 0 ? (k == INT64_MIN ? INT64_MAX : -k) : 0, col = k > 0 ? k : 0;
  if (x.ndim() == 1) {
    int64_t n = x.dim(0), size = 0;
    if (__builtin_add_overflow(n, row + col, &size)) throw std::bad_alloc();  // no such square fits
    Tensor out = Tensor::zeros(x.dtype(), {size, size}, x.device());
    if (n > 0) out.view({n}, {size + 1}, row * size + col).copyFrom(x);
    return makeTensorValue(out);
  }
  int64_t m = x.dim(0), n = x.dim(1);
  int64_t len = std::max<int64_t>(0, std::min(m - row, n - col));
  int64_t start = len > 0 ? x.offset() + row * x.strides()[0] + col * x.strides()[1] : x.offset();
  return makeTensorValue(x.view({len}, {x.strides()[0] + x.strides()[1]}, start).clone());
}

// The dims an op names, each in range and named once.
std::vector<int64_t> distinctDims(OpCall& c, const std::vector<int64_t>& dims, const Tensor& x) {
  std::vector<int64_t> out;
  for (int64_t d : dims) {
    int64_t k = normalizeAxis(d, x.ndim(), c.loc, c.name);
    if (std::find(out.begin(), out.end(), k) != out.end())
      c.fail("dim " + std::to_string(k) + " appears multiple times in the list of dims");
    out.push_back(k);
  }
  return out;
}

// A view walking the flipped dims backwards (from their last element,
// with negated strides), copied out by the device's kernel.
Value flipOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  Shape strides = x.strides();
  int64_t offset = x.offset();
  for (int64_t k : distinctDims(c, c.ints("dims"), x)) {
    size_t d = static_cast<size_t>(k);
    if (x.dim(static_cast<int>(k)) > 0) offset += (x.dim(static_cast<int>(k)) - 1) * strides[d];
    strides[d] = -strides[d];
  }
  if (x.numel() == 0) return makeTensorValue(x.clone());
  return makeTensorValue(x.view(x.shape(), strides, offset).clone());
}

// Each dim's last `shift` elements moved to its front: the two views
// joined the other way round. Without dims, the flattened tensor rolls.
Value rollOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  std::vector<int64_t> shifts = c.ints("shifts");
  if (c.isNone("dims")) {
    if (shifts.size() != 1) c.fail("without dims, shifts is one int, not " + std::to_string(shifts.size()));
    Tensor flat = reshape(x.contiguous(), {x.numel()}, c.loc);
    if (x.numel() > 0) {
      int64_t n = x.numel(), s = ((shifts[0] % n) + n) % n;
      if (s != 0) flat = concat({flat.view({s}, {1}, flat.offset() + n - s), flat.view({n - s}, {1}, flat.offset())}, 0, c.loc);
    }
    return makeTensorValue(reshape(flat, x.shape(), c.loc));
  }
  std::vector<int64_t> dims = distinctDims(c, c.ints("dims"), x);
  if (shifts.size() != dims.size())
    c.fail("shifts and dims must align: " + std::to_string(shifts.size()) + " shifts for " + std::to_string(dims.size()) +
           " dims");
  Tensor out = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    size_t d = static_cast<size_t>(dims[i]);
    int64_t n = out.dim(static_cast<int>(d));
    if (n == 0) continue;
    int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    Shape tail = out.shape(), head = out.shape();
    tail[d] = s;
    head[d] = n - s;
    Tensor last = out.view(tail, out.strides(), out.offset() + (n - s) * out.strides()[d]);
    Tensor first = out.view(head, out.strides(), out.offset());
    out = concat({last, first}, static_cast<int64_t>(d), c.loc);
  }
  return makeTensorValue(out);
}

// Read on the host, where the count is known (as PyTorch's waits for a
// GPU), and handed back on x's device.
Value nonzeroOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  Tensor out = trueCoordinates(readableOnHost(x, c.loc));
  return makeTensorValue(copyTo(out, x.device(), c.loc));
}

Value embeddingOp(OpCall& c) {
  const Tensor& input = c.tensor("input");
  const Tensor& weight = c.tensor("weight");
  if (isFloating(input.dtype()) || input.dtype() == DType::Bool)
    c.fail("input must be an integer tensor of indices, not " + typeString(input));
  if (weight.ndim() != 2) c.fail("weight must be 2-d [num_embeddings, dim], got " + typeString(weight));
  // Indices count from 0 (PyTorch's), not from the end as NumPy's indexing.
  if (input.numel() > 0 && item(reduce(input, Reduction::Min, {}, false, c.loc, "embedding"), c.loc).asInt() < 0)
    nn::fail(c.loc, "embedding(): an index is negative (indices count rows from 0)", ErrorClass::IndexError);
  return makeTensorValue(tensorGetItem(weight, c["input"], c.loc));
}

// conv2d on the [N, C, 1, L] and [OC, C/groups, 1, K] views.
Value conv1dOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  const Tensor& w = c.tensor("w");
  if (x.ndim() != 3) c.fail("expects a 3-d input [N, C, L], got " + typeString(x));
  if (w.ndim() != 3) c.fail("expects a 3-d weight [OC, C/groups, K], got " + typeString(w));
  auto one = [&](const char* name) {
    std::vector<int64_t> v = c.ints(name);
    if (v.size() != 1) c.fail(std::string(name) + " must be an int or a 1-tuple");
    return v[0];
  };
  ConvParams p;
  p.strideW = one("stride");
  p.padW = one("padding");
  p.dilW = one("dilation");
  p.groups = c.integer("groups");
  Tensor x4 = reshape(x, {x.dim(0), x.dim(1), 1, x.dim(2)}, c.loc);
  Tensor w4 = reshape(w, {w.dim(0), w.dim(1), 1, w.dim(2)}, c.loc);
  Tensor y = conv2d(x4, w4, c.optionalTensor("b"), p, c.loc);
  return makeTensorValue(reshape(y, {y.dim(0), y.dim(1), y.dim(3)}, c.loc));
}

// layer_norm over the last len(normalized_shape) dims: the kernel's last
// axis on the view that merges them.
namespace {

// layer_norm's normalized_shape checked against x and the affine tensors
// and folded into one last dim: x's shape with its normalised dims merged
// ({} when normalized_shape is None: the last dim alone, as it stands);
// `size` their product.
Shape normalisedRows(OpCall& c, const Tensor& x, std::initializer_list<const Tensor*> affine, int64_t& size) {
  std::vector<int64_t> dims = c.ints("normalized_shape");
  size = 1;
  if (dims.empty()) return {};
  size_t k = dims.size();
  bool matches = static_cast<size_t>(x.ndim()) >= k;
  for (size_t i = 0; matches && i < k; ++i) matches = x.dim(static_cast<int64_t>(x.ndim() - k + i)) == dims[i];
  for (int64_t d : dims) size *= d;
  auto given = [&] {  // for the messages only
    std::string s = "(";
    for (size_t i = 0; i < k; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + (k == 1 ? ",)" : ")");
  };
  if (!matches) c.fail("normalized_shape " + given() + " is not the last dims of " + typeString(x));
  for (const Tensor* t : affine)
    if (t && t->shape() != Shape(dims.begin(), dims.end()))
      c.fail("weight and bias must have the shape normalized_shape " + given() + ", got " + typeString(*t));
  Shape merged(x.shape().begin(), x.shape().end() - static_cast<std::ptrdiff_t>(k));
  merged.push_back(size);
  return merged;
}

}  // namespace

Value layerNormOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  const Tensor* weight = c.optionalTensor("weight");
  const Tensor* bias = c.optionalTensor("bias");
  double eps = c.number("eps");
  int64_t size;
  Shape merged = normalisedRows(c, x, {weight, bias}, size);
  if (merged.empty()) return makeTensorValue(layerNorm(x, weight, bias, eps, c.loc));
  Tensor w = weight ? reshape(*weight, {size}, c.loc) : Tensor(), b = bias ? reshape(*bias, {size}, c.loc) : Tensor();
  Tensor y = layerNorm(reshape(x, merged, c.loc), weight ? &w : nullptr, bias ? &b : nullptr, eps, c.loc);
  return makeTensorValue(reshape(y, x.shape(), c.loc));
}

Value layerNormGradOp(OpCall& c) {
  const Tensor& g = c.tensor("g");
  const Tensor& x = c.tensor("x");
  const Tensor* weight = c.optionalTensor("weight");
  double eps = c.number("eps");
  int64_t size;
  Shape merged = normalisedRows(c, x, {weight}, size);
  if (merged.empty()) return makeTensorValue(layerNormGrad(g, x, weight, eps, c.loc));
  if (g.shape() != x.shape())
    c.fail("the gradient must have the input's shape " + typeString(x) + ", got " + typeString(g));
  Tensor w = weight ? reshape(*weight, {size}, c.loc) : Tensor();
  Tensor dx = layerNormGrad(reshape(g, merged, c.loc), reshape(x, merged, c.loc), weight ? &w : nullptr, eps, c.loc);
  return makeTensorValue(reshape(dx, x.shape(), c.loc));
}

}  // namespace nn::stdlib
