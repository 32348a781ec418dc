// PyTorch's order statistics and NaN-aware reductions, compositions of
// sort, gather and the reductions: median and nanmedian, kthvalue,
// quantile and nanquantile, nansum and nanmean, var_mean and std_mean,
// aminmax, the running extremes cummax and cummin, mode, msort, and cov
// and corrcoef. An
// order statistic is x gathered at the position sort finds
// (so the tape differentiates it as x's element there, as PyTorch's), in
// every mode; the ones PyTorch also has as tensor methods are methods too.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <type_traits>
#include <utility>

#include "ir/builtins.h"
#include "runtime/kernel_loops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// The line the statistic runs along: x with `dim` (or, for none, x
// flattened and dim 0), and whether the result keeps it as a dim of 1.
struct Along {
  Value x;
  int64_t dim;
  int64_t length;
};
Along alongOf(CallContext& c, const Value& x, const Value& dimV) {
  const Tensor& t = tensorArg(c, x, "input");
  if (dimV.is(Kind::None)) return {applyOp(c, ir::Op::Reshape, {x, intsTuple({t.numel()})}), 0, t.numel()};
  if (!dimV.isIntLike()) fail(c.loc, c.name + "(): dim must be an int, not " + typeName(dimV), ErrorClass::TypeError);
  if (t.ndim() == 0) return {applyOp(c, ir::Op::Reshape, {x, intsTuple({1})}), 0, 1};
  int64_t dim = normalizeAxis(dimV.asInt(), static_cast<int>(t.ndim()), c.loc, c.name.c_str());
  return {x, dim, t.dim(static_cast<int>(dim))};
}

Value squeezed(CallContext& c, const Value& v, int64_t dim) {
  return applyOp(c, ir::Op::Squeeze, {v, intsTuple({dim})});
}

// The number of NaNs along a.dim (i64, the dim kept as 1).
Value nanCounts(CallContext& c, const Along& a) {
  Value nans = applyOp(c, ir::Op::IsNan, {a.x});
  return applyOp(c, ir::Op::Sum, {nans, intsTuple({a.dim}), Value::boolean(true)});
}

// (values, indices) of x's elements at sorted positions `at` (i64, the
// dim kept as 1) along a.dim: the sort's indices there, and x gathered at
// them. Without keepdim the dim goes; a statistic of the whole tensor is
// 0-d.
Value pickSorted(CallContext& c, const Along& a, const Value& at, bool keepdim, bool whole, bool withIndices) {
  Value order = applyOp(c, ir::Op::ArgSort, {a.x, Value::integer(a.dim), Value::boolean(false)});
  Value index = applyOp(c, ir::Op::Gather, {order, Value::integer(a.dim), at});
  Value values = applyOp(c, ir::Op::Gather, {a.x, Value::integer(a.dim), index});
  if (whole) {
    values = applyOp(c, ir::Op::Reshape, {values, intsTuple({})});
    index = applyOp(c, ir::Op::Reshape, {index, intsTuple({})});
  } else if (!keepdim) {
    values = squeezed(c, values, a.dim);
    index = squeezed(c, index, a.dim);
  }
  if (!withIndices) return values;
  return makeNamedTuple({values, index}, {"values", "indices"});
}

// A tensor of `shape` (the line's, the dim as 1) holding `k`.
Value positionsFilled(CallContext& c, const Along& a, int64_t k) {
  Shape shape = tensorOf(a.x).shape();
  shape[static_cast<size_t>(a.dim)] = 1;
  return applyOp(c, ir::Op::Full,
                 {intsTuple(std::vector<int64_t>(shape.begin(), shape.end())), Value::integer(k),
                  Value::dtype(static_cast<int>(DType::I64)), Value::str(tensorOf(a.x).device().name())});
}

// median(x, dim=None, keepdim=False): the lower of the two middle values
// (NaN where the line has one, as PyTorch's); nanmedian: of the values
// that are not NaN (NaN for a line of NaNs). With dim, (values, indices).
Value bMedian(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value none = Value::none(), no = Value::boolean(false);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dim", &none);
  bool keepdim = flagArg(c, argument(c, args, 2, "keepdim", &no), "keepdim");
  c.checkKeywordsUsed(c.name.c_str());
  Along a = alongOf(c, x, dimV);
  if (a.length == 0) fail(c.loc, c.name + "(): cannot compute a median of an empty line", ErrorClass::IndexError);
  bool ignoreNan = c.name == "nanmedian";
  Value k;
  if (!isFloating(tensorOf(x).dtype())) {
    k = positionsFilled(c, a, (a.length - 1) / 2);
  } else {
    Value nans = nanCounts(c, a);
    Value n = Value::integer(a.length);
    Value valid = binary(c, ir::Op::Sub, n, nans);
    if (ignoreNan) {  // the lower middle of the valid values; 0 (a NaN) when there are none
      Value middle = binary(c, ir::Op::FloorDiv, binary(c, ir::Op::Sub, valid, Value::integer(1)), Value::integer(2));
      k = where(c, binary(c, ir::Op::Gt, valid, Value::integer(0)), middle, Value::integer(0));
    } else {  // NaNs sort last: the first of them where there is one
      k = where(c, binary(c, ir::Op::Gt, nans, Value::integer(0)), valid, positionsFilled(c, a, (a.length - 1) / 2));
    }
  }
  return pickSorted(c, a, k, keepdim, dimV.is(Kind::None), !dimV.is(Kind::None));
}

// kthvalue(x, k, dim=-1, keepdim=False): (values, indices) of the k-th
// smallest along dim (NaN the largest).
Value bKthvalue(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value last = Value::integer(-1), no = Value::boolean(false);
  Value x = argument(c, args, 0, "input", nullptr), kV = argument(c, args, 1, "k", nullptr),
        dimV = argument(c, args, 2, "dim", &last);
  bool keepdim = flagArg(c, argument(c, args, 3, "keepdim", &no), "keepdim");
  c.checkKeywordsUsed("kthvalue");
  Along a = alongOf(c, x, dimV);
  if (!kV.isIntLike())
    fail(c.loc, std::string("kthvalue(): k must be an int, not ") + typeName(kV), ErrorClass::TypeError);
  if (kV.asInt() < 1 || kV.asInt() > a.length)
    fail(c.loc,
         "kthvalue(): k (" + std::to_string(kV.asInt()) + ") is out of range for a dim of size " +
             std::to_string(a.length),
         ErrorClass::IndexError);
  bool zeroD = tensorOf(x).ndim() == 0;
  return pickSorted(c, a, positionsFilled(c, a, kV.asInt() - 1), keepdim, zeroD, true);
}

// quantile(x, q, dim=None, keepdim=False, interpolation="linear") and
// nanquantile: the q-th quantiles (q a number or a 1-d tensor or list in
// [0, 1]; a list adds a leading dim), between the sorted values at
// q * (n - 1) by `interpolation` (linear, lower, higher, nearest: halves
// to even, midpoint). quantile is NaN where the line has one; nanquantile
// leaves NaNs out (NaN for a line of them).
Value bQuantile(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value none = Value::none(), no = Value::boolean(false), linear = Value::str("linear");
  Value x = argument(c, args, 0, "input", nullptr), qV = argument(c, args, 1, "q", nullptr),
        dimV = argument(c, args, 2, "dim", &none);
  bool keepdim = flagArg(c, argument(c, args, 3, "keepdim", &no), "keepdim");
  const Value* how = c.kw("interpolation");
  c.checkKeywordsUsed(c.name.c_str());
  std::string mode = how ? (how->is(Kind::Str) ? how->asStr() : std::string("?")) : "linear";
  if (mode != "linear" && mode != "lower" && mode != "higher" && mode != "nearest" && mode != "midpoint")
    fail(c.loc, c.name + "(): interpolation must be 'linear', 'lower', 'higher', 'midpoint' or 'nearest'",
         ErrorClass::ValueError);
  const Tensor& t = tensorArg(c, x, "input");
  if (!isFloating(t.dtype()))
    fail(c.loc, c.name + "(): expects a float tensor, not " + typeString(t), ErrorClass::TypeError);
  std::vector<double> qs;
  bool many = !qV.isNumber();
  if (qV.isNumber())
    qs.push_back(qV.asFloat());
  else if (qV.is(Kind::List) || qV.is(Kind::Tuple))
    for (const Value& q : qV.as<SeqObj>().items) {
      if (!q.isNumber()) fail(c.loc, c.name + "(): q must be numbers", ErrorClass::TypeError);
      qs.push_back(q.asFloat());
    }
  else if (qV.is(Kind::Tensor) && tensorOf(qV).ndim() <= 1) {
    Tensor h = astype(readableOnHost(tensorOf(qV), c.loc), DType::F64).contiguous();
    qs.assign(h.data<double>(), h.data<double>() + h.numel());
    many = tensorOf(qV).ndim() == 1;
  } else {
    fail(c.loc, c.name + "(): q must be a number, a list of numbers or a 0-d or 1-d tensor", ErrorClass::TypeError);
  }
  for (double q : qs)
    if (!(q >= 0 && q <= 1)) fail(c.loc, c.name + "(): q must be in the range [0, 1]", ErrorClass::ValueError);
  Along a = alongOf(c, x, dimV);
  if (a.length == 0) fail(c.loc, c.name + "(): cannot compute a quantile of an empty line", ErrorClass::IndexError);
  bool whole = dimV.is(Kind::None);
  Value sorted = applyOp(
      c, ir::Op::Gather,
      {a.x, Value::integer(a.dim), applyOp(c, ir::Op::ArgSort, {a.x, Value::integer(a.dim), Value::boolean(false)})});
  // The valid (not NaN) values of each line, as a float count.
  Value nans = nanCounts(c, a);
  Value valid = binary(c, ir::Op::Sub, Value::integer(a.length), nans);
  bool ignoreNan = c.name == "nanquantile";
  std::vector<Value> results;
  for (double q : qs) {
    // pos = q * (valid - 1) (for quantile, a line with a NaN is NaN anyway)
    // Per line, as a tensor of x's dtype (the positions are PyTorch's, in it).
    Value counted = ignoreNan ? valid : binary(c, ir::Op::Add, valid, nans);
    counted = applyOp(c, ir::Op::AsType, {counted, Value::dtype(static_cast<int>(t.dtype()))});
    Value span = binary(c, ir::Op::Sub, counted, Value::integer(1));
    Value pos =
        binary(c, ir::Op::Mul, Value::real(q), applyOp(c, ir::Op::Clip, {span, Value::integer(0), Value::none()}));
    Value lo = applyOp(c, ir::Op::Floor, {pos}), hi = applyOp(c, ir::Op::Ceil, {pos});
    auto at = [&](const Value& p) {
      Value i = applyOp(c, ir::Op::AsType, {p, Value::dtype(static_cast<int>(DType::I64))});
      return applyOp(c, ir::Op::Gather, {sorted, Value::integer(a.dim), i});
    };
    Value below = at(lo), above = at(hi), r;
    if (mode == "lower")
      r = below;
    else if (mode == "higher")
      r = above;
    else if (mode == "nearest")
      r = at(applyOp(c, ir::Op::Round, {pos}));
    else if (mode == "midpoint")
      r = binary(c, ir::Op::Mul, binary(c, ir::Op::Add, below, above), Value::real(0.5));
    else {  // PyTorch's lerp: exact at either end
      Value w = binary(c, ir::Op::Sub, pos, lo), gap = binary(c, ir::Op::Sub, above, below);
      Value fromBelow = binary(c, ir::Op::Add, below, binary(c, ir::Op::Mul, w, gap));
      Value fromAbove =
          binary(c, ir::Op::Sub, above, binary(c, ir::Op::Mul, gap, binary(c, ir::Op::Sub, Value::real(1.0), w)));
      r = where(c, binary(c, ir::Op::Lt, w, Value::real(0.5)), fromBelow, fromAbove);
    }
    // NaN where the line has a NaN (quantile) or nothing but NaNs.
    Value bad =
        ignoreNan ? binary(c, ir::Op::Eq, valid, Value::integer(0)) : binary(c, ir::Op::Gt, nans, Value::integer(0));
    r = where(c, bad, Value::real(NAN), r);
    if (whole)
      r = applyOp(c, ir::Op::Reshape, {r, intsTuple({})});
    else if (!keepdim)
      r = squeezed(c, r, a.dim);
    results.push_back(r);
  }
  if (!many) return results[0];
  return applyOp(c, ir::Op::Stack, {makeList(std::move(results)), Value::integer(0)});
}

// nansum(x, dim=None, keepdim=False) and nanmean: the sum and mean of the
// elements that are not NaN.
Value bNanReduce(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value none = Value::none(), no = Value::boolean(false);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dim", &none);
  bool keepdim = flagArg(c, argument(c, args, 2, "keepdim", &no), "keepdim");
  c.checkKeywordsUsed(c.name.c_str());
  const Tensor& t = tensorArg(c, x, "input");
  Value axes = dimV.isIntLike() ? makeTuple({dimV}) : dimV;
  bool mean = c.name == "nanmean";
  if (mean && !isFloating(t.dtype()))
    fail(c.loc, "nanmean(): expects a float tensor, not " + typeString(t), ErrorClass::TypeError);
  if (!isFloating(t.dtype())) return applyOp(c, ir::Op::Sum, {x, axes, Value::boolean(keepdim)});
  Value nan = applyOp(c, ir::Op::IsNan, {x});
  Value kept = where(c, nan, Value::real(0.0), x);
  Value sum = applyOp(c, ir::Op::Sum, {kept, axes, Value::boolean(keepdim)});
  if (!mean) return sum;
  Value count = applyOp(c, ir::Op::Sum, {applyOp(c, ir::Op::LogicalNot, {nan}), axes, Value::boolean(keepdim)});
  return binary(c, ir::Op::Div, sum, count);
}

// var_mean(x, dim=None, unbiased=True, keepdim=False, correction=None) and
// std_mean: (the variance or standard deviation, the mean), the variance
// with `correction` (by default 1, 0 with unbiased=False) degrees of
// freedom removed.
Value bSpreadMean(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value none = Value::none(), yes = Value::boolean(true), no = Value::boolean(false);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dim", &none);
  bool unbiased = flagArg(c, argument(c, args, 2, "unbiased", &yes), "unbiased");
  bool keepdim = flagArg(c, argument(c, args, 3, "keepdim", &no), "keepdim");
  Value correction = argument(c, {}, 0, "correction", &none);
  c.checkKeywordsUsed(c.name.c_str());
  tensorArg(c, x, "input");
  int64_t ddof = unbiased ? 1 : 0;
  if (!correction.is(Kind::None)) {
    if (!correction.isIntLike())
      fail(c.loc, c.name + "(): correction must be an int, not " + typeName(correction), ErrorClass::TypeError);
    ddof = correction.asInt();
  }
  Value axes = dimV.isIntLike() ? makeTuple({dimV}) : dimV;
  ir::Op spread = c.name == "std_mean" ? ir::Op::Std : ir::Op::Var;
  Value s = applyOp(c, spread, {x, axes, Value::boolean(keepdim), Value::integer(ddof)});
  Value m = applyOp(c, ir::Op::Mean, {x, axes, Value::boolean(keepdim)});
  return makeTuple({s, m});
}

// aminmax(x, dim=None, keepdim=False): (min, max), a tuple whose items are
// also its attributes .min and .max.
Value bAminmax(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value x = argument(c, args, 0, "input", nullptr);
  Value none = Value::none(), no = Value::boolean(false);
  Value dimV = argument(c, {}, 0, "dim", &none);
  bool keepdim = flagArg(c, argument(c, {}, 0, "keepdim", &no), "keepdim");
  c.checkKeywordsUsed("aminmax");
  const Tensor& t = tensorArg(c, x, "input");
  if (t.numel() == 0) fail(c.loc, "aminmax(): cannot compute the extremes of an empty tensor", ErrorClass::ValueError);
  Value axes = dimV.isIntLike() ? makeTuple({dimV}) : dimV;
  Value lo = applyOp(c, ir::Op::Min, {x, axes, Value::boolean(keepdim)});
  Value hi = applyOp(c, ir::Op::Max, {x, axes, Value::boolean(keepdim)});
  return makeNamedTuple({lo, hi}, {"min", "max"});
}

// cummax(x, dim) and cummin: (values, indices) of the running maximum
// (minimum) along dim, the index that of the latest element equal to it
// and, from the first NaN on, that NaN's (PyTorch's); the values are x
// gathered at the indices, so they differentiate as x's elements there.
Value bCumExtreme(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dim", nullptr);
  c.checkKeywordsUsed(c.name.c_str());
  const Tensor& t = tensorArg(c, x, "input");
  bool larger = c.name == "cummax";
  Value line = t.ndim() == 0 ? applyOp(c, ir::Op::Reshape, {x, intsTuple({1})}) : x;
  const Tensor& lined = tensorOf(line);
  if (!dimV.isIntLike()) fail(c.loc, c.name + "(): dim must be an int, not " + typeName(dimV), ErrorClass::TypeError);
  int64_t dim = normalizeAxis(dimV.asInt(), std::max(1, static_cast<int>(t.ndim())), c.loc, c.name.c_str());
  int64_t len = lined.dim(static_cast<int>(dim)), inner = 1;
  for (int d = static_cast<int>(dim) + 1; d < lined.ndim(); ++d) inner *= lined.dim(d);
  int64_t outer = len * inner == 0 ? 0 : lined.numel() / (len * inner);
  std::vector<int64_t> index(static_cast<size_t>(lined.numel()));
  auto scan = [&](auto zero) {
    using T = decltype(zero);
    Tensor h = astype(readableOnHost(lined, c.loc), std::is_same_v<T, double> ? DType::F64 : DType::I64).contiguous();
    const T* v = h.data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t base = o * len * inner + i, best = 0;
        for (int64_t j = 0; j < len; ++j) {
          T now = v[base + j * inner], kept = v[base + best * inner];
          bool takes = kept != kept ? false : now != now ? true : larger ? now >= kept : now <= kept;
          if (takes) best = j;
          index[static_cast<size_t>(base + j * inner)] = best;
        }
      }
  };
  if (isFloating(t.dtype())) scan(0.0);
  else scan(int64_t{0});
  Tensor indices = Tensor::empty(DType::I64, lined.shape(), c.interp.context().cpu());
  std::copy(index.begin(), index.end(), indices.data<int64_t>());
  Value at = makeTensorValue(copyTo(indices, t.device(), c.loc));
  Value values = applyOp(c, ir::Op::Gather, {line, Value::integer(dim), at});
  if (t.ndim() == 0) {
    values = applyOp(c, ir::Op::Reshape, {values, intsTuple({})});
    at = applyOp(c, ir::Op::Reshape, {at, intsTuple({})});
  }
  return makeNamedTuple({values, at}, {"values", "indices"});
}

// The position along each line of a [lines, n] host tensor (T: double
// for floats, int64_t for integers) of its mode: the most frequent value,
// the smallest of those equally frequent, at its last place (PyTorch's
// choices); NaN counts as one value, above every number.
template <class T>
std::vector<int64_t> modePositions(const Tensor& lines, int64_t n) {
  int64_t count = n == 0 ? 0 : lines.numel() / n;
  const T* v = lines.data<T>();
  auto before = [](T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return false;
      if (b != b) return true;
    }
    return a < b;
  };
  std::vector<int64_t> out(static_cast<size_t>(count));
  // The lines are independent: on all cores, each with a buffer to sort.
  forEachLine(count, lines.numel() >= kParallelThreshold, [&](int64_t line) {
    std::vector<T> sorted(static_cast<size_t>(n));
    const T* row = v + line * n;
    std::copy(row, row + n, sorted.begin());
    std::sort(sorted.begin(), sorted.end(), before);
    // The longest run of equal values, the first (smallest) of equal
    // lengths; then its last place in the line.
    int64_t best = 0;
    T mode = sorted[0];
    for (int64_t i = 0; i < n;) {
      int64_t j = i;
      while (j < n && !before(sorted[static_cast<size_t>(i)], sorted[static_cast<size_t>(j)])) ++j;
      if (j - i > best) best = j - i, mode = sorted[static_cast<size_t>(i)];
      i = j;
    }
    int64_t at = n - 1;
    while (at > 0 && (before(row[at], mode) || before(mode, row[at]))) --at;
    out[static_cast<size_t>(line)] = at;
  });
  return out;
}

// mode(x, dim=-1, keepdim=False): (values, indices) of each line's mode,
// found on the host; the values x gathered there, so they differentiate
// as x's elements.
Value bMode(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value last = Value::integer(-1), no = Value::boolean(false);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dim", &last);
  bool keepdim = flagArg(c, argument(c, args, 2, "keepdim", &no), "keepdim");
  c.checkKeywordsUsed("mode");
  const Tensor& t = tensorArg(c, x, "input");
  Along a = alongOf(c, x, dimV);
  if (a.length == 0) fail(c.loc, "mode(): cannot compute the mode of an empty line", ErrorClass::IndexError);
  const Tensor& lineTensor = tensorOf(a.x);
  int64_t rank = lineTensor.ndim();
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != a.dim) perm.push_back(d);
  perm.push_back(a.dim);
  Tensor lines = readableOnHost(transpose(lineTensor, perm, c.loc), c.loc);
  std::vector<int64_t> at = isFloating(lines.dtype())
                                ? modePositions<double>(astype(lines, DType::F64).contiguous(), a.length)
                                : modePositions<int64_t>(astype(lines, DType::I64).contiguous(), a.length);
  Shape batch = lineTensor.shape();
  batch.erase(batch.begin() + a.dim);
  batch.push_back(1);
  // The positions in the permuted order (the dim last, as 1), moved back.
  std::vector<int64_t> back(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) back[static_cast<size_t>(perm[static_cast<size_t>(d)])] = d;
  Value index = applyOp(c, ir::Op::Permute, {i64Tensor(c, at, batch, lineTensor.device()), intsTuple(back)});
  Value values = applyOp(c, ir::Op::Gather, {a.x, Value::integer(a.dim), index});
  if (t.ndim() == 0 || !keepdim) {
    std::vector<int64_t> shape;
    if (t.ndim() > 0)
      for (int64_t d = 0; d < rank; ++d)
        if (d != a.dim) shape.push_back(lineTensor.dim(static_cast<int>(d)));
    values = applyOp(c, ir::Op::Reshape, {values, intsTuple(shape)});
    index = applyOp(c, ir::Op::Reshape, {index, intsTuple(shape)});
  }
  return makeNamedTuple({values, index}, {"values", "indices"});
}

// msort(x): x sorted along its first dim (the values of sort(x, 0)), x
// gathered in the sort's order.
Value bMsort(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value x = argument(c, args, 0, "input", nullptr);
  c.checkKeywordsUsed("msort");
  if (tensorArg(c, x, "input").ndim() == 0) return x;
  Value order = applyOp(c, ir::Op::ArgSort, {x, Value::integer(0), Value::boolean(false)});
  return applyOp(c, ir::Op::Gather, {x, Value::integer(0), order});
}

// cov(input, *, correction=1, fweights=None, aweights=None): the
// covariances of the rows of input [vars, obs] (a 1-d input is one
// variable: a 0-d result), as PyTorch's: observations weighted by the
// integer frequencies fweights times the float weights aweights, divided
// by the weights' sum less `correction` (less correction times the
// weighted mean of aweights, where given), clamped at 0 as PyTorch's.
// Integers compute in f32. corrcoef(input): the covariances over the
// products of the standard deviations, clipped to [-1, 1].
Value covariances(CallContext& c, const Value& input, const Value* correctionV, const Value* fweights,
                  const Value* aweights) {
  const Tensor& t = tensorArg(c, input, "input");
  if (t.ndim() > 2)
    fail(c.loc, c.name + "(): expects input of at most 2 dims (variables, observations), not " + typeString(t),
         ErrorClass::ValueError);
  Value x =
      isFloating(t.dtype()) ? input : applyOp(c, ir::Op::AsType, {input, Value::dtype(static_cast<int>(DType::F32))});
  int64_t observations = t.ndim() == 0 ? 1 : t.dim(t.ndim() - 1);
  if (t.ndim() < 2) x = reshaped(c, x, {1, observations});
  double correction = 1.0;
  if (correctionV) {
    if (!correctionV->isNumber())
      fail(c.loc, c.name + "(): correction must be a number, not " + typeName(*correctionV), ErrorClass::TypeError);
    correction = correctionV->asFloat();
  }
  auto weightsArg = [&](const Value* w, const char* what, bool integral) -> std::optional<Value> {
    if (!w || w->is(Kind::None)) return std::nullopt;
    const Tensor& wt = tensorArg(c, *w, what);
    if (wt.ndim() > 1 || wt.numel() != observations)
      fail(c.loc,
           c.name + "(): " + what + " must be 1-d with one weight per observation (" + std::to_string(observations) +
               "), not " + typeString(wt),
           ErrorClass::ValueError);
    if (integral == isFloating(wt.dtype()) || wt.dtype() == DType::Bool)
      fail(c.loc,
           c.name + "(): " + what + " must be " + (integral ? "an integer" : "a floating-point") + " tensor, not " +
               typeString(wt),
           ErrorClass::TypeError);
    Tensor onHost = readableOnHost(wt, c.loc);
    for (int64_t i = 0; i < onHost.numel(); ++i)
      if (onHost.flatAsDouble(i) < 0)
        fail(c.loc, c.name + "(): " + what + " must be non-negative", ErrorClass::ValueError);
    return *w;
  };
  std::optional<Value> fw = weightsArg(fweights, "fweights", true), aw = weightsArg(aweights, "aweights", false);
  std::optional<Value> w = fw;
  if (aw) w = w ? binary(c, ir::Op::Mul, *w, *aw) : *aw;
  Value sumAxis = intsTuple({-1}), keep = Value::boolean(true);
  Value centred, norm;
  if (!w) {
    Value mean = applyOp(c, ir::Op::Mean, {x, sumAxis, keep});
    centred = binary(c, ir::Op::Sub, x, mean);
    norm = Value::real(std::max(0.0, static_cast<double>(observations) - correction));
  } else {
    Value total = applyOp(c, ir::Op::Sum, {*w, Value::none(), Value::boolean(false)});
    Value weighted = applyOp(c, ir::Op::Sum, {binary(c, ir::Op::Mul, x, *w), sumAxis, keep});
    centred = binary(c, ir::Op::Sub, x, binary(c, ir::Op::Div, weighted, total));
    Value less = Value::real(correction);
    if (aw && correction != 0) {
      Value spread = applyOp(c, ir::Op::Sum, {binary(c, ir::Op::Mul, *w, *aw), Value::none(), Value::boolean(false)});
      less = binary(c, ir::Op::Div, binary(c, ir::Op::Mul, spread, Value::real(correction)), total);
    }
    norm = applyOp(c, ir::Op::Clip, {binary(c, ir::Op::Sub, total, less), Value::integer(0), Value::none()});
  }
  Value right = w ? binary(c, ir::Op::Mul, centred, *w) : centred;
  Value products = binary(c, ir::Op::MatMul, centred, applyOp(c, ir::Op::Transpose, {right, makeTuple({})}));
  Value out = binary(c, ir::Op::Div, products, norm);
  return t.ndim() < 2 ? reshaped(c, out, {}) : out;
}

Value bCov(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value input = argument(c, args, 0, "input", nullptr);
  const Value *correction = c.kw("correction"), *fweights = c.kw("fweights"), *aweights = c.kw("aweights");
  c.checkKeywordsUsed("cov");
  return covariances(c, input, correction, fweights, aweights);
}

Value bCorrcoef(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value input = argument(c, args, 0, "input", nullptr);
  c.checkKeywordsUsed("corrcoef");
  Value cov = covariances(c, input, nullptr, nullptr, nullptr);
  if (tensorOf(cov).ndim() == 0) return binary(c, ir::Op::Div, cov, cov);
  Value spread = applyOp(c, ir::Op::Sqrt, {applyOp(c, ir::Op::Diag, {cov, Value::integer(0)})});
  Value rows = applyOp(c, ir::Op::Unsqueeze, {spread, Value::integer(-1)});
  Value columns = applyOp(c, ir::Op::Unsqueeze, {spread, Value::integer(0)});
  Value scaled = binary(c, ir::Op::Div, binary(c, ir::Op::Div, cov, rows), columns);
  return applyOp(c, ir::Op::Clip, {scaled, Value::real(-1.0), Value::real(1.0)});
}

}  // namespace

BuiltinFn tensorStatisticMethod(const std::string& name) {
  if (name == "median" || name == "nanmedian") return bMedian;
  if (name == "kthvalue") return bKthvalue;
  if (name == "quantile" || name == "nanquantile") return bQuantile;
  if (name == "nansum" || name == "nanmean") return bNanReduce;
  if (name == "aminmax") return bAminmax;
  if (name == "cummax" || name == "cummin") return bCumExtreme;
  if (name == "cov") return bCov;
  if (name == "mode") return bMode;
  if (name == "msort") return bMsort;
  if (name == "corrcoef") return bCorrcoef;
  return nullptr;
}

void addTensorStatistics(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::Median, Builtin::Nanmedian, Builtin::Kthvalue, Builtin::Quantile, Builtin::Nanquantile,
                    Builtin::Nansum, Builtin::Nanmean, Builtin::Aminmax, Builtin::Cummax, Builtin::Cummin,
                    Builtin::Cov, Builtin::Corrcoef, Builtin::Mode, Builtin::Msort})
    table[ir::builtinInfo(b).name] = tensorStatisticMethod(ir::builtinInfo(b).name);
  table[ir::builtinInfo(Builtin::VarMean).name] = bSpreadMean;
  table[ir::builtinInfo(Builtin::StdMean).name] = bSpreadMean;
}

}  // namespace nn::stdlib
