// PyTorch's index updates and flat indexing, as functions and tensor
// methods: x.index_add(dim, index, source, alpha=1), index_copy(dim,
// index, source), index_fill(dim, index, value), index_reduce(dim, index,
// source, reduce, include_self=True), x.take(index), x.put(index, source,
// accumulate=False), x.index_put(indices, values, accumulate=False) and
// x.masked_scatter(mask, source), with PyTorch's
// checks. Each is composed of the ops it stands for (scatter_add,
// scatter, scatter_reduce, gather, where) on the tape, so that it
// differentiates as they do and runs on any device: an index along a dim
// is laid along that dim and broadcast over the others, and the flat
// forms index x reshaped to one dim.
#include <string>

#include "ir/builtins.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

std::string describe(const Value& v) { return v.is(Kind::Tensor) ? typeString(tensorOf(v)) : typeName(v); }

// An integer tensor argument (not bool), else the located TypeError.
const Tensor& integerTensorArg(CallContext& c, const Value& v, const char* what) {
  if (!v.is(Kind::Tensor) || isFloating(tensorOf(v).dtype()) || tensorOf(v).dtype() == DType::Bool)
    fail(c.loc, c.name + "(): " + what + " must be an integer tensor, not " + describe(v), ErrorClass::TypeError);
  return tensorOf(v);
}

// The index of the index_* methods: a 0-d or 1-d integer tensor with its
// entries in [0, n) (PyTorch's take none from the end), as 1-d.
Value indexVector(CallContext& c, const Value& index, int64_t n) {
  const Tensor& i = integerTensorArg(c, index, "index");
  if (i.ndim() > 1) fail(c.loc, c.name + "(): index must be 0-d or 1-d, not " + typeString(i), ErrorClass::ValueError);
  checkIndexEntries(c, i, n, false, "a dimension of size " + std::to_string(n));
  return i.ndim() == 0 ? reshaped(c, index, {1}) : index;
}

// The 1-d index laid along `dim` of a tensor of `shape` (whose size there
// is the index's) and broadcast over its other dims: the index a scatter
// along dim takes.
Value spread(CallContext& c, const Value& index, int64_t dim, Shape shape) {
  int64_t n = tensorOf(index).numel();
  std::vector<int64_t> along(shape.size(), 1);
  along[static_cast<size_t>(dim)] = n;
  shape[static_cast<size_t>(dim)] = n;
  return applyOp(c, ir::Op::BroadcastTo,
                 {reshaped(c, index, along), intsTuple(std::vector<int64_t>(shape.begin(), shape.end()))});
}

// x as an indexed tensor: at least 1-d, as index_select's.
const Tensor& indexedArg(CallContext& c, const Value& x) {
  const Tensor& t = tensorArg(c, x, "input");
  if (t.ndim() == 0) fail(c.loc, c.name + "(): expects a tensor with at least 1 dimension, got " + typeString(t));
  return t;
}

// PyTorch refuses a source of another dtype; nn converts it, except where
// the conversion would cut fractions off.
void checkSourceDType(CallContext& c, const Tensor& x, const Tensor& source) {
  if (isFloating(source.dtype()) && !isFloating(x.dtype()))
    fail(c.loc,
         c.name + "(): source " + typeString(source) + " would lose its fractions in input's dtype " +
             dtypeName(x.dtype()),
         ErrorClass::TypeError);
}

// index_add, index_copy and index_reduce: source's slices along dim
// (one per index entry) added, written or reduced into x's at the index.
Value bIndexSource(CallContext& c, std::vector<Value>& args) {
  bool reduces = c.name == "index_reduce";
  atMost(c, args, reduces ? 5 : 4);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dim", nullptr),
        index = argument(c, args, 2, "index", nullptr), source = argument(c, args, 3, "source", nullptr);
  Value reduce = reduces ? argument(c, args, 4, "reduce", nullptr) : Value::none();
  const Value* alpha = c.name == "index_add" ? c.kw("alpha") : nullptr;
  const Value* includeSelf = reduces ? c.kw("include_self") : nullptr;
  c.checkKeywordsUsed(c.name.c_str());
  const Tensor& t = indexedArg(c, x);
  const Tensor& s = tensorArg(c, source, "source");
  int64_t dim = dimArg(c, dimV, t.ndim(), "dim");
  Value at = indexVector(c, index, t.dim(static_cast<int>(dim)));
  int64_t n = tensorOf(at).numel();
  bool fits = s.ndim() == t.ndim() && s.dim(static_cast<int>(dim)) == n;
  for (int d = 0; fits && d < t.ndim(); ++d) fits = d == dim || s.dim(d) == t.dim(d);
  if (!fits)
    fail(c.loc,
         c.name + "(): source " + typeString(s) + " must have input's shape " + shapeString(t.shape()) +
             " but for its size along dim " + std::to_string(dim) + ", the index's length " + std::to_string(n),
         ErrorClass::ValueError);
  checkSourceDType(c, t, s);
  Value spreadIndex = spread(c, at, dim, s.shape());
  Value axis = Value::integer(dim);
  if (c.name == "index_copy") return applyOp(c, ir::Op::Scatter, {x, axis, spreadIndex, source, Value::none()});
  if (c.name == "index_add") {
    Value scaled = alpha ? binary(c, ir::Op::Mul, source, *alpha) : source;
    return applyOp(c, ir::Op::ScatterAdd, {x, axis, spreadIndex, scaled});
  }
  if (!reduce.is(Kind::Str))
    fail(c.loc, "index_reduce(): reduce must be a str, not " + describe(reduce), ErrorClass::TypeError);
  const std::string& how = reduce.asStr();
  if (how != "prod" && how != "mean" && how != "amax" && how != "amin")
    fail(c.loc, "index_reduce(): reduce must be 'prod', 'mean', 'amax' or 'amin', not '" + how + "'",
         ErrorClass::ValueError);
  Value keepSelf = includeSelf ? *includeSelf : Value::boolean(true);
  if (!keepSelf.is(Kind::Bool))
    fail(c.loc, "index_reduce(): include_self must be a bool, not " + describe(keepSelf), ErrorClass::TypeError);
  return applyOp(c, ir::Op::ScatterReduce, {x, axis, spreadIndex, source, reduce, keepSelf});
}

// index_fill(dim, index, value): value (a number or a 0-d tensor, which
// gets the gradient) written into x's slices at the index.
Value bIndexFill(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value x = argument(c, args, 0, "input", nullptr), dimV = argument(c, args, 1, "dim", nullptr),
        index = argument(c, args, 2, "index", nullptr), value = argument(c, args, 3, "value", nullptr);
  c.checkKeywordsUsed("index_fill");
  const Tensor& t = indexedArg(c, x);
  int64_t dim = dimArg(c, dimV, t.ndim(), "dim");
  Value spreadIndex = spread(c, indexVector(c, index, t.dim(static_cast<int>(dim))), dim, t.shape());
  Value axis = Value::integer(dim);
  if (!value.is(Kind::Tensor)) {
    if (!value.isNumber())
      fail(c.loc, "index_fill(): value must be a number or a 0-d tensor, not " + describe(value),
           ErrorClass::TypeError);
    return applyOp(c, ir::Op::Scatter, {x, axis, spreadIndex, Value::none(), value});
  }
  const Tensor& v = tensorOf(value);
  if (v.ndim() != 0)
    fail(c.loc, "index_fill(): value must be a number or a 0-d tensor, not " + typeString(v), ErrorClass::ValueError);
  checkSourceDType(c, t, v);
  const Shape& to = tensorOf(spreadIndex).shape();
  Value filled = applyOp(c, ir::Op::BroadcastTo, {value, intsTuple(std::vector<int64_t>(to.begin(), to.end()))});
  return applyOp(c, ir::Op::Scatter, {x, axis, spreadIndex, filled, Value::none()});
}

// take(index): the elements of x flattened at the index (from the end
// where negative), in the index's shape.
Value bTake(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), index = argument(c, args, 1, "index", nullptr);
  c.checkKeywordsUsed("take");
  const Tensor& t = tensorArg(c, x, "input");
  const Tensor& i = integerTensorArg(c, index, "index");
  checkIndexEntries(c, i, t.numel(), true, "input with " + std::to_string(t.numel()) + " elements");
  Shape shape = i.shape();
  Value picked =
      applyOp(c, ir::Op::Gather, {reshaped(c, x, {t.numel()}), Value::integer(0), reshaped(c, index, {i.numel()})});
  return reshaped(c, picked, std::vector<int64_t>(shape.begin(), shape.end()));
}

// put(index, source, accumulate=False): source's elements written (or
// added) into x flattened at the index, in order.
// x with source's elements written (or, with accumulate, added) at the
// flat positions `at`, as many as source has: a scatter of x and source
// each viewed as one dim.
Value putFlat(CallContext& c, const Value& x, const Value& at, const Value& source, bool accumulate) {
  const Tensor &t = tensorOf(x), &s = tensorOf(source);
  Value flat = reshaped(c, x, {t.numel()}), places = reshaped(c, at, {tensorOf(at).numel()}),
        values = reshaped(c, source, {s.numel()});
  Value out = accumulate ? applyOp(c, ir::Op::ScatterAdd, {flat, Value::integer(0), places, values})
                         : applyOp(c, ir::Op::Scatter, {flat, Value::integer(0), places, values, Value::none()});
  return reshaped(c, out, std::vector<int64_t>(t.shape().begin(), t.shape().end()));
}

Value bPut(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value no = Value::boolean(false);
  Value x = argument(c, args, 0, "input", nullptr), index = argument(c, args, 1, "index", nullptr),
        source = argument(c, args, 2, "source", nullptr), accumulate = argument(c, args, 3, "accumulate", &no);
  c.checkKeywordsUsed("put");
  const Tensor& t = tensorArg(c, x, "input");
  const Tensor& i = integerTensorArg(c, index, "index");
  const Tensor& s = tensorArg(c, source, "source");
  if (s.numel() != i.numel())
    fail(c.loc,
         "put(): source " + typeString(s) + " and index " + typeString(i) + " must have the same number of elements",
         ErrorClass::ValueError);
  if (!accumulate.is(Kind::Bool))
    fail(c.loc, "put(): accumulate must be a bool, not " + describe(accumulate), ErrorClass::TypeError);
  checkIndexEntries(c, i, t.numel(), true, "input with " + std::to_string(t.numel()) + " elements");
  checkSourceDType(c, t, s);
  return putFlat(c, x, index, source, accumulate.asBool());
}

// index_put(input, indices, values, accumulate=False): input with values
// (broadcast to the shape of input[indices]) written at input[indices],
// or added there with accumulate (repeated places adding up); indices a
// tuple of index tensors (integer or bool), as PyTorch takes them. The
// flat places input[indices] selects are found by indexing a ramp of
// positions the same way (so the rules are indexing's), then put.
Value bIndexPut(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value no = Value::boolean(false);
  Value x = argument(c, args, 0, "input", nullptr), indices = argument(c, args, 1, "indices", nullptr),
        values = argument(c, args, 2, "values", nullptr), accumulate = argument(c, args, 3, "accumulate", &no);
  c.checkKeywordsUsed("index_put");
  const Tensor& t = tensorArg(c, x, "input");
  const Tensor& s = tensorArg(c, values, "values");
  if (!indices.is(Kind::Tuple) && !indices.is(Kind::List))
    fail(c.loc, "index_put(): indices must be a tuple of tensors, not " + describe(indices), ErrorClass::TypeError);
  for (const Value& item : indices.as<SeqObj>().items)
    if (!item.is(Kind::Tensor) || isFloating(tensorOf(item).dtype()))
      fail(c.loc, "index_put(): indices must be integer or bool tensors, not " + describe(item),
           ErrorClass::TypeError);
  if (!accumulate.is(Kind::Bool))
    fail(c.loc, "index_put(): accumulate must be a bool, not " + describe(accumulate), ErrorClass::TypeError);
  checkSourceDType(c, t, s);
  Ramp ramp;
  ramp.exact = true;  // integer positions, counted exactly
  Tensor positions = reshape(rampTensor(ir::Op::Arange, DType::I64, t.numel(), ramp, t.device(), c.loc), t.shape(),
                             c.loc);
  Value key = makeTuple(indices.as<SeqObj>().items);
  const Tensor picked = tensorOf(getItem(makeTensorValue(positions), key, c.loc));
  std::optional<Shape> fits = tryBroadcastShapes(s.shape(), picked.shape());
  if (!fits || *fits != picked.shape())
    fail(c.loc,
         "index_put(): values " + typeString(s) + " do not broadcast to the shape of input[indices], " +
             shapeString(picked.shape()),
         ErrorClass::ValueError);
  Value spread = applyOp(c, ir::Op::BroadcastTo,
                         {values, intsTuple(std::vector<int64_t>(picked.shape().begin(), picked.shape().end()))});
  return putFlat(c, x, makeTensorValue(picked), spread, accumulate.asBool());
}

// masked_scatter(mask, source): where the bool mask (broadcast to x's
// shape) is true, source's elements in order; elsewhere x's.
Value bMaskedScatter(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value x = argument(c, args, 0, "input", nullptr), mask = argument(c, args, 1, "mask", nullptr),
        source = argument(c, args, 2, "source", nullptr);
  c.checkKeywordsUsed("masked_scatter");
  const Tensor& t = tensorArg(c, x, "input");
  const Tensor& s = tensorArg(c, source, "source");
  if (!mask.is(Kind::Tensor) || tensorOf(mask).dtype() != DType::Bool)
    fail(c.loc, "masked_scatter(): mask must be a bool tensor, not " + describe(mask), ErrorClass::TypeError);
  checkSourceDType(c, t, s);
  Shape shape = broadcastShapes(tensorOf(mask).shape(), t.shape(), c.loc,
                                "masked_scatter(): the mask, " + typeString(tensorOf(mask)) +
                                    ", does not broadcast to input's shape " + shapeString(t.shape()));
  if (shape != t.shape())
    fail(c.loc, "masked_scatter(): the mask, " + typeString(tensorOf(mask)) + ", does not broadcast to input's shape " +
                    shapeString(t.shape()));
  std::vector<int64_t> dims(shape.begin(), shape.end());
  Value full = tensorOf(mask).shape() == shape ? mask : applyOp(c, ir::Op::BroadcastTo, {mask, intsTuple(dims)});
  Tensor onHost = readableOnHost(tensorOf(full), c.loc);
  int64_t count = 0;
  for (int64_t k = 0; k < onHost.numel(); ++k) count += onHost.flatAsInt(k) != 0;
  if (count > s.numel())
    fail(c.loc,
         "masked_scatter(): source " + typeString(s) + " has fewer elements than the mask's " + std::to_string(count) +
             " true ones",
         ErrorClass::ValueError);
  if (count == 0) return x;
  // Each true place's rank among the true places picks its source element.
  Value flatMask = reshaped(c, full, {t.numel()});
  Value ranks = applyOp(c, ir::Op::CumSum, {flatMask, Value::integer(0), Value::boolean(false)});
  Value at = applyOp(c, ir::Op::Maximum, {binary(c, ir::Op::Sub, ranks, Value::integer(1)), Value::integer(0)});
  Value picked = applyOp(c, ir::Op::Gather, {reshaped(c, source, {s.numel()}), Value::integer(0), at});
  if (s.dtype() != t.dtype()) picked = applyOp(c, ir::Op::AsType, {picked, Value::dtype(static_cast<int>(t.dtype()))});
  return where(c, full, reshaped(c, picked, dims), x);
}

}  // namespace

BuiltinFn indexUpdateMethod(const std::string& name) {
  if (name == "index_add" || name == "index_copy" || name == "index_reduce") return bIndexSource;
  if (name == "index_fill") return bIndexFill;
  if (name == "take") return bTake;
  if (name == "put") return bPut;
  if (name == "index_put") return bIndexPut;
  if (name == "masked_scatter") return bMaskedScatter;
  return nullptr;
}

void addIndexUpdates(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::IndexAdd, Builtin::IndexCopy, Builtin::IndexFill, Builtin::IndexReduce, Builtin::Take,
                    Builtin::Put, Builtin::IndexPut, Builtin::MaskedScatter})
    table[ir::builtinInfo(b).name] = indexUpdateMethod(ir::builtinInfo(b).name);
}

}  // namespace nn::stdlib
