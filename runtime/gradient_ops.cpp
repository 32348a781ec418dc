// Gradient plumbing ops (see gradient_ops.h).
#include "runtime/gradient_ops.h"

#include "runtime/dispatch.h"
#include "runtime/kernels.h"
#include "runtime/tensor_ops.h"
#include "support/diagnostics.h"

namespace nn::rt {

Value sumTo(const Value& x, const Value& like, SourceLoc loc) {
  if (!like.is(Kind::Tensor)) {
    if (!x.is(Kind::Tensor)) return Value::real(x.asFloat());
    return Value::real(item(reduce(tensorOf(x), Reduction::Sum, {}, false, loc, "sum_to"), loc).asFloat());
  }
  const Tensor& l = tensorOf(like);
  DType dt = isFloating(l.dtype()) ? l.dtype() : x.is(Kind::Tensor) ? tensorOf(x).dtype() : DType::F32;
  if (!x.is(Kind::Tensor)) return makeTensorValue(fullLike(dt, l.shape(), x.asFloat(), l.device()));
  const Tensor& t = tensorOf(x);
  const Shape &xs = t.shape(), &ls = l.shape();
  if (xs.size() < ls.size())
    fail(loc, "internal error: sum_to from " + shapeString(xs) + " to the larger " + shapeString(ls));
  size_t lead = xs.size() - ls.size();
  std::vector<int64_t> axes;
  for (size_t i = 0; i < xs.size(); ++i) {
    bool added = i < lead || (ls[i - lead] == 1 && xs[i] != 1);
    if (!added && i >= lead && ls[i - lead] != xs[i])
      fail(loc, "internal error: sum_to from " + shapeString(xs) + " to " + shapeString(ls));
    if (added) axes.push_back(static_cast<int64_t>(i));
  }
  Tensor out = axes.empty() ? t : reshape(reduce(t, Reduction::Sum, axes, true, loc, "sum_to"), ls, loc);
  if (out.dtype() != dt) out = astype(out, dt);
  return makeTensorValue(std::move(out));
}

Tensor broadcastLike(const Tensor& x, const Tensor& like, SourceLoc loc) { return broadcastTo(x, like.shape(), loc); }

Tensor reshapeLike(const Tensor& x, const Tensor& like, SourceLoc loc) { return reshape(x, like.shape(), loc); }

Tensor indexGrad(const Tensor& g, const Tensor& x, const Value& index, SourceLoc loc) {
  // x[t] for an integer tensor t picks rows of x (its first dim): g's rows
  // added back to them, a scatter-add along that dim whose lines (x's
  // columns) run in parallel.
  if (index.is(Kind::Tensor) && x.ndim() >= 1 && isIntegral(tensorOf(index).dtype()) &&
      tensorOf(index).dtype() != DType::Bool) {
    const Tensor& rowsPicked = tensorOf(index);
    int64_t rows = x.dim(0), run = rows ? x.numel() / rows : 0, n = rowsPicked.numel();
    if (g.numel() == n * run && isFloating(g.dtype())) {
      // The rows were checked by the indexing; the CPU's kernel reads the
      // index through its strides, so each column's copy is a view there.
      Tensor at = broadcastTo(reshape(astype(rowsPicked, DType::I64), {n, 1}, loc), {n, run}, loc);
      Tensor src = reshape(scatterAddTerms(g, DType::F64), {n, run}, loc);
      if (!x.device().hostMemory()) {
        at = contiguousOnItsDevice(at, loc);
        src = contiguousOnItsDevice(src, loc);
      }
      Tensor sums = fullLike(DType::F64, {rows, run}, 0.0, x.device());
      launch<ir::Op::ScatterAdd>(x.device(), DType::F64, loc, 0, at, src, sums);
      return reshape(astype(sums, g.dtype()), x.shape(), loc);
    }
  }
  // A basic index (ints, slices): g written into zeros at the selection.
  if (!hasAdvancedIndex(index))
    if (std::optional<Tensor> r =
            addAtBasicIndex(makeTensorValue(fullLike(g.dtype(), x.shape(), 0.0, x.device())), g, index, true, loc))
      return *r;
  // Otherwise the flat position of every element x[index] selects: index a
  // ramp of positions the same way.
  Ramp ramp;
  ramp.exact = true;  // integer positions, counted exactly
  Tensor positions = reshape(rampTensor(ir::Op::Arange, DType::I64, x.numel(), ramp, x.device(), loc), x.shape(), loc);
  Tensor picked = tensorGetItem(positions, index, loc);
  Shape flat{x.numel()}, n{picked.numel()};
  Tensor summed = scatterAdd(fullLike(g.dtype(), flat, 0.0, x.device()), 0, reshape(picked.contiguous(), n, loc),
                             reshape(g.contiguous(), n, loc), loc);
  return reshape(summed, x.shape(), loc);
}

Value indexGradAdd(const Value& x, const Value& g, const Value& index, SourceLoc loc, bool consume) {
  if (!x.is(Kind::Tensor) || !g.is(Kind::Tensor)) fail(loc, "internal error: index_grad_add of a non-tensor");
  if (std::optional<Tensor> r = addAtBasicIndex(x, tensorOf(g), index, consume, loc)) return makeTensorValue(*r);
  Value spread = makeTensorValue(indexGrad(tensorOf(g), tensorOf(x), index, loc));
  return tensorBinary(ir::Op::Add, x, spread, loc, consume ? kConsumeFirst : 0);
}

Tensor reduceGrad(const Tensor& g, const Tensor& x, std::vector<int64_t> axes, bool keepdims, bool mean,
                  SourceLoc loc) {
  int ndim = x.ndim();
  Shape kept = x.shape();
  if (axes.empty()) {
    for (int64_t& d : kept) d = 1;
  } else {
    for (int64_t& a : axes) {
      a = normalizeAxis(a, ndim, loc, "reduce_grad");
      kept[static_cast<size_t>(a)] = 1;
    }
  }
  Tensor spread = broadcastTo(keepdims ? g : reshape(g, kept, loc), x.shape(), loc);
  if (!mean) return spread;
  int64_t count = 1;
  for (size_t i = 0; i < kept.size(); ++i) count *= kept[i] == 1 ? x.shape()[i] : 1;
  if (axes.empty()) count = x.numel();
  return tensorOf(tensorBinary(ir::Op::Div, makeTensorValue(spread), Value::real(static_cast<double>(count)), loc));
}

}  // namespace nn::rt
