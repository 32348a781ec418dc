// The tensor builtins and methods (language.md §5): every tensor op that
// ops.def marks FUNC is a builtin function of its name and every op marked
// METHOD a tensor method (x.sum(axis=1) is sum(x, axis=1)); both bind
// their arguments to the op's signature and run its one implementation
// (op_call.h, tensor_op_impls.cpp). Also the tensor attributes (x.shape,
// x.T, ...), seed(), and the language ops that are also builtins
// (pow/neg/matmul, x.add(y), x.lt(0)).
#include <tuple>
#include <unordered_map>

#include "ir/builtins.h"
#include "ir/shape_rules.h"
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

// _randrange(low, high): randint(low, high, (1,))[0] as an int, from the
// same generator and by the same draw, so that random.nn's scalar draws
// cost no tensor and a seed repeats them as it did.
Value bRandRange(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  int64_t low = toIndex(args[0], c.loc), high = toIndex(args[1], c.loc);
  if (high <= low) fail(c.loc, "_randrange(): high must be greater than low", ErrorClass::ValueError);
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return Value::integer(static_cast<int64_t>(static_cast<uint64_t>(low) + c.interp.rng().below(range)));
}

// _random(): random.random()'s float, as CPython makes it from 27 and 26
// random bits: randint(0, 2**27, (2,)) drawn, the second halved.
Value bRandomFloat(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 0);
  RandomGenerator& rng = c.interp.rng();
  uint64_t high = rng.below(uint64_t(1) << 27);
  uint64_t low = rng.below(uint64_t(1) << 27) / 2;
  return Value::real((static_cast<double>(high) * 67108864.0 + static_cast<double>(low)) * (1.0 / 9007199254740992.0));
}

Value bSeed(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  c.interp.rng().reseed(static_cast<uint64_t>(toIndex(args[0], c.loc)));
  return Value::none();
}

// A tensor op's builtin function: the op named by the builtin (kept with
// the builtin object where the call came through it).
Value bTensorOp(CallContext& c, std::vector<Value>& args) {
  ir::Op op = c.builtin && c.builtin->op >= 0 ? static_cast<ir::Op>(c.builtin->op) : *ir::functionOp(c.name);
  return callTensorOp(c, op, args);
}
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
  Value r = callTensorOp(named, m.op, args);
  c.markAllUsed();  // through `named`
  return r;
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

// The tensor methods that are no op, by name.
BuiltinFn ownMethod(const std::string& name) {
  if (name == "size") return bSize;
  if (name == "numel") return bNumel;
  if (name == "dim") return bDim;
  return nullptr;
}

// PyTorch's in-place forms (x.add_(1), x.zero_()) have no counterpart:
// tensors are values. The message says what to write instead.
std::string inPlaceHint(const std::string& name) {
  if (name.size() < 2 || name.back() != '_' || name[name.size() - 2] == '_') return "";
  std::string plain = name.substr(0, name.size() - 1);
  std::string instead = ir::methodOp(plain) || ownMethod(plain) || pytorchTensorMethod(plain) ? "x = x." + plain + "(...)"
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
  table[ir::builtinInfo(ir::Builtin::ManualSeed).name] = bSeed;  // PyTorch's name
  table[ir::builtinInfo(ir::Builtin::RandRange).name] = bRandRange;
  table[ir::builtinInfo(ir::Builtin::RandomFloat).name] = bRandomFloat;
}

Value tensorMath(CallContext& c, const Value& x, nn::ir::Op op) {
  std::vector<Value> params{x};
  return runTensorOp(c.interp, op, params, c.loc);  // (where a tape sees it)
}

Value tensorReduction(CallContext& c, std::vector<Value>& args, ir::Op op) { return callTensorOp(c, op, args); }

const std::vector<std::string>& tensorAttributeNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"shape", "dtype", "ndim", "device", "T", "mT"};
    out.insert(out.end(), ir::tensorOwnMethodNames().begin(), ir::tensorOwnMethodNames().end());
    return out;
  }();
  return names;
}

namespace {

// The function of a tensor's method `name` (called with the tensor first),
// or null: PyTorch's own methods first (`to` is also an op's method, and
// takes a dtype besides the op's device), then the ops' methods (x.exp()
// is exp(x), x.softmax(1) is softmax(x, 1)), then nn's own (x.size()).
BuiltinFn findTensorMethod(const std::string& name) {
  if (BuiltinFn fn = pytorchTensorMethod(name)) return fn;
  std::optional<ir::Op> op = ir::methodOp(name);
  return op ? methodFn(*op) : ownMethod(name);
}

// findTensorMethod of a name a tensor's methods have, from a table hashed
// once: x.sum(1) on a value of unknown type looks its method up on every
// call, which by the chains of names above was a tenth of the call.
BuiltinFn tensorMethodNamed(const std::string& name) {
  static const std::unordered_map<std::string, BuiltinFn> byName = [] {
    std::unordered_map<std::string, BuiltinFn> m;
    for (const std::string& n : ir::tensorMethodNames()) m.emplace(n, findTensorMethod(n));
    for (const std::string& n : ir::tensorOwnMethodNames()) m.emplace(n, findTensorMethod(n));
    return m;
  }();
  auto it = byName.find(name);
  return it != byName.end() ? it->second : findTensorMethod(name);
}

}  // namespace

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
  if (std::optional<ir::AttributeOp> a = ir::tensorAttributeOp(name)) {
    // Two dims to swap (x.mT) need a matrix or a batch of them.
    std::string error;
    auto perm = ir::shape_rules::permutationOf(t.ndim(), a->axes, /*swap=*/true, error);
    if (!perm)
      fail(loc, "x." + name + " needs a matrix or a batch of matrices: x is " + typeString(t), ErrorClass::ValueError);
    return makeTensorValue(transpose(t, *perm, loc));
  }
  BuiltinFn fn = tensorMethodNamed(name);
  if (!fn) {
    if (std::string hint = inPlaceHint(name); !hint.empty())
      fail(loc, "'Tensor' object has no attribute '" + name + "'" + hint, ErrorClass::AttributeError);
    if (std::string hint = pytorchAttributeHint(name); !hint.empty())
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
