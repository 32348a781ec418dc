// The front end of the reductions over axes: checks the axes, picks the
// result's dtype, permutes the tensor so that the kept axes come first and
// the reduced ones last (a copy only when that is not already its layout),
// so every output element reduces one contiguous run of memory (sum and
// mean of a contiguous tensor whose kept axes are consecutive skip the
// permutation: their kernel also reduces leading blocks; so do those of a
// permuted one, x.T.sum(1), whose rows or columns in memory order are the
// runs the copy would make), and runs the device's kernel
// (kernels_cpu_reduce.cpp on the CPU).
#include <algorithm>
#include <optional>

#include "runtime/dispatch.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

// The dtype reduction r of a tensor of dtype `in` makes.
DType resultDType(Reduction r, DType in) {
  switch (r) {
    case Reduction::Sum:
    case Reduction::Prod: return isFloating(in) ? in : DType::I64;
    case Reduction::Mean: return isFloating(in) ? in : DType::F32;
    case Reduction::ArgMax:
    case Reduction::ArgMin: return DType::I64;
    case Reduction::All:
    case Reduction::Any: return DType::Bool;
    default: return in;
  }
}

// Whether the axes of `shape` not flagged in `reduced` are one block of
// consecutive axes, and then the count of elements of the reduced axes
// before it (`outer`) and after it (`inner`).
bool keptBlock(const Shape& shape, const std::vector<bool>& reduced, int64_t& outer, int64_t& inner) {
  int n = static_cast<int>(shape.size()), first = 0, last = n;
  while (first < n && reduced[first]) ++first;
  while (last > first && reduced[last - 1]) --last;
  for (int d = first; d < last; ++d)
    if (reduced[d]) return false;
  outer = inner = 1;
  for (int d = 0; d < first; ++d) outer *= shape[d];
  for (int d = last; d < n; ++d) inner *= shape[d];
  return true;
}

// t's axes of more than one element, in memory order (largest stride
// first), as a contiguous view of t's elements, when t is a permutation of
// a contiguous layout in which the axes flagged in `reduced`, and the
// others, keep their relative order; `red` flags that view's axes.
std::optional<Tensor> memoryOrder(const Tensor& t, const std::vector<bool>& reduced, std::vector<bool>& red) {
  if (t.numel() == 0) return std::nullopt;
  std::vector<int> axes;
  for (int d = 0; d < t.ndim(); ++d)
    if (t.dim(d) > 1) axes.push_back(d);
  std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) { return t.strides()[a] > t.strides()[b]; });
  Shape shape, strides(axes.size(), 0);
  for (int d : axes) shape.push_back(t.dim(d));
  int64_t step = 1;
  for (size_t i = axes.size(); i-- > 0;) {
    if (t.strides()[axes[i]] != step) return std::nullopt;
    strides[i] = step;
    step *= shape[i];
  }
  int lastKept = -1, lastReduced = -1;
  for (int d : axes) {
    int& last = reduced[d] ? lastReduced : lastKept;
    if (d < last) return std::nullopt;
    last = d;
    red.push_back(reduced[d]);
  }
  return t.view(shape, strides, t.offset());
}

}  // namespace

Tensor reduce(const Tensor& t, Reduction r, std::vector<int64_t> axes, bool keepdims, SourceLoc loc,
              const char* name) {
  if (axes.empty() && !keepdims && (r == Reduction::Sum || r == Reduction::Mean) && t.isContiguous()) {
    // Reduced whole (the common loss): every element one leading block of
    // one output, as the general path below would launch it.
    Tensor out = Tensor::empty(resultDType(r, t.dtype()), {}, t.device());
    if (r == Reduction::Sum) launch<ir::Op::Sum>(t.device(), t.dtype(), loc, t, t.numel(), int64_t{1}, out);
    else launch<ir::Op::Mean>(t.device(), t.dtype(), loc, t, t.numel(), int64_t{1}, out);
    return out;
  }
  int nd = t.ndim();
  std::vector<bool> reduced(nd, axes.empty());
  for (int64_t a : axes) {
    int64_t k = a < 0 ? a + nd : a;
    if (k < 0 || k >= nd)
      fail(loc, std::string(name) + ": axis " + std::to_string(a) + " is out of bounds for " + typeString(t));
    if (reduced[k]) fail(loc, std::string(name) + ": duplicate axis " + std::to_string(a));
    reduced[k] = true;
  }
  bool argReduce = r == Reduction::ArgMax || r == Reduction::ArgMin;
  if (argReduce && axes.size() > 1) fail(loc, std::string(name) + " takes a single axis");
  Shape outShape;
  std::vector<int64_t> perm, keptPerm;
  int64_t run = 1;
  for (int d = 0; d < nd; ++d) {
    if (reduced[d]) {
      run *= t.dim(d);
      if (keepdims) outShape.push_back(1);
    } else {
      outShape.push_back(t.dim(d));
      keptPerm.push_back(d);
    }
  }
  perm = keptPerm;
  for (int d = 0; d < nd; ++d)
    if (reduced[d]) perm.push_back(d);
  if (run == 0 && (r == Reduction::Max || r == Reduction::Min || argReduce))
    fail(loc, std::string(name) + " of an empty tensor");
  Tensor out = Tensor::empty(resultDType(r, t.dtype()), outShape, t.device());
  // Kept axes that are one block of consecutive axes need no permutation:
  // the kernel reduces the leading axes as blocks and the trailing ones as
  // runs of a contiguous tensor, where it lies.
  auto launchSum = [&](const Tensor& src, int64_t outer, int64_t inner) {
    if (r == Reduction::Sum) launch<ir::Op::Sum>(t.device(), t.dtype(), loc, src, outer, inner, out);
    else launch<ir::Op::Mean>(t.device(), t.dtype(), loc, src, outer, inner, out);
    return out;
  };
  if (r == Reduction::Sum || r == Reduction::Mean) {
    int64_t outer = 1, inner = 1;
    bool block = keptBlock(t.shape(), reduced, outer, inner);
    if (t.isContiguous() && block) return launchSum(t, outer, inner);
    if (!t.isContiguous()) {
      // A permuted contiguous tensor (x.T) whose copy would be summed as
      // rows or columns is read in place, in memory order, where its kept
      // axes, and its reduced ones, keep their order there (the same
      // sequences, summed in the same order); otherwise it is summed as
      // its copy would be.
      std::vector<bool> red;
      int64_t o = 1, i = 1;
      if (!(block && outer != 1 && inner != 1))
        if (std::optional<Tensor> m = memoryOrder(t, reduced, red);
            m && keptBlock(m->shape(), red, o, i) && (o == 1 || i == 1))
          return launchSum(*m, o, i);
      if (block) return launchSum(t.contiguous(), outer, inner);
    }
  }
  if ((r == Reduction::Max || r == Reduction::Min || argReduce) && t.isContiguous()) {
    // Leading axes (x.max(0)) scanned in place, where the device can.
    int64_t outer = 1, inner = 1;
    bool isMax = r == Reduction::Max || r == Reduction::ArgMax;
    if (keptBlock(t.shape(), reduced, outer, inner) && inner == 1 && cpuLeadingExtremum(t, outer, isMax, argReduce, out))
      return out;
  }
  if ((r == Reduction::Sum || r == Reduction::Mean) && run < out.numel()) {
    // Short sums, many of them (a gradient's sum over tile's or expand's
    // repeats): the reduced axes laid out first, each output a column the
    // kernel sums across all outputs at once (the same order, so the same
    // bits, as a run per output, which costs a call per output).
    std::vector<int64_t> reducedFirst;
    for (int d = 0; d < nd; ++d)
      if (reduced[d]) reducedFirst.push_back(d);
    reducedFirst.insert(reducedFirst.end(), keptPerm.begin(), keptPerm.end());
    return launchSum(transpose(t, reducedFirst, loc).contiguous(), run, int64_t{1});
  }
  Tensor p = (nd ? transpose(t, perm, loc) : t).contiguous();
  switch (r) {
    case Reduction::Sum: launch<ir::Op::Sum>(t.device(), p.dtype(), loc, p, int64_t{1}, run, out); break;
    case Reduction::Mean: launch<ir::Op::Mean>(t.device(), p.dtype(), loc, p, int64_t{1}, run, out); break;
    case Reduction::Prod: launch<ir::Op::Prod>(t.device(), p.dtype(), loc, p, run, out); break;
    case Reduction::Max: launch<ir::Op::Max>(t.device(), p.dtype(), loc, p, run, out); break;
    case Reduction::Min: launch<ir::Op::Min>(t.device(), p.dtype(), loc, p, run, out); break;
    case Reduction::ArgMax: launch<ir::Op::ArgMax>(t.device(), p.dtype(), loc, p, run, out); break;
    case Reduction::ArgMin: launch<ir::Op::ArgMin>(t.device(), p.dtype(), loc, p, run, out); break;
    case Reduction::All: launch<ir::Op::All>(t.device(), p.dtype(), loc, p, run, out); break;
    case Reduction::Any: launch<ir::Op::Any>(t.device(), p.dtype(), loc, p, run, out); break;
  }
  return out;
}

}  // namespace nn::rt
