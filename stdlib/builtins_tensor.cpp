// The tensor builtins and methods (language.md §5): every tensor op that
// ops.def marks FUNC is a builtin function of its name and every op marked
// METHOD a tensor method (x.sum(axis=1) is sum(x, axis=1)); both bind
// their arguments to the op's signature and run its one implementation
// (op_call.h, tensor_op_impls.cpp). Also the tensor attributes (x.shape,
// x.T, ...), seed(), and the language ops that are also builtins
// (pow/neg/matmul, x.add(y), x.lt(0)).
#include <tuple>

#include "ir/builtins.h"
#include "runtime/nn_ops.h"
#include "runtime/random.h"
#include "runtime/scalar_ops.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"
#include "support/suggest.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// Python's pow(base, exp, mod) of ints: base ** exp % mod, the result
// with mod's sign; a negative exp takes the inverse of base modulo mod.
Value modularPow(CallContext& c, const std::vector<Value>& args) {
  for (const Value& a : args)
    if (!a.isIntLike()) fail(c.loc, "pow() 3rd argument not allowed unless all arguments are integers", ErrorClass::TypeError);
  int64_t m = args[2].asInt();
  if (m == 0) fail(c.loc, "pow() 3rd argument cannot be 0", ErrorClass::ValueError);
  using Wide = __int128;
  Wide mod = m < 0 ? -static_cast<Wide>(m) : m;
  auto reduce = [&](Wide v) { return ((v % mod) + mod) % mod; };
  Wide base = reduce(args[0].asInt());
  int64_t e = args[1].asInt();
  if (e < 0) {  // the inverse by the extended Euclidean algorithm
    Wide r0 = mod, r1 = base, t0 = 0, t1 = 1;
    while (r1 != 0) {
      Wide q = r0 / r1;
      std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
      std::tie(t0, t1) = std::make_pair(t1, t0 - q * t1);
    }
    if (r0 != 1) fail(c.loc, "base is not invertible for the given modulus", ErrorClass::ValueError);
    base = reduce(t0);
  }
  uint64_t k = e < 0 ? -static_cast<uint64_t>(e) : static_cast<uint64_t>(e);
  Wide result = reduce(1);
  for (; k; k >>= 1, base = base * base % mod)
    if (k & 1) result = result * base % mod;
  if (m < 0 && result != 0) result -= mod;
  return Value::integer(static_cast<int64_t>(result));
}

// The language ops that are also builtins: pow, neg and matmul as
// functions, and PyTorch's method forms of the operators (x.add(y) is
// x + y, x.lt(0) is x < 0): the operator's computation, on the tape when
// one records, so grad sees neg(x) as it sees -x.
Value bLanguageOp(CallContext& c, std::vector<Value>& args) {
  std::optional<ir::Op> found = ir::functionOp(c.name);
  ir::Op op = found ? *found : *ir::methodOp(c.name);
  c.checkKeywordsUsed(c.name.c_str());
  const ir::OpInfo& info = ir::opInfo(op);
  if (op == ir::Op::Pow && args.size() == 3) return modularPow(c, args);
  checkArity(c, args, static_cast<size_t>(info.minOperands), static_cast<size_t>(info.maxOperands));
  if (op == ir::Op::MatMul)
    for (const Value& a : args)
      if (!a.is(Kind::Tensor)) fail(c.loc, c.name + "() argument must be a Tensor, not " + typeName(a), ErrorClass::TypeError);
  Value out = args.size() == 1          ? unaryOp(op, args[0], c.loc)
              : ir::isComparison(op) ? compareOp(op, args[0], args[1], c.loc)
                                     : binaryOp(op, args[0], args[1], c.loc);
  if (rt::Tape* tape = c.interp.tape()) tape->recordOp(op, c.loc, args, out);
  return out;
}

Value bSeed(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("seed");
  checkArity(c, args, 1, 1);
  c.interp.rng().reseed(static_cast<uint64_t>(toIndex(args[0], c.loc)));
  return Value::none();
}

// A tensor op's builtin function: the op named by the builtin.
Value bTensorOp(CallContext& c, std::vector<Value>& args) { return callTensorOp(c, *ir::functionOp(c.name), args); }
// A tensor method, the tensor first, with the keyword its name passes
// (x.float() is astype(x, dtype="f32")).
Value bTensorMethod(CallContext& c, std::vector<Value>& args) {
  ir::OpName m = *ir::tensorMethod(c.name);
  if (m.keyword.empty()) return callTensorOp(c, m.op, args);
  std::vector<std::string> kwnames = c.kwnames;
  std::vector<Value> kwargs = c.kwargs;
  kwnames.emplace_back(m.keyword);
  kwargs.push_back(Value::str(std::string(m.value)));
  CallContext named{c.interp, c.loc, kwnames, kwargs, c.name};
  return callTensorOp(named, m.op, args);
}

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
  if (!dtype) return x;
  std::vector<Value> params{x, *dtype};
  return runTensorOp(c.interp, ir::Op::AsType, params, c.loc);
}

// x.max(y) of two tensors is elementwise, as in PyTorch; x.max(1) reduces.
Value bMinMaxMethod(CallContext& c, std::vector<Value>& args) {
  ir::Op op = *ir::methodOp(c.name);
  bool twoTensors = args.size() == 2 && args[1].is(Kind::Tensor) && c.kwnames.empty();
  return callTensorOp(c, twoTensors ? *ir::pairwiseForm(op) : op, args);
}

// x.clone(): the tensor's value (tensors are values; +x is a copy).
Value bClone(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 1);
  Value out = unaryOp(ir::Op::Pos, args[0], c.loc);
  if (rt::Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::Pos, c.loc, {args[0]}, out);
  return out;
}

// The implementation of tensor method `op`.
BuiltinFn methodFn(ir::Op op) {
  if (!ir::isTensorOp(op)) return op == ir::Op::Pos ? bClone : bLanguageOp;
  switch (op) {
    case ir::Op::Max:
    case ir::Op::Min: return bMinMaxMethod;
    default: return bTensorMethod;
  }
}

// x.size() is x.shape; x.size(d) one dim (negative from the end).
Value bSize(CallContext& c, std::vector<Value>& args) {
  const Tensor& t = tensorOf(args[0]);
  const Value* dim = c.kw("dim");
  c.checkKeywordsUsed("size");
  checkArity(c, args, 1, dim ? 1 : 2);
  if (!dim && args.size() == 1) return tensorAttribute(args[0], "shape", c.loc);
  int64_t d = toIndex(dim ? *dim : args[1], c.loc);
  return Value::integer(t.shape()[normalizeIndex(d, t.ndim(), "size: dim", c.loc)]);
}

Value bNumel(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("numel");
  checkArity(c, args, 1, 1);
  return Value::integer(tensorOf(args[0]).numel());
}

// x.dim() is x.ndim, as PyTorch's.
Value bDim(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("dim");
  checkArity(c, args, 1, 1);
  return Value::integer(tensorOf(args[0]).ndim());
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

// x[(:,) * dim + (index,)], on the tape as that indexing is.
Value indexAlong(CallContext& c, const Value& x, int64_t dim, Value index) {
  std::vector<Value> items(static_cast<size_t>(dim), makeSlice(Value::none(), Value::none(), Value::none()));
  items.push_back(std::move(index));
  Value key = makeTuple(std::move(items));
  Value out = getItem(x, key, c.loc);
  if (rt::Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::GetItem, c.loc, {x, key}, out);
  return out;
}

// The int argument `name` (positional at `at`, or by keyword), or `fallback`.
int64_t intArg(CallContext& c, std::vector<Value>& args, size_t at, const char* name, std::optional<int64_t> fallback) {
  const Value* v = c.kw(name);
  if (v && args.size() > at) fail(c.loc, c.name + "() got multiple values for argument '" + name + "'", ErrorClass::TypeError);
  if (!v && args.size() > at) v = &args[at];
  if (!v) {
    if (!fallback) fail(c.loc, c.name + "() missing required argument '" + name + "'", ErrorClass::TypeError);
    return *fallback;
  }
  if (!v->isIntLike()) fail(c.loc, c.name + "(): " + name + " must be an int, not " + typeName(*v), ErrorClass::TypeError);
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
    fail(c.loc, c.name + "() takes " + std::to_string(most - 1) + " arguments (" + std::to_string(args.size() - 1) + " given)",
         ErrorClass::TypeError);
  if (x.ndim() == 0) fail(c.loc, c.name + "(): expects a tensor with at least 1 dimension, got " + typeString(x));
  int64_t dim = normalizeAxis(intArg(c, args, 1, "dim", unbind ? std::optional<int64_t>(0) : std::nullopt),
                              static_cast<int>(x.ndim()), c.loc, c.name.c_str());
  int64_t n = x.dim(static_cast<int>(dim));
  if (c.name == "narrow") {
    int64_t start = intArg(c, args, 2, "start", std::nullopt), length = intArg(c, args, 3, "length", std::nullopt);
    if (start < -n || start > n)
      fail(c.loc, "narrow(): start " + std::to_string(start) + " is out of range for a dimension of size " + std::to_string(n),
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
    if (!index.isIntLike()) fail(c.loc, std::string("select(): index must be an int, not ") + typeName(index), ErrorClass::TypeError);
    return indexAlong(c, args[0], dim, index);
  }
  if (!index.is(Kind::Tensor) || isFloating(tensorOf(index).dtype()) || tensorOf(index).dtype() == DType::Bool ||
      tensorOf(index).ndim() > 1)
    fail(c.loc, "index_select(): index must be a 0-d or 1-d integer tensor, not " +
                    (index.is(Kind::Tensor) ? typeString(tensorOf(index)) : std::string(typeName(index))),
         ErrorClass::TypeError);
  const Tensor& i = tensorOf(index);
  return indexAlong(c, args[0], dim, i.ndim() == 0 ? makeTensorValue(reshape(i, {1}, c.loc)) : index);
}

// The tensor methods that are no op, by name.
BuiltinFn ownMethod(const std::string& name) {
  if (name == "size") return bSize;
  if (name == "numel") return bNumel;
  if (name == "dim") return bDim;
  if (name == "view_as" || name == "reshape_as" || name == "expand_as" || name == "type_as") return bLikeOther;
  if (name == "narrow" || name == "select" || name == "unbind" || name == "index_select") return bIndexAlong;
  return nullptr;
}

// PyTorch's in-place forms (x.add_(1), x.zero_()) have no counterpart:
// tensors are values. The message says what to write instead.
std::string inPlaceHint(const std::string& name) {
  if (name.size() < 2 || name.back() != '_' || name[name.size() - 2] == '_') return "";
  std::string plain = name.substr(0, name.size() - 1);
  std::string instead = ir::methodOp(plain) || ownMethod(plain) ? "x = x." + plain + "(...)"
                        : plain == "zero"                        ? "x = zeros_like(x)"
                        : plain == "fill"                        ? "x = full_like(x, value)"
                        : plain == "copy"                        ? "x = y"
                                                                 : "";
  if (instead.empty()) return "";
  return ": tensors are values in nn, so there are no in-place methods; write " + instead;
}

}  // namespace

void addTensorBuiltins(BuiltinTable& table) {
  for (size_t i = 0; i < ir::kNumOps; ++i) {
    ir::Op op = static_cast<ir::Op>(i);
    if (ir::hasTrait(op, ir::FUNC) && ir::isTensorOp(op)) table[ir::opInfo(op).name] = bTensorOp;
  }
  for (std::string_view name : ir::functionAliases())
    table[std::string(name)] = ir::isTensorOp(*ir::functionOp(name)) ? bTensorOp : bLanguageOp;
  for (ir::Op op : {ir::Op::Pow, ir::Op::Neg, ir::Op::MatMul}) table[ir::opInfo(op).name] = bLanguageOp;
  table[ir::builtinInfo(ir::Builtin::Seed).name] = bSeed;
}

Value tensorMath(CallContext& c, const Value& x, nn::ir::Op op) {
  std::vector<Value> params{x};
  return runTensorOp(c.interp, op, params, c.loc);  // (where a tape sees it)
}

Value tensorReduction(CallContext& c, std::vector<Value>& args, ir::Op op) { return callTensorOp(c, op, args); }

const std::vector<std::string>& tensorAttributeNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"shape", "dtype", "ndim", "device", "T"};
    out.insert(out.end(), ir::tensorOwnMethodNames().begin(), ir::tensorOwnMethodNames().end());
    return out;
  }();
  return names;
}

Value tensorAttribute(const Value& obj, const std::string& name, SourceLoc loc) {
  const Tensor& t = tensorOf(obj);
  if (name == "shape") {
    std::vector<Value> dims;
    for (int64_t d : t.shape()) dims.push_back(Value::integer(d));
    return makeTuple(std::move(dims));
  }
  if (name == "dtype") return Value::dtype(static_cast<int>(t.dtype()));
  if (name == "ndim") return Value::integer(t.ndim());
  if (name == "device") return Value::str(t.device().name());
  if (name == "T") return makeTensorValue(transpose(t, {}, loc));
  // PyTorch's method forms: x.exp() is exp(x), x.softmax(1) is softmax(x, 1).
  std::optional<ir::Op> op = ir::methodOp(name);
  BuiltinFn fn = name == "to" ? bTo : op ? methodFn(*op) : ownMethod(name);
  if (!fn) {
    if (std::string hint = inPlaceHint(name); !hint.empty())
      fail(loc, "'Tensor' object has no attribute '" + name + "'" + hint, ErrorClass::AttributeError);
    if (name == "values" || name == "indices")  // PyTorch's x.max(dim=1).values
      fail(loc, "'Tensor' object has no attribute '" + name + "': max(x, dim) and min(x, dim) give the values only " +
                    "(NumPy's meaning); argmax and argmin give the indices",
           ErrorClass::AttributeError);
    std::optional<std::string_view> ours = ir::foreignSpelling(name);
    std::vector<std::string> names = ir::tensorMethodNames();
    names.insert(names.end(), tensorAttributeNames().begin(), tensorAttributeNames().end());
    std::string hint = ours ? "; did you mean '" + std::string(*ours) + "'?" : didYouMean(name, names);
    fail(loc, "'Tensor' object has no attribute '" + name + "'" + hint);
  }
  auto m = std::make_shared<MethodObj>();
  m->self = obj;
  m->name = name;
  m->fn = fn;
  return Value::object(Kind::Method, std::move(m));
}

}  // namespace nn::stdlib
