// Advanced (NumPy "fancy") indexing: integer tensors or lists and boolean
// masks inside an index. A boolean mask stands for the integer indices of
// its true elements (np.nonzero). The integer index arrays broadcast
// together; their result dimensions replace the indexed axes when those are
// adjacent and go first otherwise, as in NumPy. Reads gather into a new
// tensor; writes produce an updated copy (functional update). The index
// arrays are read on the host (copied there from a device whose memory it
// cannot address); the device's kernels get the resolved element offsets.
#include <algorithm>

#include "runtime/dispatch.h"
#include "runtime/kernel_loops.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

bool isAdvanced(const Value& v) { return v.is(Kind::Tensor) || v.is(Kind::List); }

struct AdvancedPlan {
  Tensor view;                  // the tensor after basic indexing, advanced axes kept whole
  std::vector<int> axes;        // view axes indexed by arrays
  std::vector<Tensor> arrays;   // broadcast int64 index arrays, one per axis
  Shape broadcast;              // their common shape
  bool adjacent = true;
};

AdvancedPlan advancedPlan(const Tensor& t, const Value& index, SourceLoc loc) {
  std::vector<Value> parts = index.is(Kind::Tuple) ? index.as<SeqObj>().items : std::vector<Value>{index};
  // Expand boolean masks into one integer array per masked axis.
  std::vector<Value> expanded;
  std::vector<bool> advanced;
  for (const Value& p : parts) {
    if (!isAdvanced(p)) {
      expanded.push_back(p);
      advanced.push_back(false);
      continue;
    }
    // Index arrays are read on the host, wherever t is.
    Tensor a = p.is(Kind::Tensor) ? readableOnHost(tensorOf(p), loc)
                                  : tensorFromData(p, std::nullopt, loc, t.device().hostSide());
    if (a.dtype() == DType::Bool) {
      // One index array per masked axis: a column of the true elements'
      // coordinates (nonzero's).
      Tensor coords = trueCoordinates(a);
      for (int d = 0; d < a.ndim(); ++d) {
        Shape column{coords.dim(0)};
        expanded.push_back(makeTensorValue(coords.view(column, {a.ndim()}, coords.offset() + d)));
        advanced.push_back(true);
      }
      continue;
    }
    if (!isIntegral(a.dtype())) fail(loc, "tensor index arrays must be integer or bool, not " + typeString(a));
    expanded.push_back(makeTensorValue(a));
    advanced.push_back(true);
  }
  // Basic indexing with every advanced entry replaced by a full slice; record
  // which view axes those slices became.
  AdvancedPlan pl;
  std::vector<Value> basic;
  int viewAxis = 0, consumed = 0;
  for (size_t i = 0; i < expanded.size(); ++i)
    if (!expanded[i].is(Kind::None) && !expanded[i].is(Kind::Ellipsis)) ++consumed;
  for (size_t i = 0; i < expanded.size(); ++i) {
    const Value& p = expanded[i];
    if (advanced[i]) {
      auto s = std::make_shared<SliceObj>();
      basic.push_back(Value::object(Kind::Slice, s));
      pl.axes.push_back(viewAxis++);
      pl.arrays.push_back(tensorOf(p));
    } else {
      basic.push_back(p);
      if (p.is(Kind::Ellipsis)) viewAxis += t.ndim() - consumed;
      else if (!p.isIntLike()) ++viewAxis;  // slices and None keep/add an axis
    }
  }
  for (size_t k = 1; k < pl.axes.size(); ++k)
    if (pl.axes[k] != pl.axes[k - 1] + 1) pl.adjacent = false;
  // Ints between advanced entries also break adjacency (NumPy's rule).
  int first = -1, last = -1;
  for (size_t i = 0; i < advanced.size(); ++i)
    if (advanced[i]) {
      if (first < 0) first = static_cast<int>(i);
      last = static_cast<int>(i);
    }
  for (int i = first; i >= 0 && i <= last; ++i)
    if (!advanced[i]) pl.adjacent = false;
  pl.view = tensorGetItem(t, makeTuple(basic), loc);
  Shape b;
  for (const Tensor& a : pl.arrays)
    b = broadcastShapes(b, a.shape(), loc, "shape mismatch: indexing arrays could not be broadcast together");
  pl.broadcast = b;
  for (size_t k = 0; k < pl.arrays.size(); ++k) {
    Tensor a = astype(pl.arrays[k], DType::I64).contiguous();
    int64_t len = pl.view.dim(pl.axes[k]);
    const int64_t* at = a.data<int64_t>();
    for (int64_t i = 0, n = a.numel(); i < n; ++i)
      if (at[i] < -len || at[i] >= len)
        fail(loc, "index " + std::to_string(at[i]) + " is out of bounds for axis with size " + std::to_string(len));
    pl.arrays[k] = broadcastTo(a, b, loc);
  }
  return pl;
}

// Result shape and the element offset (into view storage) of every result element.
void resolve(const AdvancedPlan& pl, Shape& shape, std::vector<int64_t>& offsets) {
  const Tensor& v = pl.view;
  std::vector<int> basicAxes;
  for (int d = 0; d < v.ndim(); ++d)
    if (std::find(pl.axes.begin(), pl.axes.end(), d) == pl.axes.end()) basicAxes.push_back(d);
  int insertAt = pl.adjacent ? pl.axes.front() : 0;
  // Output axes: basic axes before insertAt, the broadcast dims, the rest.
  shape.clear();
  std::vector<int> outBasic;  // view axis of each basic output axis (-1 for broadcast dims)
  for (int d : basicAxes)
    if (d < insertAt) shape.push_back(v.dim(d)), outBasic.push_back(d);
  for (int64_t s : pl.broadcast) shape.push_back(s), outBasic.push_back(-1);
  for (int d : basicAxes)
    if (d >= insertAt) shape.push_back(v.dim(d)), outBasic.push_back(d);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  // The index arrays' elements (broadcast: contiguous in the broadcast
  // shape), and for each output axis the step in the view's storage (0 for
  // a broadcast axis) and in the arrays (0 for a basic axis).
  std::vector<Tensor> arrays;
  std::vector<const int64_t*> array;
  std::vector<int64_t> lens, steps;
  for (size_t k = 0; k < pl.arrays.size(); ++k) {
    arrays.push_back(pl.arrays[k].contiguous());
    array.push_back(arrays.back().data<int64_t>());
    lens.push_back(v.dim(pl.axes[k]));
    steps.push_back(v.strides()[pl.axes[k]]);
  }
  std::vector<int64_t> viewStep(shape.size(), 0), arrayStep(shape.size(), 0);
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (outBasic[d] >= 0) {
      viewStep[d] = v.strides()[outBasic[d]];
    } else {
      arrayStep[d] = stride;
      stride *= shape[d];
    }
  }
  offsets.resize(static_cast<size_t>(n));
  // An odometer over the output: the view offset of its basic axes and the
  // position in the arrays, advanced without divisions.
  std::vector<int64_t> idx(shape.size(), 0);
  int64_t basicOff = v.offset(), b = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = basicOff;
    for (size_t k = 0; k < array.size(); ++k) {
      int64_t a = array[k][b];
      off += (a < 0 ? a + lens[k] : a) * steps[k];
    }
    offsets[static_cast<size_t>(i)] = off;
    for (size_t d = shape.size(); d-- > 0;) {
      basicOff += viewStep[d];
      b += arrayStep[d];
      if (++idx[d] < shape[d]) break;
      basicOff -= viewStep[d] * shape[d];
      b -= arrayStep[d] * shape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

Tensor trueCoordinates(const Tensor& hostMask) {
  Tensor mask = astype(hostMask, DType::Bool).contiguous();
  const bool* m = mask.data<bool>();
  int rank = mask.ndim();
  int64_t n = mask.numel(), width = rank ? mask.dim(rank - 1) : 1, found = 0;
  for (int64_t i = 0; i < n; ++i) found += m[i];
  // A row more than found: every element's coordinates are written to the
  // next free row, which only a true element keeps (no branch to mispredict
  // on a random mask); the last element's may land in the spare row.
  Tensor rows = Tensor::empty(DType::I64, {found + 1, rank}, mask.device());
  int64_t* base = rows.data<int64_t>();
  int64_t k = 0;
  // Row by row along the last axis, the leading coordinates kept as an
  // odometer.
  std::vector<int64_t> lead(static_cast<size_t>(std::max(rank - 1, 0)), 0);
  for (int64_t row = 0; rank && width > 0 && row < n / width; ++row) {
    const bool* r = m + row * width;
    for (int64_t j = 0; j < width; ++j) {
      int64_t* slot = base + k * rank;
      for (size_t d = 0; d < lead.size(); ++d) slot[d] = lead[d];
      slot[rank - 1] = j;
      k += r[j];
    }
    for (int d = rank - 2; d >= 0; --d) {
      auto& at = lead[static_cast<size_t>(d)];
      if (++at < mask.dim(d)) break;
      at = 0;
    }
  }
  return rows.view({found, rank}, rows.strides(), rows.offset());
}

bool hasAdvancedIndex(const Value& index) {
  if (isAdvanced(index)) return true;
  if (index.is(Kind::Tuple))
    for (const Value& p : index.as<SeqObj>().items)
      if (isAdvanced(p)) return true;
  return false;
}

// x[rows], x[:, cols], x[:, :, idx], ... with one integer tensor after
// full slices, on a contiguous x (a mini-batch gather, index_select along
// any dim): for each position before the indexed dim, one offset per
// index (its start), each taken as a run of the elements after the dim,
// computed in parallel, instead of a coordinate decomposition per element.
bool gatherAlong(const Tensor& t, const Value& index, SourceLoc loc, Tensor& out) {
  std::vector<Value> one;  // a lone index, as a tuple of one (the tuple's items are not copied)
  const std::vector<Value>& parts = index.is(Kind::Tuple) ? index.as<SeqObj>().items : (one = {index});
  if (parts.empty() || !parts.back().is(Kind::Tensor) || !t.isContiguous()) return false;
  int dim = static_cast<int>(parts.size()) - 1;
  if (dim >= t.ndim()) return false;
  for (int d = 0; d < dim; ++d) {
    if (!parts[static_cast<size_t>(d)].is(Kind::Slice)) return false;
    const auto& s = parts[static_cast<size_t>(d)].as<SliceObj>();
    if (!s.start.is(Kind::None) || !s.stop.is(Kind::None) || !s.step.is(Kind::None)) return false;
  }
  const Tensor& indices = tensorOf(parts.back());
  if (!isIntegral(indices.dtype())) return false;
  Tensor r = astype(readableOnHost(indices, loc), DType::I64).contiguous();
  Shape shape(t.shape().begin(), t.shape().begin() + dim);
  for (int64_t d : r.shape()) shape.push_back(d);
  int64_t run = 1, outer = 1;
  for (int d = dim + 1; d < t.ndim(); ++d) shape.push_back(t.dim(d)), run *= t.dim(d);
  for (int d = 0; d < dim; ++d) outer *= t.dim(d);
  int64_t len = t.dim(dim), n = r.numel();
  const int64_t* at = r.data<int64_t>();
  std::vector<int64_t> starts(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    if (at[k] < -len || at[k] >= len)
      fail(loc, "index " + std::to_string(at[k]) + " is out of bounds for axis with size " + std::to_string(len));
    starts[static_cast<size_t>(k)] = (at[k] < 0 ? at[k] + len : at[k]) * run;
  }
  std::vector<int64_t> offsets(static_cast<size_t>(outer * n));
  forEachLine(outer, outer * n >= kParallelThreshold, [&](int64_t o) {
    int64_t first = t.offset() + o * len * run;
    int64_t* row = offsets.data() + o * n;
    for (int64_t k = 0; k < n; ++k) row[k] = first + starts[static_cast<size_t>(k)];
  });
  out = Tensor::empty(t.dtype(), shape, t.device());
  if (out.numel() > 0)
    launch<ir::Op::GetItem>(t.device(), t.dtype(), loc, t, offsets.data(), outer * n, run, out);
  return true;
}

Tensor advancedGetItem(const Tensor& t, const Value& index, SourceLoc loc) {
  if (Tensor out; gatherAlong(t, index, loc, out)) return out;
  AdvancedPlan pl = advancedPlan(t, index, loc);
  Shape shape;
  std::vector<int64_t> offsets;
  resolve(pl, shape, offsets);
  Tensor out = Tensor::empty(t.dtype(), shape, t.device());
  if (!offsets.empty())
    launch<ir::Op::GetItem>(t.device(), t.dtype(), loc, t, offsets.data(), static_cast<int64_t>(offsets.size()),
                            int64_t{1}, out);
  return out;
}

Tensor advancedSetItem(const Tensor& t, const Value& index, const Tensor& value, SourceLoc loc) {
  Tensor copy = t.clone();
  AdvancedPlan pl = advancedPlan(copy, index, loc);
  Shape shape;
  std::vector<int64_t> offsets;
  resolve(pl, shape, offsets);
  commonDevice(t, value, "setitem", loc);
  Tensor v = broadcastTo(astype(value, t.dtype()), shape, loc);
  if (!offsets.empty())
    launch<ir::Op::SetItem>(t.device(), t.dtype(), loc, v, offsets.data(), static_cast<int64_t>(offsets.size()), copy);
  return copy;
}

}  // namespace nn::rt
