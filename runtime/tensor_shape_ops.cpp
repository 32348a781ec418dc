// concat, stack, split, pad, gather, scatter and scatter_add (see
// tensor_ops.h).
#include <algorithm>
#include <new>

#include "runtime/dispatch.h"
#include "runtime/kernels.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

int64_t normalizeAxis(int64_t axis, int ndim, SourceLoc loc, const char* what) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    fail(loc, std::string(what) + ": axis " + std::to_string(axis) + " is out of bounds for " + std::to_string(ndim) +
                  " dimensions");
  return a;
}

// Copies src into the region of dst starting at `start` along `axis`.
static void copyInto(Tensor& dst, const Tensor& src, int64_t axis, int64_t start) {
  Shape strides = dst.strides();
  int64_t offset = dst.offset() + start * strides[axis];
  Tensor region = dst.view(src.shape(), strides, offset);
  region.copyFrom(astype(src, dst.dtype()));
}

Tensor concat(const std::vector<Tensor>& xs, int64_t axis, SourceLoc loc) {
  if (xs.empty()) fail(loc, "concat: expected a non-empty list of tensors");
  int nd = xs[0].ndim();
  if (nd == 0) fail(loc, "concat: zero-dimensional tensors cannot be concatenated");
  int64_t a = normalizeAxis(axis, nd, loc, "concat");
  DType dt = xs[0].dtype();
  Shape shape = xs[0].shape();
  shape[a] = 0;
  for (const Tensor& t : xs) {
    if (t.ndim() != nd) fail(loc, "concat: all tensors must have the same rank; got " + typeString(xs[0]) + " and " + typeString(t));
    for (int d = 0; d < nd; ++d)
      if (d != a && t.dim(d) != xs[0].dim(d))
        fail(loc, "shape mismatch in concat along axis " + std::to_string(axis) + ": " + typeString(xs[0]) + " and " + typeString(t));
    // Past int64 the result could never be allocated.
    if (__builtin_add_overflow(shape[a], t.dim(static_cast<int>(a)), &shape[a])) throw std::bad_alloc();
    dt = promote(dt, t.dtype());
    commonDevice(xs[0], t, "concat", loc);
  }
  Tensor out = Tensor::empty(dt, shape, xs[0].device());
  int64_t pos = 0;
  for (const Tensor& t : xs) {
    copyInto(out, t, a, pos);
    pos += t.dim(static_cast<int>(a));
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& xs, int64_t axis, SourceLoc loc) {
  if (xs.empty()) fail(loc, "stack: expected a non-empty list of tensors");
  int64_t a = normalizeAxis(axis, xs[0].ndim() + 1, loc, "stack");
  std::vector<Tensor> lifted;
  for (const Tensor& t : xs) {
    if (t.shape() != xs[0].shape())
      fail(loc, "stack expects tensors of one shape; got " + typeString(xs[0]) + " and " + typeString(t));
    Shape s = t.shape(), st = t.strides();
    s.insert(s.begin() + a, 1);
    st.insert(st.begin() + a, 0);
    lifted.push_back(t.view(s, st, t.offset()));
  }
  return concat(lifted, a, loc);
}

std::vector<Tensor> splitSizes(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis, SourceLoc loc) {
  if (x.ndim() == 0) fail(loc, "split of a 0-d tensor");
  int64_t a = normalizeAxis(axis, x.ndim(), loc, "split");
  int64_t total = 0;
  bool overflow = false;
  for (int64_t s : sizes) {
    if (s < 0) fail(loc, "split: sizes must be non-negative");
    overflow = overflow || __builtin_add_overflow(total, s, &total);
  }
  if (overflow || total != x.dim(static_cast<int>(a)))
    fail(loc, "split: sizes add up to " + (overflow ? "more than an int64 holds" : std::to_string(total)) +
                  " but axis " + std::to_string(axis) + " of " + typeString(x) + " has " +
                  std::to_string(x.dim(static_cast<int>(a))));
  std::vector<Tensor> parts;
  parts.reserve(sizes.size());
  int64_t start = 0;
  for (int64_t s : sizes) {
    Shape shape = x.shape();
    shape[a] = s;
    parts.push_back(x.view(shape, x.strides(), x.offset() + start * x.strides()[a]));
    start += s;
  }
  return parts;
}

void checkPadWidths(size_t rank, const std::vector<int64_t>& widths, SourceLoc loc) {
  if (widths.size() % 2 != 0 || widths.size() / 2 > rank)
    fail(loc, "pad: expected pairs of (before, after) widths for at most " + std::to_string(rank) + " axes");
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& widths, double value, SourceLoc loc) {
  checkPadWidths(static_cast<size_t>(x.ndim()), widths, loc);
  Shape shape = x.shape();
  std::vector<int64_t> before(x.ndim(), 0);
  for (size_t i = 0; i < widths.size() / 2; ++i) {
    int d = x.ndim() - 1 - static_cast<int>(i);
    if (widths[2 * i] < 0 || widths[2 * i + 1] < 0) fail(loc, "pad: widths must be non-negative");
    before[d] = widths[2 * i];
    // Past int64 the result could never be allocated.
    if (__builtin_add_overflow(shape[d], widths[2 * i], &shape[d]) ||
        __builtin_add_overflow(shape[d], widths[2 * i + 1], &shape[d]))
      throw std::bad_alloc();
  }
  Tensor out = fullLike(x.dtype(), shape, value, x.device());
  Shape strides = out.strides();
  int64_t offset = 0;
  for (int d = 0; d < x.ndim(); ++d) offset += before[d] * strides[d];
  Tensor region = out.view(x.shape(), strides, offset);
  region.copyFrom(x);
  return out;
}

// Checks index against x for gather/scatter_add along axis a.
static void checkIndex(const Tensor& x, int64_t a, const Tensor& index, SourceLoc loc, const char* what) {
  if (!isIntegral(index.dtype())) fail(loc, std::string(what) + ": index must be an integer tensor, got " + typeString(index));
  if (index.ndim() != x.ndim())
    fail(loc, std::string(what) + ": index " + typeString(index) + " must have the rank of " + typeString(x));
  for (int d = 0; d < x.ndim(); ++d)
    if (d != a && index.dim(d) > x.dim(d))
      fail(loc, std::string(what) + ": index " + typeString(index) + " is larger than " + typeString(x) + " on axis " + std::to_string(d));
}

// t's elements each once: its broadcast axes (stride 0) cut to one
// element (an index expanded along the rows it selects), in the order of
// their first places in t.
static Tensor distinctElements(const Tensor& t) {
  Shape shape = t.shape();
  for (int d = 0; d < t.ndim(); ++d)
    if (t.strides()[d] == 0 && shape[d] > 1) shape[d] = 1;
  return shape == t.shape() ? t : t.view(shape, t.strides(), t.offset());
}

// Fails on the first index element outside [-len, len) for axis a. The
// index's minimum and maximum decide whether there is one; the scan for
// it runs on all cores for large indices, and the error is raised outside
// the parallel region, for the lowest such element as a serial scan would.
// Each distinct element is looked at once.
static void checkIndexRange(const Tensor& x, int64_t a, const Tensor& fullIndex, SourceLoc loc, const char* what) {
  if (fullIndex.numel() == 0) return;
  Tensor deviceIndex = distinctElements(fullIndex);
  int64_t len = x.dim(static_cast<int>(a)), n = deviceIndex.numel();
  // (On the index's device where it has the reductions; a device without
  // them has its index read on the host whole.)
  const KernelTable& kernels = deviceIndex.device().kernels();
  if (kernels.has(ir::Op::Min, deviceIndex.dtype()) && kernels.has(ir::Op::Max, deviceIndex.dtype())) {
    auto extreme = [&](Reduction r) {
      return readableOnHost(reduce(deviceIndex, r, {}, false, loc, what), loc).flatAsInt(0);
    };
    if (extreme(Reduction::Min) >= -len && extreme(Reduction::Max) < len) return;
  }
  Tensor index = readableOnHost(deviceIndex, loc);
  int64_t first = n;
  auto bad = [&](int64_t i) {
    int64_t k = index.flatAsInt(i);
    return k < -len || k >= len;
  };
  if (n >= kParallelThreshold) {
#pragma omp parallel for reduction(min : first)
    for (int64_t i = 0; i < n; ++i)
      if (bad(i)) first = std::min(first, i);
  } else {
    for (int64_t i = 0; i < n && first == n; ++i)
      if (bad(i)) first = i;
  }
  if (first < n)
    fail(loc, std::string(what) + ": index " + std::to_string(index.flatAsInt(first)) + " is out of bounds for axis " +
                  std::to_string(a) + " with size " + std::to_string(len));
}

Tensor gather(const Tensor& x, int64_t axis, const Tensor& index, SourceLoc loc) {
  int64_t a = normalizeAxis(axis, x.ndim(), loc, "gather");
  checkIndex(x, a, index, loc, "gather");
  checkIndexRange(x, a, index, loc, "gather");
  commonDevice(x, index, "gather", loc);
  Tensor out = Tensor::empty(x.dtype(), index.shape(), x.device());
  if (out.numel() > 0) launch<ir::Op::Gather>(x.device(), x.dtype(), loc, x, static_cast<int>(a), astype(index, DType::I64), out);
  return out;
}

int scatterAxis(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, SourceLoc loc,
                       const char* what) {
  int64_t a = normalizeAxis(axis, x.ndim(), loc, what);
  checkIndex(x, a, index, loc, what);
  if (src.ndim() != index.ndim())
    fail(loc, std::string(what) + ": src " + typeString(src) + " must have the rank of the index");
  for (int d = 0; d < src.ndim(); ++d)
    if (src.dim(d) < index.dim(d))
      fail(loc, std::string(what) + ": src " + typeString(src) + " must be at least as large as index " +
                    typeString(index) + " on every axis");
  checkIndexRange(x, a, index, loc, what);
  commonDevice(x, index, what, loc);
  commonDevice(x, src, what, loc);
  return static_cast<int>(a);
}

Tensor scatter(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, SourceLoc loc) {
  int a = scatterAxis(x, axis, index, src, loc, "scatter");
  // As PyTorch refuses a src of another dtype: here only where the
  // writes would cut fractions off.
  if (ir::isFloating(src.dtype()) && !ir::isFloating(x.dtype()))
    fail(loc, "scatter: src " + typeString(src) + " would lose its fractions in x's dtype " + dtypeName(x.dtype()));
  Tensor out = x.clone();
  launch<ir::Op::Scatter>(x.device(), x.dtype(), loc, a, astype(index, DType::I64), astype(src, x.dtype()), out);
  return out;
}

Tensor scatterAdd(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, SourceLoc loc) {
  int a = scatterAxis(x, axis, index, src, loc, "scatter_add");
  // Integers into integers add in i64, wrapping around (exact, as in
  // PyTorch); anything else accumulates in f64. Then back to x's dtype.
  bool integers = (x.dtype() == DType::I32 || x.dtype() == DType::I64) && !ir::isFloating(src.dtype());
  DType acc = integers ? DType::I64 : DType::F64;
  Tensor out = x.dtype() == acc ? x.clone() : astype(x, acc);
  launch<ir::Op::ScatterAdd>(x.device(), acc, loc, a, astype(index, DType::I64), scatterAddTerms(src, acc), out);
  return astype(out, x.dtype());
}

Tensor scatterAddTerms(const Tensor& src, DType acc) {
  return acc == DType::F64 && src.dtype() == DType::F32 ? src : astype(src, acc);
}

}  // namespace nn::rt
