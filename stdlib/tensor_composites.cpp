// PyTorch's tensor functions that are compositions of nn's ops: lerp,
// nan_to_num, count_nonzero, meshgrid, diff, movedim (moveaxis), cross,
// kron, cdist and renorm,
// with PyTorch's arguments, defaults and checks. Each runs the ops it is
// made of where a tape sees them, so it differentiates as they do, in
// every mode (graph mode runs the call as it is). The ones PyTorch also
// has as tensor methods are methods too (x.lerp(end, w), x.diff(), ...).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/builtins.h"
#include "runtime/scalar_ops.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

int64_t dimOf(CallContext& c, const Value& v, int64_t ndim) {
  if (!v.isIntLike()) fail(c.loc, c.name + "(): dim must be an int, not " + typeName(v), ErrorClass::TypeError);
  return normalizeAxis(v.asInt(), static_cast<int>(ndim), c.loc, c.name.c_str());
}

// lerp(input, end, weight): input + weight * (end - input) where |weight|
// < 0.5, else end - (end - input) * (1 - weight) (PyTorch's two forms,
// each exact at its end), broadcast; weight a number or a tensor.
Value bLerp(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value start = argument(c, args, 0, "input", nullptr), end = argument(c, args, 1, "end", nullptr);
  Value weight = argument(c, args, 2, "weight", nullptr);
  c.checkKeywordsUsed("lerp");
  if (!isFloating(tensorArg(c, start, "input").dtype()))
    fail(c.loc, "lerp(): input must be a float tensor, not " + typeString(tensorOf(start)), ErrorClass::TypeError);
  if (!weight.isNumber() && !weight.is(Kind::Tensor))
    fail(c.loc, std::string("lerp(): weight must be a number or a Tensor, not ") + typeName(weight),
         ErrorClass::TypeError);
  Value span = binary(c, ir::Op::Sub, end, start);
  auto nearStart = [&] { return binary(c, ir::Op::Add, start, binary(c, ir::Op::Mul, weight, span)); };
  auto nearEnd = [&] {
    return binary(c, ir::Op::Sub, end, binary(c, ir::Op::Mul, span, binary(c, ir::Op::Sub, Value::real(1.0), weight)));
  };
  if (weight.isNumber()) return std::abs(weight.asFloat()) < 0.5 ? nearStart() : nearEnd();
  Value small = binary(c, ir::Op::Lt, applyOp(c, ir::Op::Abs, {weight}), Value::real(0.5));
  return where(c, small, nearStart(), nearEnd());
}

// nan_to_num(x, nan=0.0, posinf=None, neginf=None): a float x's NaNs,
// infinities and minus infinities replaced (by default with 0 and the
// dtype's largest and lowest finite values); any other x as it is.
Value bNanToNum(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value x = argument(c, args, 0, "input", nullptr);
  Value zero = Value::real(0.0), none = Value::none();
  Value nan = argument(c, args, 1, "nan", &zero), posinf = argument(c, args, 2, "posinf", &none),
        neginf = argument(c, args, 3, "neginf", &none);
  c.checkKeywordsUsed("nan_to_num");
  const Tensor& t = tensorArg(c, x, "input");
  for (const Value* v : {&nan, &posinf, &neginf})
    if (!v->isNumber() && !v->is(Kind::None))
      fail(c.loc, std::string("nan_to_num(): the replacements must be numbers, not ") + typeName(*v),
           ErrorClass::TypeError);
  if (!isFloating(t.dtype())) return x;
  bool f32 = t.dtype() == DType::F32;
  double largest = f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  if (posinf.is(Kind::None)) posinf = Value::real(largest);
  if (neginf.is(Kind::None)) neginf = Value::real(-largest);
  double inf = std::numeric_limits<double>::infinity();
  Value out = where(c, applyOp(c, ir::Op::IsNan, {x}), nan, x);
  out = where(c, binary(c, ir::Op::Eq, x, Value::real(inf)), posinf, out);
  return where(c, binary(c, ir::Op::Eq, x, Value::real(-inf)), neginf, out);
}

// count_nonzero(x, dim=None): how many elements are not zero, over dim (an
// int or a tuple of them) or all, as i64.
Value bCountNonzero(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr);
  Value none = Value::none();
  Value dim = argument(c, args, 1, "dim", &none);
  c.checkKeywordsUsed("count_nonzero");
  tensorArg(c, x, "input");
  Value nonzero = binary(c, ir::Op::Ne, x, Value::integer(0));
  if (dim.isIntLike()) dim = makeTuple({dim});
  Value counts = applyOp(c, ir::Op::Sum, {nonzero, dim, Value::boolean(false)});
  return applyOp(c, ir::Op::AsType, {counts, Value::dtype(static_cast<int>(DType::I64))});
}

// meshgrid(*tensors, indexing="ij"): for 0-d or 1-d tensors of lengths
// n0, n1, ..., each broadcast over the grid of shape (n0, n1, ...) along
// its own dim ("xy": the first two dims swapped, as NumPy's).
Value bMeshgrid(CallContext& c, std::vector<Value>& args) {
  std::vector<Value> tensors = args;
  if (tensors.size() == 1 && (tensors[0].is(Kind::List) || tensors[0].is(Kind::Tuple)))
    tensors = tensors[0].as<SeqObj>().items;  // meshgrid([a, b])
  const Value* indexingArg = c.kw("indexing");
  c.checkKeywordsUsed("meshgrid");
  std::string indexing = "ij";
  if (indexingArg) {
    if (!indexingArg->is(Kind::Str) || (indexingArg->asStr() != "ij" && indexingArg->asStr() != "xy"))
      fail(c.loc, "meshgrid(): indexing must be 'ij' or 'xy'", ErrorClass::ValueError);
    indexing = indexingArg->asStr();
  }
  if (tensors.empty()) fail(c.loc, "meshgrid() expects at least one tensor", ErrorClass::TypeError);
  std::vector<int64_t> lengths;
  for (const Value& v : tensors) {
    const Tensor& t = tensorArg(c, v, "each argument");
    if (t.ndim() > 1)
      fail(c.loc, "meshgrid(): expects 0-d or 1-d tensors, not " + typeString(t), ErrorClass::ValueError);
    lengths.push_back(t.numel());
  }
  // Tensor i's dim of the grid.
  auto position = [&](size_t i) -> size_t { return indexing == "xy" && tensors.size() >= 2 && i < 2 ? 1 - i : i; };
  std::vector<int64_t> grid(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) grid[position(i)] = lengths[i];
  std::vector<Value> out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::vector<int64_t> layout(tensors.size(), 1);
    layout[position(i)] = lengths[i];
    Value shaped = applyOp(c, ir::Op::Reshape, {tensors[i], intsTuple(layout)});
    out.push_back(applyOp(c, ir::Op::BroadcastTo, {shaped, intsTuple(grid)}));
  }
  return makeTuple(std::move(out));
}

// diff(x, n=1, dim=-1, prepend=None, append=None): the differences of
// neighbours along dim (of bools, whether they differ), n times, after
// prepend and append are joined to x along dim.
Value bDiff(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 5);
  Value one = Value::integer(1), last = Value::integer(-1), none = Value::none();
  Value x = argument(c, args, 0, "input", nullptr), n = argument(c, args, 1, "n", &one);
  Value dimArg = argument(c, args, 2, "dim", &last), prepend = argument(c, args, 3, "prepend", &none),
        append = argument(c, args, 4, "append", &none);
  c.checkKeywordsUsed("diff");
  const Tensor& t = tensorArg(c, x, "input");
  if (t.ndim() == 0)
    fail(c.loc, "diff(): expects a tensor with at least one dimension, not " + typeString(t), ErrorClass::ValueError);
  if (!n.isIntLike() || n.asInt() < 0)
    fail(c.loc, "diff(): n must be an int of at least 0, not " + repr(n), ErrorClass::ValueError);
  int64_t dim = dimOf(c, dimArg, t.ndim());
  std::vector<Value> parts;
  for (const Value* p : {&prepend, &x, &append})
    if (!p->is(Kind::None)) parts.push_back(*p);
  if (parts.size() > 1) x = applyOp(c, ir::Op::Concat, {makeList(std::move(parts)), Value::integer(dim)});
  bool bools = tensorOf(x).dtype() == DType::Bool;
  for (int64_t k = 0; k < n.asInt() && tensorOf(x).dim(static_cast<int>(dim)) > 0; ++k) {
    Value later = indexAlong(c, x, dim, makeSlice(Value::integer(1), Value::none(), Value::none()));
    Value earlier = indexAlong(c, x, dim, makeSlice(Value::none(), Value::integer(-1), Value::none()));
    x = binary(c, bools ? ir::Op::Ne : ir::Op::Sub, later, earlier);
  }
  return x;
}

// The dims of a movedim argument: an int or a sequence of ints.
std::vector<int64_t> dimsOf(CallContext& c, const Value& v, int64_t ndim, const char* what) {
  std::vector<Value> items = v.is(Kind::List) || v.is(Kind::Tuple) ? v.as<SeqObj>().items : std::vector<Value>{v};
  std::vector<int64_t> dims;
  for (const Value& item : items) {
    if (!item.isIntLike())
      fail(c.loc, c.name + "(): " + what + " must be an int or a sequence of ints", ErrorClass::TypeError);
    int64_t d = normalizeAxis(item.asInt(), static_cast<int>(ndim), c.loc, c.name.c_str());
    if (std::find(dims.begin(), dims.end(), d) != dims.end())
      fail(c.loc, c.name + "(): repeated dim in " + what, ErrorClass::ValueError);
    dims.push_back(d);
  }
  return dims;
}

// movedim(x, source, destination): x's dims at source moved to the
// positions destination, the others keeping their order.
Value bMovedim(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value x = argument(c, args, 0, "input", nullptr), source = argument(c, args, 1, "source", nullptr),
        destination = argument(c, args, 2, "destination", nullptr);
  c.checkKeywordsUsed(c.name.c_str());
  int64_t ndim = tensorArg(c, x, "input").ndim();
  std::vector<int64_t> from = dimsOf(c, source, ndim, "source"), to = dimsOf(c, destination, ndim, "destination");
  if (from.size() != to.size())
    fail(c.loc,
         c.name + "(): source and destination have different numbers of dims (" + std::to_string(from.size()) +
             " and " + std::to_string(to.size()) + ")",
         ErrorClass::ValueError);
  std::vector<int64_t> perm(static_cast<size_t>(ndim), -1);
  for (size_t i = 0; i < from.size(); ++i) perm[static_cast<size_t>(to[i])] = from[i];
  int64_t next = 0;
  for (int64_t& p : perm) {
    if (p >= 0) continue;
    while (std::find(from.begin(), from.end(), next) != from.end()) ++next;
    p = next++;
  }
  return applyOp(c, ir::Op::Permute, {x, intsTuple(perm)});
}

// cross(a, b, dim=None): the cross products of 3-vectors along dim (by
// default the first dim of size 3, as PyTorch's), a and b broadcast.
Value bCross(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value none = Value::none();
  Value a = argument(c, args, 0, "input", nullptr), b = argument(c, args, 1, "other", nullptr),
        dimArg = argument(c, args, 2, "dim", &none);
  c.checkKeywordsUsed("cross");
  Shape shape = broadcastShapes(tensorArg(c, a, "input").shape(), tensorArg(c, b, "other").shape(), c.loc,
                                "cross(): " + typeString(tensorOf(a)) + " and " + typeString(tensorOf(b)) +
                                    " do not broadcast together");
  int64_t ndim = static_cast<int64_t>(shape.size());
  int64_t dim = -1;
  if (dimArg.is(Kind::None)) {
    for (int64_t d = 0; d < ndim && dim < 0; ++d)
      if (shape[static_cast<size_t>(d)] == 3) dim = d;
    if (dim < 0) fail(c.loc, "cross(): no dim of size 3 in " + shapeString(shape), ErrorClass::ValueError);
  } else {
    dim = dimOf(c, dimArg, ndim);
    if (shape[static_cast<size_t>(dim)] != 3)
      fail(c.loc,
           "cross(): dim " + std::to_string(dim) + " has size " + std::to_string(shape[static_cast<size_t>(dim)]) +
               ", not 3",
           ErrorClass::ValueError);
  }
  Value grid = intsTuple(shape);
  if (tensorOf(a).shape() != shape) a = applyOp(c, ir::Op::BroadcastTo, {a, grid});
  if (tensorOf(b).shape() != shape) b = applyOp(c, ir::Op::BroadcastTo, {b, grid});
  auto at = [&](const Value& v, int64_t i) { return indexAlong(c, v, dim, Value::integer(i)); };
  auto term = [&](int64_t i, int64_t j) {
    Value ab = binary(c, ir::Op::Mul, at(a, i), at(b, j)), ba = binary(c, ir::Op::Mul, at(a, j), at(b, i));
    return binary(c, ir::Op::Sub, ab, ba);
  };
  return applyOp(c, ir::Op::Stack, {makeList({term(1, 2), term(2, 0), term(0, 1)}), Value::integer(dim)});
}

// kron(a, b): the Kronecker product, for tensors of any ranks (the
// smaller padded with leading dims of 1): element i of a's blocks times
// all of b, as a reshaped to (a0, 1, a1, 1, ...) times b reshaped to
// (1, b0, 1, b1, ...), then merged pairwise.
Value bKron(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = argument(c, args, 0, "input", nullptr), b = argument(c, args, 1, "other", nullptr);
  c.checkKeywordsUsed("kron");
  Shape as = tensorArg(c, a, "input").shape(), bs = tensorArg(c, b, "other").shape();
  size_t rank = std::max(as.size(), bs.size());
  as.insert(as.begin(), rank - as.size(), 1);
  bs.insert(bs.begin(), rank - bs.size(), 1);
  std::vector<int64_t> aSpread, bSpread, merged;
  for (size_t d = 0; d < rank; ++d) {
    aSpread.insert(aSpread.end(), {as[d], 1});
    bSpread.insert(bSpread.end(), {1, bs[d]});
    merged.push_back(as[d] * bs[d]);
  }
  Value product = binary(c, ir::Op::Mul, applyOp(c, ir::Op::Reshape, {a, intsTuple(aSpread)}),
                         applyOp(c, ir::Op::Reshape, {b, intsTuple(bSpread)}));
  return applyOp(c, ir::Op::Reshape, {product, intsTuple(merged)});
}

// cdist's Euclidean distances through a matrix product, as PyTorch
// computes them for more than 25 rows: |a|^2 + |b|^2 - 2 a.b, clipped at
// 0; the square root's gradient is 0 where a distance is 0 (as PyTorch's),
// not infinity times 0.
Value euclideanByProduct(CallContext& c, const Value& x1, const Value& x2) {
  Value last = intsTuple({-1}), yes = Value::boolean(true);
  Value n1 = applyOp(c, ir::Op::Sum, {binary(c, ir::Op::Mul, x1, x1), last, yes});
  Value n2 = applyOp(c, ir::Op::Sum, {binary(c, ir::Op::Mul, x2, x2), last, yes});
  Value x2t = applyOp(c, ir::Op::Transpose, {x2, intsTuple({-1, -2})});
  Value dots = binary(c, ir::Op::MatMul, x1, x2t);
  Value squares = binary(c, ir::Op::Add, n1, applyOp(c, ir::Op::Transpose, {n2, intsTuple({-1, -2})}));
  squares = binary(c, ir::Op::Sub, squares, binary(c, ir::Op::Mul, Value::real(2.0), dots));
  Value positive = compareOp(ir::Op::Gt, squares, Value::real(0.0), c.loc);
  Value safe = where(c, positive, squares, Value::real(1.0));
  return where(c, positive, applyOp(c, ir::Op::Sqrt, {safe}), Value::real(0.0));
}

// cdist(x1, x2, p=2.0, compute_mode=...): the p-norm distances between the
// rows of x1 [..., P, M] and of x2 [..., R, M] (batch dims broadcast), as
// [..., P, R]: the norm of the differences (its gradients PyTorch's, 0 at
// a zero distance), over blocks of x1's rows so that the differences held
// at once stay near 4M elements; p = 2 with more than 25 rows (or
// compute_mode="use_mm_for_euclid_dist") through a matrix product, as
// PyTorch's.
Value bCdist(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value two = Value::real(2.0), none = Value::none();
  Value x1 = argument(c, args, 0, "x1", nullptr), x2 = argument(c, args, 1, "x2", nullptr),
        pArg = argument(c, args, 2, "p", &two), mode = argument(c, args, 3, "compute_mode", &none);
  c.checkKeywordsUsed("cdist");
  const Tensor &a = tensorArg(c, x1, "x1"), &b = tensorArg(c, x2, "x2");
  for (const Tensor* t : {&a, &b}) {
    if (t->ndim() < 2)
      fail(c.loc, "cdist(): expects tensors of at least 2 dims, not " + typeString(*t), ErrorClass::ValueError);
    if (!isFloating(t->dtype()))
      fail(c.loc, "cdist(): expects float tensors, not " + typeString(*t), ErrorClass::TypeError);
  }
  int64_t columns = a.dim(a.ndim() - 1), rows = a.dim(a.ndim() - 2), others = b.dim(b.ndim() - 2);
  if (columns != b.dim(b.ndim() - 1))
    fail(c.loc, "cdist(): x1 " + typeString(a) + " and x2 " + typeString(b) + " must have the same number of columns",
         ErrorClass::ValueError);
  if (!pArg.isNumber()) fail(c.loc, std::string("cdist(): p must be a number, not ") + typeName(pArg), ErrorClass::TypeError);
  double p = pArg.asFloat();
  if (!(p >= 0)) fail(c.loc, "cdist(): p must be at least 0, not " + repr(pArg), ErrorClass::ValueError);
  const std::string modes[] = {"use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                               "donot_use_mm_for_euclid_dist"};
  std::string m = modes[0];
  if (!mode.is(Kind::None)) {
    if (!mode.is(Kind::Str) || std::find(std::begin(modes), std::end(modes), mode.asStr()) == std::end(modes))
      fail(c.loc, "cdist(): " + repr(mode) + " is not a valid value for compute_mode", ErrorClass::ValueError);
    m = mode.asStr();
  }
  Shape batch = broadcastShapes(Shape(a.shape().begin(), a.shape().end() - 2),
                                Shape(b.shape().begin(), b.shape().end() - 2), c.loc,
                                "cdist(): the batch dims of " + typeString(a) + " and " + typeString(b) +
                                    " do not broadcast together");
  if (p == 2.0 && (m == modes[1] || (m == modes[0] && (rows > 25 || others > 25))))
    return euclideanByProduct(c, x1, x2);
  Value left = applyOp(c, ir::Op::Unsqueeze, {x1, Value::integer(-2)});
  Value right = applyOp(c, ir::Op::Unsqueeze, {x2, Value::integer(-3)});
  auto distances = [&](const Value& l) {
    return applyOp(c, ir::Op::Norm, {binary(c, ir::Op::Sub, l, right), Value::real(p), intsTuple({-1}),
                                     Value::boolean(false)});
  };
  int64_t perRow = others * columns;  // differences per row of x1
  for (int64_t d : batch) perRow *= d;
  int64_t block = std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(1, perRow));
  if (block >= rows) return distances(left);
  std::vector<Value> parts;
  for (int64_t r = 0; r < rows; r += block) {
    Value slice = makeSlice(Value::integer(r), Value::integer(std::min(rows, r + block)), Value::none());
    parts.push_back(distances(indexAlong(c, left, tensorOf(left).ndim() - 3, slice)));
  }
  return applyOp(c, ir::Op::Concat, {makeList(std::move(parts)), Value::integer(-2)});
}

// renorm(input, p, dim, maxnorm): each slice of input along dim (all the
// other dims) whose p-norm is above maxnorm scaled to maxnorm, by
// maxnorm / (norm + 1e-7), as PyTorch's.
Value bRenorm(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value x = argument(c, args, 0, "input", nullptr), p = argument(c, args, 1, "p", nullptr),
        dimV = argument(c, args, 2, "dim", nullptr), maxnorm = argument(c, args, 3, "maxnorm", nullptr);
  c.checkKeywordsUsed("renorm");
  const Tensor& t = tensorArg(c, x, "input");
  if (!isFloating(t.dtype()))
    fail(c.loc, "renorm(): expects a float tensor, not " + typeString(t), ErrorClass::TypeError);
  if (!p.isNumber() || p.asFloat() <= 0)
    fail(c.loc, "renorm(): p must be a positive number, not " + repr(p), ErrorClass::ValueError);
  if (!maxnorm.isNumber() || maxnorm.asFloat() < 0)
    fail(c.loc, "renorm(): maxnorm must be a non-negative number, not " + repr(maxnorm), ErrorClass::ValueError);
  int64_t dim = dimOf(c, dimV, std::max<int64_t>(t.ndim(), 1));
  std::vector<int64_t> others;
  for (int64_t d = 0; d < t.ndim(); ++d)
    if (d != dim) others.push_back(d);
  Value norms = applyOp(c, ir::Op::Norm, {x, Value::real(p.asFloat()), intsTuple(others), Value::boolean(true)});
  Value scale = binary(c, ir::Op::Div, maxnorm, binary(c, ir::Op::Add, norms, Value::real(1e-7)));
  Value factor = where(c, binary(c, ir::Op::Gt, norms, maxnorm), scale, Value::real(1.0));
  return binary(c, ir::Op::Mul, x, factor);
}

}  // namespace

BuiltinFn tensorCompositeMethod(const std::string& name) {
  if (name == "lerp") return bLerp;
  if (name == "nan_to_num") return bNanToNum;
  if (name == "count_nonzero") return bCountNonzero;
  if (name == "diff") return bDiff;
  if (name == "movedim" || name == "moveaxis") return bMovedim;
  if (name == "cross") return bCross;
  if (name == "kron") return bKron;
  if (name == "renorm") return bRenorm;
  return nullptr;
}

void addTensorComposites(BuiltinTable& table) {
  using ir::Builtin;
  table[ir::builtinInfo(Builtin::Lerp).name] = bLerp;
  table[ir::builtinInfo(Builtin::NanToNum).name] = bNanToNum;
  table[ir::builtinInfo(Builtin::CountNonzero).name] = bCountNonzero;
  table[ir::builtinInfo(Builtin::Meshgrid).name] = bMeshgrid;
  table[ir::builtinInfo(Builtin::Diff).name] = bDiff;
  table[ir::builtinInfo(Builtin::Movedim).name] = bMovedim;
  table[ir::builtinInfo(Builtin::Moveaxis).name] = bMovedim;
  table[ir::builtinInfo(Builtin::Cross).name] = bCross;
  table[ir::builtinInfo(Builtin::Kron).name] = bKron;
  table[ir::builtinInfo(Builtin::Cdist).name] = bCdist;
  table[ir::builtinInfo(Builtin::Renorm).name] = bRenorm;
}

}  // namespace nn::stdlib
