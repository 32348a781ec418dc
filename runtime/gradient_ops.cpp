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

Tensor reshapeLike(const Tensor& x, const Tensor& like, SourceLoc loc) { return reshapeView(x, like.shape(), loc); }

namespace {

bool fullSlice(const Value& v) {
  if (!v.is(Kind::Slice)) return false;
  const SliceObj& s = v.as<SliceObj>();
  return s.start.is(Kind::None) && s.stop.is(Kind::None) && s.step.is(Kind::None);
}

bool integerTensor(const Value& v) {
  return v.is(Kind::Tensor) && isIntegral(tensorOf(v).dtype()) && tensorOf(v).dtype() != DType::Bool;
}

// Where `index` picks along one axis of a tensor of `rank` dims: an
// integer tensor alone (axis 0), or full slices with one integer tensor
// among them (index_select's and x[:, t]'s); the tensor and the axis.
std::optional<std::pair<Tensor, int64_t>> pickAlongOneAxis(const Value& index, int64_t rank) {
  if (integerTensor(index)) return std::make_pair(tensorOf(index), int64_t{0});
  if (!index.is(Kind::Tuple)) return std::nullopt;
  const std::vector<Value>& items = index.as<SeqObj>().items;
  if (static_cast<int64_t>(items.size()) > rank) return std::nullopt;
  std::optional<std::pair<Tensor, int64_t>> pick;
  for (size_t k = 0; k < items.size(); ++k) {
    if (fullSlice(items[k])) continue;
    if (pick || !integerTensor(items[k])) return std::nullopt;
    pick = std::make_pair(tensorOf(items[k]), static_cast<int64_t>(k));
  }
  return pick;
}

}  // namespace

Tensor indexGrad(const Tensor& g, const Tensor& x, const Value& index, SourceLoc loc) {
  // x[t] for an integer tensor t picks along one axis of x (the first, or
  // the one t stands at among full slices): g's slices added back to
  // x's, a scatter-add along that axis of x seen as [before, axis, after],
  // whose lines (the other coordinates) run in parallel.
  if (auto pick = pickAlongOneAxis(index, x.ndim()); pick && x.ndim() > 0 && isFloating(g.dtype())) {
    const auto& [picked, axis] = *pick;
    int64_t before = 1, after = 1, len = x.dim(static_cast<int>(axis)), n = picked.numel();
    for (int d = 0; d < x.ndim(); ++d) {
      if (d < axis) before *= x.dim(d);
      if (d > axis) after *= x.dim(d);
    }
    if (g.numel() == before * n * after) {
      // The picks were checked by the indexing; the CPU's kernel reads the
      // index and g through their strides, so both are views there.
      Tensor at = broadcastTo(reshape(astype(picked, DType::I64), {1, n, 1}, loc), {before, n, after}, loc);
      Tensor src = reshapeView(scatterAddTerms(g, DType::F64), {before, n, after}, loc);
      if (!x.device().hostMemory()) {
        at = contiguousOnItsDevice(at, loc);
        src = contiguousOnItsDevice(src, loc);
      }
      Tensor sums = fullLike(DType::F64, {before, len, after}, 0.0, x.device());
      launch<ir::Op::ScatterAdd>(x.device(), DType::F64, loc, 1, at, src, sums);
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
