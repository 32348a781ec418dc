// PyTorch's functions that arrange tensors, compositions of nn's shape,
// indexing and joining ops: tile, the stacks (hstack, vstack, row_stack,
// dstack, column_stack) and atleast_1d/2d/3d, fliplr, flipud and rot90,
// repeat_interleave, take_along_dim, broadcast_tensors, block_diag,
// cartesian_prod, tensor_split (hsplit, vsplit, dsplit), unflatten, the
// sliding windows of the method unfold, the index lists tril_indices and
// triu_indices, and the function forms of the methods narrow, select,
// index_select and unbind. Each runs its ops where
// a tape sees them, so it differentiates as they do, in every mode; the
// ones PyTorch also has as tensor methods are methods too.
#include <algorithm>
#include <numeric>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// The tensors of a call's arguments: each argument, or one list or tuple
// of them (PyTorch's stacks take a sequence; atleast_1d takes either).
std::vector<Value> tensorsIn(CallContext& c, const std::vector<Value>& args) {
  std::vector<Value> items = args;
  if (items.size() == 1 && (items[0].is(Kind::List) || items[0].is(Kind::Tuple))) items = items[0].as<SeqObj>().items;
  for (const Value& v : items) tensorArg(c, v, "each element");
  return items;
}

// x with at least `rank` dims, as PyTorch's atleast_1d/2d/3d shape them:
// a 0-d x is all ones, a 1-d [n] is [1, n] (and [1, n, 1] for three), a
// 2-d [m, n] is [m, n, 1] for three.
Value atLeast(CallContext& c, const Value& x, int rank) {
  const Tensor& t = tensorOf(x);
  if (t.ndim() >= rank) return x;
  if (t.ndim() == 0) return reshaped(c, x, std::vector<int64_t>(static_cast<size_t>(rank), 1));
  if (t.ndim() == 1)
    return reshaped(c, x, rank == 2 ? std::vector<int64_t>{1, t.dim(0)} : std::vector<int64_t>{1, t.dim(0), 1});
  return reshaped(c, x, {t.dim(0), t.dim(1), 1});
}

Value concat(CallContext& c, std::vector<Value> parts, int64_t axis) {
  return applyOp(c, ir::Op::Concat, {makeList(std::move(parts)), Value::integer(axis)});
}

Value bAtLeast(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  int rank = c.name == "atleast_1d" ? 1 : c.name == "atleast_2d" ? 2 : 3;
  bool one = args.size() == 1 && args[0].is(Kind::Tensor);
  std::vector<Value> out;
  for (const Value& x : tensorsIn(c, args)) out.push_back(atLeast(c, x, rank));
  return one ? out[0] : makeTuple(std::move(out));
}

// hstack (1-d tensors joined along dim 0, others along 1), vstack and
// row_stack (at least 2-d, along 0), dstack (at least 3-d, along 2),
// column_stack (0-d and 1-d tensors as columns, along 1).
Value bStacks(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  c.checkKeywordsUsed(c.name.c_str());
  if (args.empty() || !(args[0].is(Kind::List) || args[0].is(Kind::Tuple)))
    fail(c.loc, c.name + "() expects a list or tuple of tensors", ErrorClass::TypeError);
  std::vector<Value> parts = tensorsIn(c, args);
  if (parts.empty()) fail(c.loc, c.name + "() expects a non-empty list of tensors", ErrorClass::ValueError);
  const std::string& n = c.name;
  int rank = n == "hstack" ? 1 : n == "dstack" ? 3 : n == "column_stack" ? 0 : 2;
  for (Value& p : parts) {
    const Tensor& t = tensorOf(p);
    if (rank > 0)
      p = atLeast(c, p, rank);
    else if (t.ndim() <= 1)
      p = reshaped(c, p, {t.numel(), 1});
  }
  int64_t axis = n == "dstack"         ? 2
                 : n == "column_stack" ? 1
                 : n == "hstack"       ? (tensorOf(parts[0]).ndim() == 1 ? 0 : 1)
                                       : 0;
  return concat(c, std::move(parts), axis);
}

// tile(x, dims): x repeated dims[i] times along each dim; dims shorter than
// x's rank are padded with leading 1s, and x with leading dims of 1 for
// longer ones.
Value bTile(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), dimsArg = argument(c, args, 1, "dims", nullptr);
  c.checkKeywordsUsed("tile");
  const Tensor& t = tensorArg(c, x, "input");
  std::vector<int64_t> dims;
  std::vector<Value> items =
      dimsArg.is(Kind::List) || dimsArg.is(Kind::Tuple) ? dimsArg.as<SeqObj>().items : std::vector<Value>{dimsArg};
  for (const Value& d : items) {
    if (!d.isIntLike()) fail(c.loc, "tile(): dims must be a tuple of ints", ErrorClass::TypeError);
    dims.push_back(d.asInt());
  }
  size_t rank = std::max(dims.size(), static_cast<size_t>(t.ndim()));
  dims.insert(dims.begin(), rank - dims.size(), 1);
  if (rank > static_cast<size_t>(t.ndim())) {
    std::vector<int64_t> shape(rank - static_cast<size_t>(t.ndim()), 1);
    for (int64_t d : t.shape()) shape.push_back(d);
    x = reshaped(c, x, shape);
  }
  return applyOp(c, ir::Op::Repeat, {x, intsTuple(dims)});
}

Value flipped(CallContext& c, const Value& x, std::vector<int64_t> dims) {
  return applyOp(c, ir::Op::Flip, {x, intsTuple(dims)});
}

// fliplr: dim 1 reversed (at least 2-d); flipud: dim 0 (at least 1-d).
Value bFlipSide(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value x = argument(c, args, 0, "input", nullptr);
  c.checkKeywordsUsed(c.name.c_str());
  bool lr = c.name == "fliplr";
  const Tensor& t = tensorArg(c, x, "input");
  if (t.ndim() < (lr ? 2 : 1))
    fail(c.loc, c.name + "(): expects a tensor of at least " + (lr ? "2" : "1") + " dims, not " + typeString(t),
         ErrorClass::ValueError);
  return flipped(c, x, {lr ? 1 : 0});
}

// rot90(x, k=1, dims=(0, 1)): x turned k quarter turns from dims[0]
// towards dims[1].
Value bRot90(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value one = Value::integer(1), firstTwo = intsTuple({0, 1});
  Value x = argument(c, args, 0, "input", nullptr), kArg = argument(c, args, 1, "k", &one),
        dimsArg = argument(c, args, 2, "dims", &firstTwo);
  c.checkKeywordsUsed("rot90");
  const Tensor& t = tensorArg(c, x, "input");
  if (!kArg.isIntLike())
    fail(c.loc, std::string("rot90(): k must be an int, not ") + typeName(kArg), ErrorClass::TypeError);
  if (!(dimsArg.is(Kind::List) || dimsArg.is(Kind::Tuple)) || dimsArg.as<SeqObj>().items.size() != 2)
    fail(c.loc, "rot90(): dims must be a pair of dims", ErrorClass::ValueError);
  if (t.ndim() < 2)
    fail(c.loc, "rot90(): expects a tensor of at least 2 dims, not " + typeString(t), ErrorClass::ValueError);
  int64_t d0 = dimArg(c, dimsArg.as<SeqObj>().items[0], t.ndim(), "dims[0]");
  int64_t d1 = dimArg(c, dimsArg.as<SeqObj>().items[1], t.ndim(), "dims[1]");
  if (d0 == d1) fail(c.loc, "rot90(): the two dims must differ", ErrorClass::ValueError);
  int64_t k = ((kArg.asInt() % 4) + 4) % 4;
  auto swapped = [&](const Value& v) { return applyOp(c, ir::Op::Transpose, {v, intsTuple({d0, d1})}); };
  if (k == 1) return swapped(flipped(c, x, {d1}));
  if (k == 2) return flipped(c, x, {d0, d1});
  if (k == 3) return flipped(c, swapped(x), {d1});
  return applyOp(c, ir::Op::Pos, {x});
}

// repeat_interleave(x, repeats, dim=None): each element (each slice along
// dim; with no dim, of x flattened) repeated repeats times (an int, or a
// 1-d tensor of one count per element); repeat_interleave(counts) alone:
// each index i repeated counts[i] times.
Value bRepeatInterleave(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value none = Value::none();
  Value x = argument(c, args, 0, "input", nullptr), repeats = argument(c, args, 1, "repeats", &none),
        dimV = argument(c, args, 2, "dim", &none);
  const Value* outputSize = c.kw("output_size");  // a size hint PyTorch may use; checked, not needed
  c.checkKeywordsUsed("repeat_interleave");
  const Tensor& t = tensorArg(c, x, "input");
  if (repeats.is(Kind::None)) {  // repeat_interleave(counts)
    if (t.ndim() != 1 || isFloating(t.dtype()) || t.dtype() == DType::Bool)
      fail(c.loc, "repeat_interleave(): the counts must be a 1-d integer tensor, not " + typeString(t),
           ErrorClass::ValueError);
    repeats = x;
    x = applyOp(
        c, ir::Op::Arange,
        {Value::integer(t.numel()), Value::none(), Value::none(), Value::none(), Value::str(t.device().name())});
  }
  Tensor source = tensorOf(x);  // a handle: x is reassigned below
  int64_t dim = 0;
  if (dimV.is(Kind::None))
    x = reshaped(c, x, {source.numel()});
  else
    dim = dimArg(c, dimV, source.ndim(), "dim");
  int64_t n = tensorOf(x).dim(static_cast<int>(dim));
  std::vector<int64_t> counts;
  if (repeats.isIntLike()) {
    counts.assign(static_cast<size_t>(n), repeats.asInt());
  } else if (repeats.is(Kind::Tensor) && !isFloating(tensorOf(repeats).dtype()) && tensorOf(repeats).ndim() <= 1) {
    Tensor r = astype(readableOnHost(tensorOf(repeats), c.loc), DType::I64).contiguous();
    if (r.numel() != n && r.numel() != 1)
      fail(c.loc,
           "repeat_interleave(): repeats must have one count per element along dim (" + std::to_string(n) + "), not " +
               std::to_string(r.numel()),
           ErrorClass::ValueError);
    for (int64_t i = 0; i < n; ++i) counts.push_back(r.data<int64_t>()[r.numel() == 1 ? 0 : i]);
  } else {
    fail(c.loc,
         std::string("repeat_interleave(): repeats must be an int or a 1-d integer tensor, not ") +
             (repeats.is(Kind::Tensor) ? typeString(tensorOf(repeats)) : typeName(repeats)),
         ErrorClass::TypeError);
  }
  std::vector<int64_t> index;
  for (int64_t i = 0; i < n; ++i) {
    if (counts[static_cast<size_t>(i)] < 0)
      fail(c.loc, "repeat_interleave(): repeats must be non-negative", ErrorClass::ValueError);
    index.insert(index.end(), static_cast<size_t>(counts[static_cast<size_t>(i)]), i);
  }
  if (outputSize && !(outputSize->isIntLike() && outputSize->asInt() == static_cast<int64_t>(index.size())))
    fail(c.loc, "repeat_interleave(): output_size does not match the repeats' total " + std::to_string(index.size()),
         ErrorClass::ValueError);
  return indexAlong(c, x, dim, i64Tensor(c, index, {static_cast<int64_t>(index.size())}, source.device()));
}

// take_along_dim(x, indices, dim=None): gather along dim with x and the
// indices broadcast against each other on the other dims; with no dim,
// of both flattened.
Value bTakeAlongDim(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value none = Value::none();
  Value x = argument(c, args, 0, "input", nullptr), indices = argument(c, args, 1, "indices", nullptr),
        dimV = argument(c, args, 2, "dim", &none);
  c.checkKeywordsUsed("take_along_dim");
  const Tensor &t = tensorArg(c, x, "input"), &i = tensorArg(c, indices, "indices");
  if (dimV.is(Kind::None))
    return applyOp(c, ir::Op::Gather,
                   {reshaped(c, x, {t.numel()}), Value::integer(0), reshaped(c, indices, {i.numel()})});
  if (t.ndim() != i.ndim())
    fail(c.loc,
         "take_along_dim(): input " + typeString(t) + " and indices " + typeString(i) +
             " must have the same number of dims",
         ErrorClass::ValueError);
  int64_t dim = dimArg(c, dimV, t.ndim(), "dim");
  Shape xs = t.shape(), is = i.shape();
  xs[static_cast<size_t>(dim)] = 1;
  is[static_cast<size_t>(dim)] = 1;
  Shape common = broadcastShapes(
      xs, is, c.loc,
      "take_along_dim(): input " + typeString(t) + " and indices " + typeString(i) + " do not broadcast together");
  auto grown = [&](const Value& v, int64_t along) {
    Shape s = common;
    s[static_cast<size_t>(dim)] = along;
    return s == tensorOf(v).shape()
               ? v
               : applyOp(c, ir::Op::BroadcastTo, {v, intsTuple(std::vector<int64_t>(s.begin(), s.end()))});
  };
  return applyOp(
      c, ir::Op::Gather,
      {grown(x, t.dim(static_cast<int>(dim))), Value::integer(dim), grown(indices, i.dim(static_cast<int>(dim)))});
}

// broadcast_tensors(*tensors): each broadcast to their common shape.
Value bBroadcastTensors(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("broadcast_tensors");
  std::vector<Value> items = tensorsIn(c, args);
  Shape common;
  for (const Value& v : items)
    common = broadcastShapes(
        common, tensorOf(v).shape(), c.loc,
        "broadcast_tensors(): " + typeString(tensorOf(v)) + " does not broadcast to " + shapeString(common));
  std::vector<Value> out;
  for (const Value& v : items)
    out.push_back(
        tensorOf(v).shape() == common
            ? v
            : applyOp(c, ir::Op::BroadcastTo, {v, intsTuple(std::vector<int64_t>(common.begin(), common.end()))}));
  return makeTuple(std::move(out));
}

// block_diag(*tensors): the tensors (0-d as [1, 1], 1-d as a row) along
// the diagonal of a 2-d tensor of zeros, in the dtype they promote to.
Value bBlockDiag(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("block_diag");
  std::vector<Value> blocks = tensorsIn(c, args);
  int64_t width = 0;
  for (Value& b : blocks) {
    const Tensor& t = tensorOf(b);
    if (t.ndim() > 2)
      fail(c.loc, "block_diag(): expects tensors of at most 2 dims, not " + typeString(t), ErrorClass::ValueError);
    if (t.ndim() < 2) b = reshaped(c, b, {1, t.numel()});
    width += tensorOf(b).dim(1);
  }
  if (blocks.empty()) return i64Tensor(c, {}, {1, 0}, c.interp.context().cpu());
  DType common = tensorOf(blocks[0]).dtype();
  for (const Value& b : blocks) common = ir::promote(common, tensorOf(b).dtype());
  std::vector<Value> rows;
  int64_t left = 0;
  for (const Value& b : blocks) {
    int64_t w = tensorOf(b).dim(1);
    Value typed = applyOp(c, ir::Op::AsType, {b, Value::dtype(static_cast<int>(common))});
    rows.push_back(applyOp(c, ir::Op::Pad, {typed, intsTuple({left, width - left - w}), Value::str("constant"), Value::real(0.0)}));
    left += w;
  }
  return concat(c, std::move(rows), 0);
}

// cartesian_prod(*tensors): the rows of every combination of the 1-d
// tensors' elements, the last varying fastest (one tensor: itself).
Value bCartesianProd(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("cartesian_prod");
  std::vector<Value> items = tensorsIn(c, args);
  for (const Value& v : items)
    if (tensorOf(v).ndim() != 1)
      fail(c.loc, "cartesian_prod(): expects 1-d tensors, not " + typeString(tensorOf(v)), ErrorClass::ValueError);
  if (items.empty()) fail(c.loc, "cartesian_prod() expects at least one tensor", ErrorClass::TypeError);
  if (items.size() == 1) return items[0];
  std::vector<int64_t> grid;
  for (const Value& v : items) grid.push_back(tensorOf(v).numel());
  int64_t total = std::accumulate(grid.begin(), grid.end(), int64_t{1}, std::multiplies<>());
  DType common = tensorOf(items[0]).dtype();
  for (const Value& v : items) common = ir::promote(common, tensorOf(v).dtype());
  std::vector<Value> columns;
  for (size_t i = 0; i < items.size(); ++i) {
    std::vector<int64_t> layout(items.size(), 1);
    layout[i] = grid[i];
    Value typed = applyOp(c, ir::Op::AsType, {items[i], Value::dtype(static_cast<int>(common))});
    Value spread = applyOp(c, ir::Op::BroadcastTo, {reshaped(c, typed, layout), intsTuple(grid)});
    columns.push_back(reshaped(c, spread, {total}));
  }
  return applyOp(c, ir::Op::Stack, {makeList(std::move(columns)), Value::integer(1)});
}

// combinations(input, r=2, with_replacement=False): the rows of the 1-d
// input's r-element combinations (with repeats, with_replacement), in
// lexicographic order of their positions, as itertools' (r = 0: an empty
// 1-d tensor, as PyTorch's); input indexed at them, so they differentiate.
Value bCombinations(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value two = Value::integer(2), no = Value::boolean(false);
  Value x = argument(c, args, 0, "input", nullptr), rV = argument(c, args, 1, "r", &two),
        repeats = argument(c, args, 2, "with_replacement", &no);
  c.checkKeywordsUsed("combinations");
  const Tensor& t = tensorArg(c, x, "input");
  if (t.ndim() != 1) fail(c.loc, "combinations(): expects a 1-d tensor, not " + typeString(t), ErrorClass::ValueError);
  if (!rV.isIntLike() || rV.asInt() < 0)
    fail(c.loc, "combinations(): r must be a non-negative int, not " + repr(rV), ErrorClass::ValueError);
  if (!repeats.is(Kind::Bool))
    fail(c.loc, std::string("combinations(): with_replacement must be a bool, not ") + typeName(repeats),
         ErrorClass::TypeError);
  int64_t n = t.numel(), r = rV.asInt();
  if (r == 0) return indexAlong(c, x, 0, makeSlice(Value::integer(0), Value::integer(0), Value::none()));
  std::vector<int64_t> rows, pick(static_cast<size_t>(r));
  int64_t count = 0;
  // The next combination after `pick` in lexicographic order; false after
  // the last.
  bool replace = repeats.asBool();
  if (replace ? n > 0 : r <= n) {
    for (int64_t i = 0; i < r; ++i) pick[static_cast<size_t>(i)] = replace ? 0 : i;
    while (true) {
      rows.insert(rows.end(), pick.begin(), pick.end());
      ++count;
      int64_t i = r - 1;
      while (i >= 0 && pick[static_cast<size_t>(i)] == (replace ? n - 1 : n - r + i)) --i;
      if (i < 0) break;
      ++pick[static_cast<size_t>(i)];
      for (int64_t j = i + 1; j < r; ++j)
        pick[static_cast<size_t>(j)] = replace ? pick[static_cast<size_t>(i)] : pick[static_cast<size_t>(j - 1)] + 1;
    }
  }
  Value index = i64Tensor(c, rows, {count * r}, t.device());
  return reshaped(c, indexAlong(c, x, 0, index), {count, r});
}

// vander(x, N=None, increasing=False): the powers x^0 .. x^(N-1) of the
// 1-d x (N its length by default) as columns, the highest first unless
// increasing, as PyTorch's: by running products, so integers stay exact.
Value bVander(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value none = Value::none(), no = Value::boolean(false);
  Value x = argument(c, args, 0, "x", nullptr), count = argument(c, args, 1, "N", &none),
        increasing = argument(c, args, 2, "increasing", &no);
  c.checkKeywordsUsed("vander");
  const Tensor& t = tensorArg(c, x, "x");
  if (t.ndim() != 1) fail(c.loc, "vander(): x must be 1-d, not " + typeString(t), ErrorClass::ValueError);
  int64_t n = t.numel(), columns = n;
  if (!count.is(Kind::None)) {
    if (!count.isIntLike())
      fail(c.loc, std::string("vander(): N must be an int, not ") + typeName(count), ErrorClass::TypeError);
    columns = count.asInt();
    if (columns < 0) fail(c.loc, "vander(): N must be non-negative", ErrorClass::ValueError);
  }
  if (!increasing.is(Kind::Bool))
    fail(c.loc, std::string("vander(): increasing must be a bool, not ") + typeName(increasing), ErrorClass::TypeError);
  // PyTorch's: integers and bools in i64, floats as they are.
  DType type = isFloating(t.dtype()) ? t.dtype() : DType::I64;
  Value typed = t.dtype() == type ? x : applyOp(c, ir::Op::AsType, {x, Value::dtype(static_cast<int>(type))});
  if (columns == 0)
    return applyOp(c, ir::Op::Zeros,
                   {intsTuple({n, 0}), Value::dtype(static_cast<int>(type)), Value::str(t.device().name())});
  Value ones = applyOp(c, ir::Op::OnesLike, {reshaped(c, typed, {n, 1}), Value::none()});
  Value powers = ones;
  if (columns > 1) {
    Value repeated = applyOp(c, ir::Op::BroadcastTo, {reshaped(c, typed, {n, 1}), intsTuple({n, columns - 1})});
    Value running = applyOp(c, ir::Op::CumProd, {repeated, Value::integer(1), Value::boolean(false)});
    powers = concat(c, {ones, running}, 1);
  }
  return increasing.asBool() ? powers : applyOp(c, ir::Op::Flip, {powers, intsTuple({1})});
}

// The split points of tensor_split: `sections` parts (the first n %
// sections one longer) or the given indices.
std::vector<int64_t> splitPoints(CallContext& c, const Value& how, int64_t n) {
  std::vector<int64_t> points;
  if (how.isIntLike()) {
    int64_t s = how.asInt();
    if (s <= 0)
      fail(c.loc, c.name + "(): the number of sections must be positive, not " + std::to_string(s),
           ErrorClass::ValueError);
    int64_t at = 0;
    for (int64_t k = 0; k + 1 < s; ++k) points.push_back(at += n / s + (k < n % s ? 1 : 0));
    return points;
  }
  std::vector<Value> items;
  if (how.is(Kind::List) || how.is(Kind::Tuple))
    items = how.as<SeqObj>().items;
  else if (how.is(Kind::Tensor) && !isFloating(tensorOf(how).dtype()) && tensorOf(how).ndim() <= 1)
    return [&] {
      Tensor t = astype(readableOnHost(tensorOf(how), c.loc), DType::I64).contiguous();
      if (t.ndim() == 0) return splitPoints(c, Value::integer(t.data<int64_t>()[0]), n);
      return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.numel());
    }();
  else
    fail(c.loc, c.name + "(): expects an int, a sequence of ints or an integer tensor of split points",
         ErrorClass::TypeError);
  for (const Value& v : items) {
    if (!v.isIntLike()) fail(c.loc, c.name + "(): the split points must be ints", ErrorClass::TypeError);
    points.push_back(v.asInt());
  }
  return points;
}

// tensor_split(x, indices_or_sections, dim=0): views of x along dim
// between the split points (clamped to the size, as slices are).
Value splitAt(CallContext& c, const Value& x, const Value& how, int64_t dim) {
  int64_t n = tensorOf(x).dim(static_cast<int>(dim));
  std::vector<int64_t> points = splitPoints(c, how, n);
  std::vector<Value> parts;
  Value start = Value::integer(0);
  for (int64_t p : points) {
    parts.push_back(indexAlong(c, x, dim, makeSlice(start, Value::integer(p), Value::none())));
    start = Value::integer(p);
  }
  parts.push_back(indexAlong(c, x, dim, makeSlice(start, Value::none(), Value::none())));
  return makeTuple(std::move(parts));
}

Value bTensorSplit(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value zero = Value::integer(0);
  Value x = argument(c, args, 0, "input", nullptr), how = argument(c, args, 1, "indices_or_sections", nullptr),
        dimV = argument(c, args, 2, "dim", &zero);
  c.checkKeywordsUsed("tensor_split");
  const Tensor& t = tensorArg(c, x, "input");
  if (t.ndim() == 0) fail(c.loc, "tensor_split(): expects a tensor with at least 1 dim", ErrorClass::ValueError);
  return splitAt(c, x, how, dimArg(c, dimV, t.ndim(), "dim"));
}

// hsplit (dim 1, or 0 of a 1-d tensor), vsplit (0), dsplit (2): a number
// of equal sections, or split points.
Value bSideSplit(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), how = argument(c, args, 1, "indices_or_sections", nullptr);
  c.checkKeywordsUsed(c.name.c_str());
  const Tensor& t = tensorArg(c, x, "input");
  int needed = c.name == "hsplit" ? 1 : c.name == "vsplit" ? 2 : 3;
  if (t.ndim() < needed)
    fail(c.loc, c.name + "(): expects a tensor of at least " + std::to_string(needed) + " dims, not " + typeString(t),
         ErrorClass::ValueError);
  int64_t dim = c.name == "hsplit" ? (t.ndim() == 1 ? 0 : 1) : c.name == "vsplit" ? 0 : 2;
  int64_t n = t.dim(static_cast<int>(dim));
  if (how.isIntLike() && (how.asInt() <= 0 || n % how.asInt() != 0))
    fail(c.loc,
         c.name + "(): dim " + std::to_string(dim) + " of size " + std::to_string(n) + " does not split into " +
             std::to_string(how.asInt()) + " equal sections",
         ErrorClass::ValueError);
  return splitAt(c, x, how, dim);
}

// unflatten(x, dim, sizes): dim split into dims of the given sizes (one
// may be -1).
Value bUnflatten(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dim", nullptr),
        sizes = argument(c, args, 2, "sizes", nullptr);
  c.checkKeywordsUsed("unflatten");
  const Tensor& t = tensorArg(c, x, "input");
  if (t.ndim() == 0) fail(c.loc, "unflatten(): expects a tensor with at least 1 dim", ErrorClass::ValueError);
  int64_t dim = dimArg(c, dimV, t.ndim(), "dim");
  if (!(sizes.is(Kind::List) || sizes.is(Kind::Tuple)) || sizes.as<SeqObj>().items.empty())
    fail(c.loc, "unflatten(): sizes must be a non-empty tuple of ints", ErrorClass::TypeError);
  std::vector<int64_t> split;
  int64_t known = 1, unknown = -1;
  for (const Value& v : sizes.as<SeqObj>().items) {
    if (!v.isIntLike()) fail(c.loc, "unflatten(): sizes must be ints", ErrorClass::TypeError);
    if (v.asInt() == -1 && unknown < 0)
      unknown = static_cast<int64_t>(split.size());
    else
      known *= v.asInt();
    split.push_back(v.asInt());
  }
  int64_t n = t.dim(static_cast<int>(dim));
  if (unknown >= 0 && known > 0 && n % known == 0) split[static_cast<size_t>(unknown)] = n / known;
  int64_t product = std::accumulate(split.begin(), split.end(), int64_t{1}, std::multiplies<>());
  if (product != n)
    fail(c.loc,
         "unflatten(): sizes " + repr(sizes) + " do not multiply to dim " + std::to_string(dim) + "'s size " +
             std::to_string(n),
         ErrorClass::ValueError);
  std::vector<int64_t> shape(t.shape().begin(), t.shape().begin() + dim);
  shape.insert(shape.end(), split.begin(), split.end());
  shape.insert(shape.end(), t.shape().begin() + dim + 1, t.shape().end());
  return reshaped(c, x, shape);
}

// x.unfold(dimension, size, step): the windows of `size` elements along
// dimension, `step` apart, as a dim of their own in its place, each
// window's elements along a new last dim (PyTorch's view, here a copy
// made by one index along the dim, which the tape differentiates).
Value bUnfoldWindows(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dimension", nullptr),
        sizeV = argument(c, args, 2, "size", nullptr), stepV = argument(c, args, 3, "step", nullptr);
  c.checkKeywordsUsed("unfold");
  const Tensor& t = tensorArg(c, x, "input");
  for (const Value* v : {&sizeV, &stepV})
    if (!v->isIntLike()) fail(c.loc, "unfold(): size and step must be ints", ErrorClass::TypeError);
  int64_t size = sizeV.asInt(), step = stepV.asInt();
  if (step <= 0) fail(c.loc, "unfold(): step is " + std::to_string(step) + " but must be > 0", ErrorClass::ValueError);
  if (size < 0) fail(c.loc, "unfold(): size is " + std::to_string(size) + " but must be >= 0", ErrorClass::ValueError);
  bool scalar = t.ndim() == 0;
  int64_t dim = scalar ? dimArg(c, dimV, 1, "dimension") : dimArg(c, dimV, t.ndim(), "dimension");
  int64_t n = scalar ? 1 : t.dim(static_cast<int>(dim));
  if (size > n)
    fail(c.loc,
         "unfold(): maximum size for tensor at dimension " + std::to_string(dim) + " is " + std::to_string(n) +
             " but size is " + std::to_string(size),
         ErrorClass::ValueError);
  if (scalar) return reshaped(c, x, {size});  // a 0-d tensor's one window
  int64_t windows = (n - size) / step + 1;
  std::vector<int64_t> index;
  for (int64_t w = 0; w < windows; ++w)
    for (int64_t k = 0; k < size; ++k) index.push_back(w * step + k);
  Value taken =
      indexAlong(c, x, dim, i64Tensor(c, index, {static_cast<int64_t>(index.size())}, t.device()));
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  shape[static_cast<size_t>(dim)] = windows;
  shape.insert(shape.begin() + dim + 1, size);
  std::vector<int64_t> order;
  for (int64_t d = 0; d <= t.ndim(); ++d)
    if (d != dim + 1) order.push_back(d);
  order.push_back(dim + 1);
  return applyOp(c, ir::Op::Permute, {reshaped(c, taken, shape), intsTuple(order)});
}

// tril_indices(row, col, offset=0) and triu_indices: the [2, N] i64
// coordinates of the lower (upper) triangle of a row x col matrix from
// the offset-th diagonal, in row-major order.
Value bTriangleIndices(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value zero = Value::integer(0);
  Value rowV = argument(c, args, 0, "row", nullptr), colV = argument(c, args, 1, "col", nullptr),
        offsetV = argument(c, args, 2, "offset", &zero);
  const Value* device = c.kw("device");
  const Value* dtype = c.kw("dtype");
  c.checkKeywordsUsed(c.name.c_str());
  for (const Value* v : {&rowV, &colV, &offsetV})
    if (!v->isIntLike()) fail(c.loc, c.name + "(): row, col and offset must be ints", ErrorClass::TypeError);
  int64_t rows = rowV.asInt(), cols = colV.asInt(), offset = offsetV.asInt();
  if (rows < 0 || cols < 0) fail(c.loc, c.name + "(): row and col must be non-negative", ErrorClass::ValueError);
  bool lower = c.name == "tril_indices";
  std::vector<int64_t> r, k;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (lower ? j - i <= offset : j - i >= offset) {
        r.push_back(i);
        k.push_back(j);
      }
  r.insert(r.end(), k.begin(), k.end());
  if (device && !device->is(Kind::None) && !device->is(Kind::Str))
    fail(c.loc, c.name + "(): device must be a str, not " + typeName(*device), ErrorClass::TypeError);
  Device& on =
      device && device->is(Kind::Str) ? deviceNamed(c.interp, device->asStr(), c.loc) : c.interp.context().cpu();
  Value out = i64Tensor(c, r, {2, static_cast<int64_t>(k.size())}, on);
  if (dtype && !dtype->is(Kind::None)) out = applyOp(c, ir::Op::AsType, {out, *dtype});
  return out;
}

// narrow, select, index_select and unbind as functions: their methods'
// (pytorch_methods.cpp) on the first argument.
Value bMethodAsFunction(CallContext& c, std::vector<Value>& args) {
  if (args.empty()) fail(c.loc, c.name + "() missing required argument 'input'", ErrorClass::TypeError);
  tensorArg(c, args[0], "input");
  return pytorchTensorMethod(c.name)(c, args);
}

}  // namespace

BuiltinFn tensorArrangeMethod(const std::string& name) {
  if (name == "tile") return bTile;
  if (name == "fliplr" || name == "flipud") return bFlipSide;
  if (name == "rot90") return bRot90;
  if (name == "repeat_interleave") return bRepeatInterleave;
  if (name == "take_along_dim") return bTakeAlongDim;
  if (name == "tensor_split") return bTensorSplit;
  if (name == "hsplit" || name == "vsplit" || name == "dsplit") return bSideSplit;
  if (name == "unflatten") return bUnflatten;
  if (name == "unfold") return bUnfoldWindows;
  return nullptr;
}

void addTensorArrangements(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::Tile, Builtin::Fliplr, Builtin::Flipud, Builtin::Rot90, Builtin::RepeatInterleave,
                    Builtin::TakeAlongDim, Builtin::TensorSplit, Builtin::Hsplit, Builtin::Vsplit, Builtin::Dsplit,
                    Builtin::Unflatten})
    table[ir::builtinInfo(b).name] = tensorArrangeMethod(ir::builtinInfo(b).name);
  for (Builtin b : {Builtin::Atleast1d, Builtin::Atleast2d, Builtin::Atleast3d})
    table[ir::builtinInfo(b).name] = bAtLeast;
  for (Builtin b : {Builtin::Hstack, Builtin::Vstack, Builtin::RowStack, Builtin::Dstack, Builtin::ColumnStack})
    table[ir::builtinInfo(b).name] = bStacks;
  table[ir::builtinInfo(Builtin::BroadcastTensors).name] = bBroadcastTensors;
  table[ir::builtinInfo(Builtin::BlockDiag).name] = bBlockDiag;
  table[ir::builtinInfo(Builtin::CartesianProd).name] = bCartesianProd;
  table[ir::builtinInfo(Builtin::Vander).name] = bVander;
  table[ir::builtinInfo(Builtin::Combinations).name] = bCombinations;
  table[ir::builtinInfo(Builtin::TrilIndices).name] = bTriangleIndices;
  table[ir::builtinInfo(Builtin::TriuIndices).name] = bTriangleIndices;
  for (Builtin b : {Builtin::Narrow, Builtin::Select, Builtin::IndexSelect, Builtin::Unbind})
    table[ir::builtinInfo(b).name] = bMethodAsFunction;
}

}  // namespace nn::stdlib
