// PyTorch's functions that look values up or count them: searchsorted and
// bucketize (the positions of values in sorted boundaries, by PyTorch's
// own binary searches, so that NaN lands where PyTorch puts it), isin
// (membership; NaN is never a member), bincount (the counts of
// non-negative ints, or their weights' sums), histc (a histogram of equal
// bins), histogram (of equal bins or given edges, with their edges),
// unique_consecutive and unique (the distinct values or slices, their counts and where
// each element's is). Their answers are
// integers or bools, read on the host and given back on the input's
// device, except bincount's weighted sums, which are a scatter_add, and
// unique's values, which are an indexing of the input, so that the tape
// differentiates them.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <type_traits>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// A tensor argument or a number (as a 0-d tensor of its own dtype, on
// `device`).
Tensor tensorOrNumber(CallContext& c, const Value& v, const char* what, Device& device) {
  if (v.is(Kind::Tensor)) return tensorOf(v);
  if (!v.isNumber())
    fail(c.loc, c.name + "(): " + what + " must be a Tensor or a number, not " + typeName(v), ErrorClass::TypeError);
  return tensorFromData(v, std::nullopt, c.loc, device);
}

bool integral(DType d) { return d == DType::I32 || d == DType::I64 || d == DType::Bool; }

// t's elements on the host, contiguous, as `as` (i64 or f64).
Tensor hostAs(CallContext& c, const Tensor& t, DType as) {
  return astype(readableOnHost(t, c.loc), as).contiguous();
}

// PyTorch's binary searches (cus_lower_bound, cus_upper_bound): the first
// position in [0, n) whose element is not below v (right: not at or below
// it); written with negated tests as PyTorch's, so that a NaN on either
// side goes where it sends it.
template <class T>
int64_t boundOf(const T* row, int64_t n, T v, bool right) {
  int64_t start = 0, end = n;
  while (start < end) {
    int64_t mid = start + ((end - start) >> 1);
    bool before = right ? !(row[mid] > v) : !(row[mid] >= v);
    if (before) start = mid + 1;
    else end = mid;
  }
  return start;
}

template <class T>
void searchRows(const Tensor& bounds, const Tensor& values, int64_t rows, bool right, Tensor& out) {
  int64_t n = bounds.ndim() ? bounds.shape().back() : 1, per = rows ? values.numel() / rows : 0;
  const T* b = bounds.data<T>();
  const T* v = values.data<T>();
  int64_t* o = out.data<int64_t>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < per; ++k) o[r * per + k] = boundOf(b + r * n, n, v[r * per + k], right);
}

// The positions of `values` in `bounds` (1-d, or rows matching values'
// leading dims), as i64 or i32, on bounds' device.
Value positionsIn(CallContext& c, const Value& boundsArg, const Value& valuesArg, bool right, bool int32) {
  if (!boundsArg.is(Kind::Tensor))
    fail(c.loc, c.name + "(): the boundaries must be a Tensor, not " + typeName(boundsArg), ErrorClass::TypeError);
  const Tensor& bounds = tensorOf(boundsArg);
  Tensor values = tensorOrNumber(c, valuesArg, "the values", bounds.device());
  if (bounds.ndim() == 0) fail(c.loc, c.name + "(): the boundaries must have at least one dim", ErrorClass::ValueError);
  bool rowsMatch = bounds.ndim() == values.ndim() &&
                   std::equal(bounds.shape().begin(), bounds.shape().end() - 1, values.shape().begin());
  if (bounds.ndim() > 1 && !rowsMatch)
    fail(c.loc,
         c.name + "(): the boundaries must be 1-d, or their leading dims must be the values' (" +
             typeString(bounds) + " and " + typeString(values) + ")",
         ErrorClass::ValueError);
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < bounds.shape().size(); ++d) rows *= bounds.shape()[d];
  // Compared in the dtype they promote to, as PyTorch compares them.
  bool ints = integral(bounds.dtype()) && integral(values.dtype());
  DType as = ints ? DType::I64 : DType::F64;
  Tensor b = hostAs(c, bounds, as), v = hostAs(c, values, as);
  Tensor out = Tensor::empty(DType::I64, values.shape(), b.device());
  if (ints) searchRows<int64_t>(b, v, rows, right, out);
  else searchRows<double>(b, v, rows, right, out);
  if (int32) out = astype(out, DType::I32);
  return makeTensorValue(copyTo(out, bounds.device(), c.loc));
}

bool boolKeyword(CallContext& c, const char* name) {
  const Value* v = c.kw(name);
  if (!v) return false;
  if (!v->is(Kind::Bool))
    fail(c.loc, c.name + "(): " + name + " must be a bool, not " + typeName(*v), ErrorClass::TypeError);
  return v->asBool();
}

void positional(CallContext& c, std::vector<Value>& args, size_t count) {
  if (args.size() != count)
    fail(c.loc, positionalCountMessage(c.name, std::to_string(count), args.size()), ErrorClass::TypeError);
}

// searchsorted(sorted_sequence, values, out_int32=False, right=False,
// side=None): where each value would go in the sorted sequence to keep it
// sorted, the first such place (side "right" or right=True: the last).
Value bSearchsorted(CallContext& c, std::vector<Value>& args) {
  positional(c, args, 2);
  bool int32 = boolKeyword(c, "out_int32"), right = boolKeyword(c, "right");
  if (const Value* side = c.kw("side")) {
    if (!side->is(Kind::Str) || (side->asStr() != "left" && side->asStr() != "right"))
      fail(c.loc, "searchsorted(): side must be 'left' or 'right'", ErrorClass::ValueError);
    if (c.kw("right") && right != (side->asStr() == "right"))
      fail(c.loc, "searchsorted(): side and right say opposite things", ErrorClass::ValueError);
    right = side->asStr() == "right";
  }
  c.checkKeywordsUsed("searchsorted");
  return positionsIn(c, args[0], args[1], right, int32);
}

// bucketize(input, boundaries, out_int32=False, right=False): the bucket
// of each element between 1-d boundaries (searchsorted(boundaries, input)).
Value bBucketize(CallContext& c, std::vector<Value>& args) {
  positional(c, args, 2);
  bool int32 = boolKeyword(c, "out_int32"), right = boolKeyword(c, "right");
  c.checkKeywordsUsed("bucketize");
  if (args[1].is(Kind::Tensor) && tensorOf(args[1]).ndim() != 1)
    fail(c.loc, "bucketize(): the boundaries must be 1-d, not " + typeString(tensorOf(args[1])),
         ErrorClass::ValueError);
  return positionsIn(c, args[1], args[0], right, int32);
}

// isin(elements, test_elements, assume_unique=False, invert=False):
// whether each element equals one of the test elements (compared in the
// dtype they promote to; NaN equals nothing), as bools of elements' shape.
Value bIsin(CallContext& c, std::vector<Value>& args) {
  positional(c, args, 2);
  boolKeyword(c, "assume_unique");  // a promise PyTorch may use for speed; the answer is the same
  bool invert = boolKeyword(c, "invert");
  c.checkKeywordsUsed("isin");
  if (!args[0].is(Kind::Tensor) && !args[1].is(Kind::Tensor))
    fail(c.loc, "isin(): expects a Tensor for the elements or the test elements", ErrorClass::TypeError);
  Device& device = args[0].is(Kind::Tensor) ? tensorOf(args[0]).device() : tensorOf(args[1]).device();
  Tensor elements = tensorOrNumber(c, args[0], "the elements", device);
  Tensor tests = tensorOrNumber(c, args[1], "the test elements", device);
  bool ints = integral(elements.dtype()) && integral(tests.dtype());
  Tensor out = Tensor::empty(DType::Bool, elements.shape(), readableOnHost(elements, c.loc).device());
  bool* o = out.data<bool>();
  auto check = [&](auto zero) {
    using T = decltype(zero);
    DType as = ints ? DType::I64 : DType::F64;
    Tensor e = hostAs(c, elements, as), t = hostAs(c, tests, as);
    std::vector<T> sorted(t.data<T>(), t.data<T>() + t.numel());
    // NaN equals nothing, so it is left out of the sorted test elements.
    sorted.erase(std::remove_if(sorted.begin(), sorted.end(), [](T x) { return x != x; }), sorted.end());
    std::sort(sorted.begin(), sorted.end());
    const T* ev = e.data<T>();
    for (int64_t i = 0; i < e.numel(); ++i) {
      bool member = ev[i] == ev[i] && std::binary_search(sorted.begin(), sorted.end(), ev[i]);
      o[i] = member != invert;
    }
  };
  if (ints) check(int64_t{0});
  else check(0.0);
  return makeTensorValue(copyTo(out, device, c.loc));
}

// bincount(input, weights=None, minlength=0): for 1-d non-negative ints,
// how often each value up to the largest (and below minlength) occurs, as
// i64; with weights (input's shape), the sums of each value's weights,
// f32 for f32 weights and f64 otherwise, as a scatter_add (which the tape
// differentiates).
Value bBincount(CallContext& c, std::vector<Value>& args) {
  positional(c, args, 1);
  const Value* weights = c.kw("weights");
  const Value* minlengthArg = c.kw("minlength");
  c.checkKeywordsUsed("bincount");
  if (!args[0].is(Kind::Tensor))
    fail(c.loc, std::string("bincount(): input must be a Tensor, not ") + typeName(args[0]), ErrorClass::TypeError);
  const Tensor& input = tensorOf(args[0]);
  if (input.ndim() != 1 || !(input.dtype() == DType::I32 || input.dtype() == DType::I64))
    fail(c.loc, "bincount(): expects a 1-d tensor of non-negative ints, not " + typeString(input),
         ErrorClass::ValueError);
  int64_t minlength = 0;
  if (minlengthArg) {
    if (!minlengthArg->isIntLike() || minlengthArg->asInt() < 0)
      fail(c.loc, "bincount(): minlength must be an int of at least 0, not " + repr(*minlengthArg),
           ErrorClass::ValueError);
    minlength = minlengthArg->asInt();
  }
  Tensor values = hostAs(c, input, DType::I64);
  const int64_t* v = values.data<int64_t>();
  int64_t length = minlength;
  for (int64_t i = 0; i < values.numel(); ++i) {
    if (v[i] < 0)
      fail(c.loc, "bincount(): expects non-negative ints, but the input has " + std::to_string(v[i]),
           ErrorClass::ValueError);
    length = std::max(length, v[i] + 1);
  }
  if (!weights || weights->is(Kind::None)) {
    Tensor counts = Tensor::empty(DType::I64, {length}, values.device());
    std::fill(counts.data<int64_t>(), counts.data<int64_t>() + length, int64_t{0});
    for (int64_t i = 0; i < values.numel(); ++i) ++counts.data<int64_t>()[v[i]];
    return makeTensorValue(copyTo(counts, input.device(), c.loc));
  }
  if (!weights->is(Kind::Tensor) || tensorOf(*weights).shape() != input.shape())
    fail(c.loc,
         "bincount(): weights must be a Tensor of input's shape " + shapeString(input.shape()) + ", not " +
             (weights->is(Kind::Tensor) ? typeString(tensorOf(*weights)) : std::string(typeName(*weights))),
         ErrorClass::ValueError);
  DType dt = tensorOf(*weights).dtype() == DType::F32 ? DType::F32 : DType::F64;
  std::vector<Value> toType{*weights, Value::dtype(static_cast<int>(dt))};
  Value w = runTensorOp(c.interp, ir::Op::AsType, toType, c.loc);
  std::vector<Value> zeros{intsTuple({length}), Value::dtype(static_cast<int>(dt)), Value::str(input.device().name())};
  Value base = runTensorOp(c.interp, ir::Op::Zeros, zeros, c.loc);
  std::vector<Value> scatter{base, Value::integer(0), args[0], w};
  return runTensorOp(c.interp, ir::Op::ScatterAdd, scatter, c.loc);
}

// histc(input, bins=100, min=0, max=0): how many of a float tensor's
// elements fall in each of `bins` equal bins over [min, max] (min = max:
// the elements' own range, widened by 1 each way when it is one value),
// in input's dtype; elements outside the range (and NaN) are not counted,
// max falls in the last bin. An element's bin is PyTorch's: (x - min) /
// (max - min) * bins, in input's dtype, cut to an int.
Value bHistc(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value hundred = Value::integer(100), zero = Value::integer(0);
  Value input = argument(c, args, 0, "input", nullptr), binsArg = argument(c, args, 1, "bins", &hundred);
  Value minArg = argument(c, args, 2, "min", &zero), maxArg = argument(c, args, 3, "max", &zero);
  c.checkKeywordsUsed("histc");
  if (!input.is(Kind::Tensor) || !isFloating(tensorOf(input).dtype()))
    fail(c.loc,
         "histc(): expects a float tensor, not " +
             (input.is(Kind::Tensor) ? typeString(tensorOf(input)) : std::string(typeName(input))),
         ErrorClass::TypeError);
  if (!binsArg.isIntLike() || binsArg.asInt() <= 0)
    fail(c.loc, "histc(): bins must be a positive int, not " + repr(binsArg), ErrorClass::ValueError);
  for (const Value* v : {&minArg, &maxArg})
    if (!v->isNumber())
      fail(c.loc, std::string("histc(): min and max must be numbers, not ") + typeName(*v), ErrorClass::TypeError);
  const Tensor& x = tensorOf(input);
  int64_t bins = binsArg.asInt();
  Tensor out = Tensor::zeros(x.dtype(), {bins}, readableOnHost(x, c.loc).device());
  auto count = [&](auto zero) {
    using T = decltype(zero);
    Tensor h = astype(readableOnHost(x, c.loc), x.dtype()).contiguous();
    const T* v = h.data<T>();
    int64_t n = h.numel();
    T lo = static_cast<T>(minArg.asFloat()), hi = static_cast<T>(maxArg.asFloat());
    if (lo > hi) fail(c.loc, "histc(): max must be larger than min", ErrorClass::ValueError);
    if (lo == hi && n > 0) {  // the elements' range (NaN if one is NaN, as PyTorch's)
      lo = hi = v[0];
      for (int64_t i = 0; i < n && lo == lo; ++i) {
        if (v[i] != v[i]) lo = hi = v[i];
        else lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
      }
    }
    if (lo == hi) {
      lo -= 1;
      hi += 1;
    }
    if (!std::isfinite(lo) || !std::isfinite(hi))
      fail(c.loc, "histc(): the range [" + repr(Value::real(lo)) + ", " + repr(Value::real(hi)) + "] is not finite",
           ErrorClass::ValueError);
    T* o = out.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      T e = v[i];
      if (!(e >= lo && e <= hi)) continue;
      auto bin = static_cast<int64_t>((e - lo) / (hi - lo) * static_cast<T>(bins));
      ++o[std::min(bin, bins - 1)];  // the last bin holds max too
    }
  };
  if (x.dtype() == DType::F32) count(0.0f);
  else count(0.0);
  return makeTensorValue(copyTo(out, x.device(), c.loc));
}

// histogram(input, bins, *, range=None, weight=None, density=False):
// (hist, bin_edges) of a float tensor's elements, bins an int (equal bins
// over range, or the elements' own, widened by 0.5 each way when it is one
// value: linspace's edges) or a 1-d tensor of increasing edges. An element
// is in bin i where edges[i] <= x < edges[i + 1], the last bin holding its
// right edge too; elements outside the edges and NaN are not counted. hist
// sums weight's elements where given, and with density is divided by its
// total times each bin's width. Computed on the host, in input's dtype.
Value bHistogram(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value input = argument(c, args, 0, "input", nullptr), binsArg = argument(c, args, 1, "bins", nullptr);
  const Value* range = c.kw("range");
  const Value* weight = c.kw("weight");
  const Value* density = c.kw("density");
  c.checkKeywordsUsed("histogram");
  if (!input.is(Kind::Tensor) || !isFloating(tensorOf(input).dtype()))
    fail(c.loc,
         "histogram(): expects a float tensor, not " +
             (input.is(Kind::Tensor) ? typeString(tensorOf(input)) : std::string(typeName(input))),
         ErrorClass::TypeError);
  const Tensor& x = tensorOf(input);
  DType type = x.dtype();
  Tensor values = astype(readableOnHost(x, c.loc), DType::F64).contiguous();
  const double* v = values.data<double>();
  int64_t n = values.numel();
  std::vector<double> edges;
  if (binsArg.is(Kind::Tensor)) {
    if (range && !range->is(Kind::None))
      fail(c.loc, "histogram(): takes range with a number of bins, not with their edges", ErrorClass::TypeError);
    const Tensor& e = tensorOf(binsArg);
    if (e.ndim() != 1 || e.numel() < 2)
      fail(c.loc, "histogram(): bin edges must be a 1-d tensor of at least 2, not " + typeString(e),
           ErrorClass::ValueError);
    Tensor he = astype(readableOnHost(e, c.loc), DType::F64).contiguous();
    edges.assign(he.data<double>(), he.data<double>() + he.numel());
    for (size_t i = 1; i < edges.size(); ++i)
      if (!(edges[i - 1] < edges[i]))
        fail(c.loc, "histogram(): bin edges must increase", ErrorClass::ValueError);
  } else {
    if (!binsArg.isIntLike() || binsArg.asInt() <= 0)
      fail(c.loc, "histogram(): bins must be a positive int or a tensor of edges, not " + repr(binsArg),
           ErrorClass::ValueError);
    double lo = 0, hi = 0;
    if (range && !range->is(Kind::None)) {
      const std::vector<Value>* pair =
          range->is(Kind::Tuple) || range->is(Kind::List) ? &range->as<SeqObj>().items : nullptr;
      if (!pair || pair->size() != 2 || !(*pair)[0].isNumber() || !(*pair)[1].isNumber())
        fail(c.loc, "histogram(): range must be a pair of numbers (min, max)", ErrorClass::TypeError);
      lo = (*pair)[0].asFloat(), hi = (*pair)[1].asFloat();
      if (lo > hi) fail(c.loc, "histogram(): range's max must not be below its min", ErrorClass::ValueError);
    } else if (n > 0) {
      lo = hi = v[0];
      for (int64_t i = 0; i < n; ++i)
        if (v[i] == v[i]) lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
    }
    if (lo == hi) lo -= 0.5, hi += 0.5;
    if (!std::isfinite(lo) || !std::isfinite(hi))
      fail(c.loc, "histogram(): the range [" + repr(Value::real(lo)) + ", " + repr(Value::real(hi)) + "] is not finite",
           ErrorClass::ValueError);
    // linspace's edges, in input's dtype, as PyTorch's.
    Value spaced = applyOp(c, ir::Op::Linspace,
                           {Value::real(lo), Value::real(hi), Value::integer(binsArg.asInt() + 1),
                            Value::dtype(static_cast<int>(type)), Value::none()});
    Tensor he = astype(readableOnHost(tensorOf(spaced), c.loc), DType::F64).contiguous();
    edges.assign(he.data<double>(), he.data<double>() + he.numel());
  }
  Tensor w;
  bool weighted = weight && !weight->is(Kind::None);
  if (weighted) {
    const Tensor& wt = tensorArg(c, *weight, "weight");
    if (wt.shape() != x.shape())
      fail(c.loc, "histogram(): weight " + typeString(wt) + " must have input's shape " + shapeString(x.shape()),
           ErrorClass::ValueError);
    w = astype(readableOnHost(wt, c.loc), DType::F64).contiguous();
  }
  bool dense = density && !density->is(Kind::None) && truthy(*density, c.loc);
  int64_t bins = static_cast<int64_t>(edges.size()) - 1;
  std::vector<double> hist(static_cast<size_t>(bins), 0.0);
  // An element's bin: the last edge at or below it (the last bin also
  // holding its right edge). Equal bins guess it by interpolation and
  // correct the guess against the edges; given edges search them.
  bool equal = !binsArg.is(Kind::Tensor);
  double lo = edges.front(), hi = edges.back();
  for (int64_t i = 0; i < n; ++i) {
    double e = v[i];
    if (!(e >= lo && e <= hi)) continue;
    int64_t bin;
    if (equal) {
      bin = std::min(static_cast<int64_t>((e - lo) / (hi - lo) * static_cast<double>(bins)), bins - 1);
      while (bin > 0 && e < edges[static_cast<size_t>(bin)]) --bin;
      while (bin < bins - 1 && e >= edges[static_cast<size_t>(bin + 1)]) ++bin;
    } else {
      bin = std::min<int64_t>(std::upper_bound(edges.begin(), edges.end(), e) - edges.begin() - 1, bins - 1);
    }
    hist[static_cast<size_t>(bin)] += weighted ? w.data<double>()[i] : 1.0;
  }
  if (dense) {
    double total = std::accumulate(hist.begin(), hist.end(), 0.0);
    for (int64_t b = 0; b < bins; ++b)
      hist[static_cast<size_t>(b)] /= total * (edges[static_cast<size_t>(b + 1)] - edges[static_cast<size_t>(b)]);
  }
  Device& host = values.device();
  Tensor h = Tensor::empty(DType::F64, {bins}, host), ed = Tensor::empty(DType::F64, {bins + 1}, host);
  std::copy(hist.begin(), hist.end(), h.data<double>());
  std::copy(edges.begin(), edges.end(), ed.data<double>());
  return makeNamedTuple({makeTensorValue(copyTo(astype(h, type), x.device(), c.loc)),
                         makeTensorValue(copyTo(astype(ed, type), x.device(), c.loc))},
                        {"hist", "bin_edges"});
}

// unique's grouping of items 0..n-1 (elements, or slices along a dim):
// sorted stably by `less` (unless `consecutive`: in their order), so that
// each group's first item is its first occurrence, and split where `same`
// fails.
struct Groups {
  std::vector<int64_t> first, count, where;
};
// The groups of items order[0..n) (the identity where order is null), a
// new one where `same` fails between neighbours: counted first, so that
// the arrays are filled in place.
template <class Same>
Groups groupRuns(int64_t n, const int64_t* order, Same same) {
  auto item = [&](int64_t k) { return order ? order[k] : k; };
  int64_t groups = n > 0 ? 1 : 0;
  for (int64_t k = 1; k < n; ++k) groups += !same(item(k - 1), item(k));
  Groups g;
  g.first.resize(static_cast<size_t>(groups));
  g.count.assign(static_cast<size_t>(groups), 0);
  g.where.resize(static_cast<size_t>(n));
  int64_t at = -1;
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = item(k);
    if (k == 0 || !same(item(k - 1), i)) g.first[static_cast<size_t>(++at)] = i;
    ++g.count[static_cast<size_t>(at)];
    g.where[static_cast<size_t>(i)] = at;
  }
  return g;
}
template <class Less, class Same>
Groups groupSorted(int64_t n, bool consecutive, Less less, Same same) {
  if (consecutive) return groupRuns(n, nullptr, same);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), less);
  return groupRuns(n, order.data(), same);
}

// The sorted groups of n integers spanning at most a few times n values
// (labels, classes, small counts: the common case), by counting: one pass
// finds each value's first place and count, the next the groups of the
// places; no sort.
std::optional<Groups> groupFewIntegers(const int64_t* v, int64_t n) {
  if (n == 0) return std::nullopt;
  auto [lo, hi] = std::minmax_element(v, v + n);
  uint64_t span = static_cast<uint64_t>(*hi) - static_cast<uint64_t>(*lo);
  if (span >= static_cast<uint64_t>(4 * n + 1024)) return std::nullopt;
  int64_t low = *lo;
  std::vector<int64_t> firstAt(span + 1, -1), counts(span + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    size_t slot = static_cast<uint64_t>(v[i]) - static_cast<uint64_t>(low);
    if (firstAt[slot] < 0) firstAt[slot] = i;
    ++counts[slot];
  }
  Groups g;
  std::vector<int64_t> group(span + 1, -1);
  for (size_t slot = 0; slot <= span; ++slot)
    if (counts[slot] > 0) {
      group[slot] = static_cast<int64_t>(g.first.size());
      g.first.push_back(firstAt[slot]);
      g.count.push_back(counts[slot]);
    }
  g.where.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    g.where[static_cast<size_t>(i)] = group[static_cast<uint64_t>(v[i]) - static_cast<uint64_t>(low)];
  return g;
}

// x with its dim `dim` first (a view).
Tensor moveAxisToFront(CallContext& c, const Tensor& x, int64_t dim) {
  std::vector<int64_t> perm{dim};
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (d != dim) perm.push_back(d);
  return transpose(x, perm, c.loc);
}

// The groups of x's elements (dim < 0) or of its slices along dim, in
// order of value: NaN after every number and equal to nothing, slices
// compared element by element (lexicographically); or, `consecutive`, the
// runs of equal neighbours in x's order.
Groups uniqueGroups(CallContext& c, const Tensor& x, int64_t dim, bool consecutive) {
  auto group = [&](auto zero) {
    using T = decltype(zero);
    Tensor along = dim < 0 ? x : moveAxisToFront(c, x, dim);
    Tensor h = hostAs(c, along, integral(x.dtype()) ? DType::I64 : DType::F64);
    const T* v = h.data<T>();
    int64_t items = dim < 0 ? x.numel() : x.dim(static_cast<int>(dim));
    int64_t width = items == 0 ? 0 : h.numel() / items;
    auto nan = [](T a) { return a != a; };
    auto less = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < width; ++k) {
        T p = v[a * width + k], q = v[b * width + k];
        if (nan(p) || nan(q)) return !nan(p);  // NaN last (of two NaNs, neither first)
        if (p != q) return p < q;
      }
      return false;
    };
    auto same = [&](int64_t a, int64_t b) {
      for (int64_t k = 0; k < width; ++k)
        if (!(v[a * width + k] == v[b * width + k])) return false;
      return true;
    };
    if constexpr (std::is_same_v<T, int64_t>) {
      if (!consecutive && width == 1)
        if (std::optional<Groups> g = groupFewIntegers(v, items)) return std::move(*g);
    }
    if (width == 1)  // one element an item: compared directly
      return groupSorted(
          items, consecutive,
          [&](int64_t a, int64_t b) { return nan(v[a]) || nan(v[b]) ? !nan(v[a]) && nan(v[b]) : v[a] < v[b]; },
          [&](int64_t a, int64_t b) { return v[a] == v[b]; });
    return groupSorted(items, consecutive, less, same);
  };
  return integral(x.dtype()) ? group(int64_t{0}) : group(0.0);
}

// unique(input, sorted=True, return_inverse=False, return_counts=False,
// dim=None): input's distinct values, flattened and sorted (NaN last, each
// NaN a value of its own, as NaN equals nothing), or with dim its distinct
// slices along dim, sorted lexicographically; with return_inverse also the
// index of each element's (each slice's) value among them (input's shape;
// with dim, [input.shape[dim]]), with return_counts how often each occurs
// (i64). The values are input's elements (slices) at their first
// occurrences, an indexing the tape sees. unique_consecutive(input,
// return_inverse=False, return_counts=False, dim=None): the same of each
// run of equal neighbours, in input's order.
Value bUnique(CallContext& c, std::vector<Value>& args) {
  positional(c, args, 1);
  bool consecutive = c.name == "unique_consecutive";
  if (!consecutive) boolKeyword(c, "sorted");  // sorted either way, as PyTorch's on the CPU
  bool inverse = boolKeyword(c, "return_inverse"), counts = boolKeyword(c, "return_counts");
  const Value* dimArg = c.kw("dim");
  c.checkKeywordsUsed(c.name.c_str());
  if (!args[0].is(Kind::Tensor))
    fail(c.loc, c.name + "(): input must be a Tensor, not " + typeName(args[0]), ErrorClass::TypeError);
  const Tensor& x = tensorOf(args[0]);
  int64_t dim = -1;
  if (dimArg && !dimArg->is(Kind::None)) {
    if (!dimArg->isIntLike())
      fail(c.loc, c.name + "(): dim must be an int, not " + typeName(*dimArg), ErrorClass::TypeError);
    if (x.ndim() == 0)
      fail(c.loc, c.name + "(): dim= needs a tensor with dims, not " + typeString(x), ErrorClass::ValueError);
    dim = normalizeAxis(dimArg->asInt(), x.ndim(), c.loc, c.name.c_str());
  }
  Groups g = uniqueGroups(c, x, dim, consecutive);
  auto i64 = [&](const std::vector<int64_t>& items, const Shape& shape) {
    Tensor t = Tensor::empty(DType::I64, shape, readableOnHost(x, c.loc).device());
    std::copy(items.begin(), items.end(), t.data<int64_t>());
    return makeTensorValue(copyTo(t, x.device(), c.loc));
  };
  Value firsts = i64(g.first, {static_cast<int64_t>(g.first.size())});
  Value values;
  if (dim >= 0) {
    values = indexAlong(c, args[0], dim, firsts);
  } else {
    std::vector<Value> flat{args[0], intsTuple({x.numel()})};
    values = getItemOnTape(c, runTensorOp(c.interp, ir::Op::Reshape, flat, c.loc), firsts);
  }
  if (!inverse && !counts) return values;
  std::vector<Value> out{values};
  if (inverse) out.push_back(i64(g.where, dim >= 0 ? Shape{x.dim(static_cast<int>(dim))} : x.shape()));
  if (counts) out.push_back(i64(g.count, {static_cast<int64_t>(g.count.size())}));
  return makeTuple(std::move(out));
}

}  // namespace

BuiltinFn tensorSearchMethod(const std::string& name) {
  if (name == "unique" || name == "unique_consecutive") return bUnique;
  if (name == "bincount") return bBincount;
  if (name == "histc") return bHistc;
  if (name == "histogram") return bHistogram;
  return nullptr;
}

void addTensorSearches(BuiltinTable& table) {
  using ir::Builtin;
  table[ir::builtinInfo(Builtin::Searchsorted).name] = bSearchsorted;
  table[ir::builtinInfo(Builtin::Bucketize).name] = bBucketize;
  table[ir::builtinInfo(Builtin::Isin).name] = bIsin;
  table[ir::builtinInfo(Builtin::Bincount).name] = bBincount;
  table[ir::builtinInfo(Builtin::Unique).name] = bUnique;
  table[ir::builtinInfo(Builtin::UniqueConsecutive).name] = bUnique;
  table[ir::builtinInfo(Builtin::Histc).name] = bHistc;
  table[ir::builtinInfo(Builtin::Histogram).name] = bHistogram;
}

}  // namespace nn::stdlib
