// PyTorch's tensor methods that are no op of their own (language.md §5):
// x.to(dtype) and x.to(device, dtype) beside the op `to`; x.view_as(y),
// reshape_as, expand_as and type_as, which take y's shape or dtype; and
// x.narrow, select, unbind and index_select, which index x along a dim;
// x.t(), with PyTorch's check, x.clamp_max(max), x.new_zeros(size) and its
// kin, and x.masked_select(mask). Also what the PyTorch attributes nn has
// no counterpart of (x.backward, x.numpy, ...) are in nn, for their errors.
// Each runs the ops or the indexing it stands for, on the tape as they
// are; graph mode rewrites some of these calls into those ops where types
// allow (passes/builtin_ops.cpp).
#include <optional>

#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// x.to(device), and PyTorch's x.to(dtype), x.to(device, dtype) and the
// keyword forms: the copy onto the device, then the conversion.
Value bTo(CallContext& c, std::vector<Value>& args) {
  if (args.size() > 3)
    fail(c.loc, "to() takes a device and a dtype (" + std::to_string(args.size() - 1) + " arguments given)",
         ErrorClass::TypeError);
  std::optional<Value> dtype;
  if (const Value* d = c.kw("dtype")) dtype = *d;
  else if (args.size() == 2 && args[1].is(Kind::DType)) dtype = args[1], args.pop_back();
  else if (args.size() == 3) dtype = args[2], args.pop_back();
  std::vector<std::string> kwnames;
  std::vector<Value> kwargs;
  for (size_t i = 0; i < c.kwnames.size(); ++i)
    if (c.kwnames[i] != "dtype") kwnames.push_back(c.kwnames[i]), kwargs.push_back(c.kwargs[i]);
  CallContext rest{c.interp, c.loc, kwnames, kwargs, c.name};
  Value x = args.size() > 1 || !kwnames.empty() || !dtype ? callTensorOp(rest, ir::Op::ToDevice, args) : args[0];
  c.markAllUsed();  // dtype here, the rest through `rest`
  if (!dtype) return x;
  std::vector<Value> params{x, *dtype};
  return runTensorOp(c.interp, ir::Op::AsType, params, c.loc);
}


// PyTorch's x.view_as(y), x.reshape_as(y), x.expand_as(y) and
// x.type_as(y): the op with y's shape or dtype.
Value bLikeOther(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 2, 2);
  if (!args[1].is(Kind::Tensor))
    fail(c.loc, c.name + "() argument must be a Tensor, not " + typeName(args[1]), ErrorClass::TypeError);
  const Tensor& other = tensorOf(args[1]);
  std::vector<Value> params{args[0]};
  if (c.name == "type_as") {
    params.push_back(Value::dtype(static_cast<int>(other.dtype())));
    return runTensorOp(c.interp, ir::Op::AsType, params, c.loc);
  }
  params.push_back(tensorAttribute(args[1], "shape", c.loc));
  return runTensorOp(c.interp, c.name == "expand_as" ? ir::Op::Expand : ir::Op::Reshape, params, c.loc);
}

// The int argument `name` (positional at `at`, or by keyword), or `fallback`.
int64_t intArg(CallContext& c, std::vector<Value>& args, size_t at, const char* name, std::optional<int64_t> fallback) {
  const Value* v = c.kw(name);
  if (v && args.size() > at)
    fail(c.loc, c.name + "() got multiple values for argument '" + name + "'", ErrorClass::TypeError);
  if (!v && args.size() > at) v = &args[at];
  if (!v) {
    if (!fallback) fail(c.loc, c.name + "() missing required argument '" + name + "'", ErrorClass::TypeError);
    return *fallback;
  }
  if (!v->isIntLike())
    fail(c.loc, c.name + "(): " + name + " must be an int, not " + typeName(*v), ErrorClass::TypeError);
  return v->asInt();
}

// PyTorch's x.narrow(dim, start, length), x.select(dim, index),
// x.unbind(dim=0) and x.index_select(dim, index): x indexed along dim (a
// slice, an int, each int, an index tensor), with PyTorch's checks.
Value bIndexAlong(CallContext& c, std::vector<Value>& args) {
  const Tensor& x = tensorOf(args[0]);
  bool unbind = c.name == "unbind";
  size_t most = c.name == "narrow" ? 4 : unbind ? 2 : 3;
  if (args.size() > most)
    fail(c.loc,
         c.name + "() takes " + std::to_string(most - 1) + " arguments (" + std::to_string(args.size() - 1) + " given)",
         ErrorClass::TypeError);
  if (x.ndim() == 0) fail(c.loc, c.name + "(): expects a tensor with at least 1 dimension, got " + typeString(x));
  int64_t dim = normalizeAxis(intArg(c, args, 1, "dim", unbind ? std::optional<int64_t>(0) : std::nullopt),
                              static_cast<int>(x.ndim()), c.loc, c.name.c_str());
  int64_t n = x.dim(static_cast<int>(dim));
  if (c.name == "narrow") {
    int64_t start = intArg(c, args, 2, "start", std::nullopt), length = intArg(c, args, 3, "length", std::nullopt);
    if (start < -n || start > n)
      fail(c.loc,
           "narrow(): start " + std::to_string(start) + " is out of range for a dimension of size " + std::to_string(n),
           ErrorClass::IndexError);
    if (start < 0) start += n;
    if (length < 0 || start + length > n)
      fail(c.loc, "narrow(): start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                      ") exceeds dimension size (" + std::to_string(n) + ")");
    c.checkKeywordsUsed("narrow");
    return indexAlong(c, args[0], dim, makeSlice(Value::integer(start), Value::integer(start + length), Value::none()));
  }
  if (unbind) {
    c.checkKeywordsUsed("unbind");
    std::vector<Value> parts;
    for (int64_t i = 0; i < n; ++i) parts.push_back(indexAlong(c, args[0], dim, Value::integer(i)));
    return makeTuple(std::move(parts));
  }
  const Value* kw = c.kw("index");
  if (kw && args.size() > 2) fail(c.loc, c.name + "() got multiple values for argument 'index'", ErrorClass::TypeError);
  if (!kw && args.size() < 3) fail(c.loc, c.name + "() missing required argument 'index'", ErrorClass::TypeError);
  Value index = kw ? *kw : args[2];
  c.checkKeywordsUsed(c.name.c_str());
  if (c.name == "select") {
    if (!index.isIntLike())
      fail(c.loc, std::string("select(): index must be an int, not ") + typeName(index), ErrorClass::TypeError);
    return indexAlong(c, args[0], dim, index);
  }
  if (!index.is(Kind::Tensor) || isFloating(tensorOf(index).dtype()) || tensorOf(index).dtype() == DType::Bool ||
      tensorOf(index).ndim() > 1)
    fail(c.loc, "index_select(): index must be a 0-d or 1-d integer tensor, not " +
                    (index.is(Kind::Tensor) ? typeString(tensorOf(index)) : std::string(typeName(index))),
         ErrorClass::TypeError);
  const Tensor& i = tensorOf(index);
  // PyTorch's index_select takes no index from the end, unlike x[index].
  checkIndexEntries(c, i, n, false, "a dimension of size " + std::to_string(n));
  return indexAlong(c, args[0], dim, i.ndim() == 0 ? makeTensorValue(reshape(i, {1}, c.loc)) : index);
}

// x.t(): a matrix transposed, a vector or scalar as it is; PyTorch refuses
// more dims (transpose(x) would reverse them all, x.mT swap the last two).
Value bT(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("t");
  checkArity(c, args, 1, 1);
  const Tensor& x = tensorOf(args[0]);
  if (x.ndim() > 2)
    fail(c.loc,
         "t() expects a tensor with at most 2 dims, not " + typeString(x) +
             "; transpose(x, d0, d1) swaps two dims, transpose(x) reverses them all");
  std::vector<Value> params{args[0], makeTuple({})};  // no axes: reversed
  return runTensorOp(c.interp, ir::Op::Transpose, params, c.loc);
}

// x.clamp_max(max): clip(x, None, max), PyTorch's clamp with only an upper limit.
Value bClampMax(CallContext& c, std::vector<Value>& args) {
  const Value* kw = c.kw("max");
  if (kw && args.size() > 1) fail(c.loc, "clamp_max() got multiple values for argument 'max'", ErrorClass::TypeError);
  if (!kw && args.size() != 2)
    fail(c.loc, "clamp_max() takes 1 argument (" + std::to_string(args.size() - 1) + " given)", ErrorClass::TypeError);
  c.checkKeywordsUsed("clamp_max");
  std::vector<Value> params{args[0], Value::none(), kw ? *kw : args[1]};
  return runTensorOp(c.interp, ir::Op::Clip, params, c.loc);
}

// PyTorch's x.new_zeros(size), new_ones(size), new_empty(size) (zeros
// here) and new_full(size, value): a new tensor of that size (ints, or one
// tuple or list of them) with x's dtype and on x's device, unless dtype=
// or device= say otherwise.
Value bNewTensor(CallContext& c, std::vector<Value>& args) {
  const Tensor& x = tensorOf(args[0]);
  bool full = c.name == "new_full";
  std::vector<Value> params(args.begin() + 1, args.end());
  if (full) {
    const Value* value = c.kw("fill_value");
    if (params.size() != (value ? 1u : 2u))
      fail(c.loc, "new_full() takes a size and a fill_value (" + std::to_string(params.size()) + " arguments given)",
           ErrorClass::TypeError);
    if (value) params.push_back(*value);
  } else if (params.empty()) {
    fail(c.loc, c.name + "() missing required argument 'size'", ErrorClass::TypeError);
  }
  const Value* dtype = c.kw("dtype");
  const Value* device = c.kw("device");
  std::vector<std::string> kwnames{"dtype", "device"};
  std::vector<Value> kwargs{dtype ? *dtype : Value::dtype(static_cast<int>(x.dtype())),
                            device ? *device : Value::str(x.device().name())};
  c.checkKeywordsUsed(c.name.c_str());
  CallContext create{c.interp, c.loc, kwnames, kwargs, c.name};
  ir::Op op = full ? ir::Op::Full : c.name == "new_ones" ? ir::Op::Ones : ir::Op::Zeros;
  return callTensorOp(create, op, params);
}

// x.masked_select(mask).
Value bMaskedSelect(CallContext& c, std::vector<Value>& args) {
  const Value* kw = c.kw("mask");
  if (kw && args.size() > 1)
    fail(c.loc, "masked_select() got multiple values for argument 'mask'", ErrorClass::TypeError);
  if (!kw && args.size() != 2)
    fail(c.loc, "masked_select() takes 1 argument (" + std::to_string(args.size() - 1) + " given)",
         ErrorClass::TypeError);
  c.checkKeywordsUsed("masked_select");
  return maskedSelect(c, args[0], kw ? *kw : args[1]);
}

}  // namespace

// PyTorch's masked_select(x, mask): the elements of x where the bool mask
// (broadcast with x) is true, in order, as a 1-d tensor: x[mask], on the
// tape as that indexing is.
Value maskedSelect(CallContext& c, Value x, Value mask) {
  if (!mask.is(Kind::Tensor) || tensorOf(mask).dtype() != DType::Bool)
    fail(c.loc,
         "masked_select(): mask must be a bool tensor, not " +
             (mask.is(Kind::Tensor) ? typeString(tensorOf(mask)) : std::string(typeName(mask))),
         ErrorClass::TypeError);
  // Both broadcast to their common shape first, as PyTorch's do.
  Shape shape = broadcastShapes(tensorOf(x).shape(), tensorOf(mask).shape(), c.loc,
                                "masked_select(): the mask, " + typeString(tensorOf(mask)) +
                                    ", does not broadcast with x, " + typeString(tensorOf(x)));
  auto broadcast = [&](Value& v) {
    if (tensorOf(v).shape() == shape) return;
    std::vector<Value> dims;
    for (int64_t d : shape) dims.push_back(Value::integer(d));
    std::vector<Value> params{v, makeTuple(std::move(dims))};
    v = runTensorOp(c.interp, ir::Op::BroadcastTo, params, c.loc);
  };
  broadcast(x);
  broadcast(mask);
  return getItemOnTape(c, x, mask);
}

// What PyTorch's autograd, NumPy and random in-place methods are in nn, for
// the error at a tensor's attribute nn does not have; "" for other names.
std::string pytorchAttributeHint(const std::string& name) {
  static const char* const kAutograd[] = {"backward",  "grad",    "requires_grad", "requires_grad_",
                                          "grad_fn",   "is_leaf", "retain_grad",   "register_hook"};
  for (const char* a : kAutograd)
    if (name == a)
      return ": nn takes gradients of functions, not of tensors: grad(f)(params) or value_and_grad(f)(params) "
             "give f's gradient with respect to its arguments (docs/from_pytorch.md)";
  if (name == "numpy") return ": a tensor is nn's array; x.tolist() gives its values as nested lists";
  if (name == "data") return ": tensors are values in nn; x itself, or stop_gradient(x) for PyTorch's detached x.data";
  if (name == "uniform_" || name == "normal_")
    return ": tensors are values in nn, so there are no in-place methods; write x = " +
           std::string(name == "uniform_" ? "rand" : "randn") + "(*x.shape)";
  return "";
}

BuiltinFn pytorchTensorMethod(const std::string& name) {
  if (name == "to") return bTo;
  if (name == "view_as" || name == "reshape_as" || name == "expand_as" || name == "type_as") return bLikeOther;
  if (name == "narrow" || name == "select" || name == "unbind" || name == "index_select") return bIndexAlong;
  if (name == "t") return bT;
  if (name == "clamp_max") return bClampMax;
  if (name == "new_zeros" || name == "new_ones" || name == "new_empty" || name == "new_full") return bNewTensor;
  if (name == "masked_select") return bMaskedSelect;
  if (BuiltinFn f = tensorCompositeMethod(name)) return f;
  if (BuiltinFn f = tensorProductMethod(name)) return f;
  if (BuiltinFn f = tensorLinalgMethod(name)) return f;
  if (BuiltinFn f = luDecompositionMethod(name)) return f;
  if (BuiltinFn f = torchFunctionMethod(name)) return f;
  if (BuiltinFn f = tensorMethodExtra(name)) return f;
  if (BuiltinFn f = tensorArrangeMethod(name)) return f;
  if (BuiltinFn f = indexUpdateMethod(name)) return f;
  if (BuiltinFn f = diagonalEmbeddingMethod(name)) return f;
  if (BuiltinFn f = tensorPredicateMethod(name)) return f;
  if (BuiltinFn f = tensorStatisticMethod(name)) return f;
  if (BuiltinFn f = tensorMathCompositeMethod(name)) return f;
  return tensorSearchMethod(name);
}

}  // namespace nn::stdlib
