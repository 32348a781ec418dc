// PyTorch's elementwise functions that are exact compositions of nn's
// ops, written as PyTorch computes them: trunc (fix), frac, logaddexp(2),
// xlogy, sinc, deg2rad, rad2deg, heaviside, float_power, logit, fmax,
// fmin, ldexp, frexp, addcmul, addcdiv, rsub, logical_xor, signbit, isposinf,
// isneginf, isreal and mvlgamma, and polygamma (the check of its order, then its op
// or digamma's). Each runs its ops where a tape sees them, so it
// differentiates as they do (trunc's gradient is zero, as floor's), in
// every mode; arguments may be tensors or numbers, broadcast together; the
// ones PyTorch also has as tensor methods are methods too.
#include <cmath>
#include <utility>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// An operand: a tensor or a number; at least one of a function's is a
// tensor.
Value operand(CallContext& c, const std::vector<Value>& args, size_t at, const char* name) {
  Value v = argument(c, args, at, name, nullptr);
  if (!v.is(Kind::Tensor) && !v.isNumber())
    fail(c.loc, c.name + "(): " + name + " must be a Tensor or a number, not " + typeName(v), ErrorClass::TypeError);
  return v;
}

// A binary function's operands (input and `second`), at least one of them
// a tensor.
std::pair<Value, Value> operands(CallContext& c, std::vector<Value>& args, const char* second) {
  atMost(c, args, 2);
  Value a = operand(c, args, 0, "input"), b = operand(c, args, 1, second);
  c.checkKeywordsUsed(c.name.c_str());
  if (!a.is(Kind::Tensor) && !b.is(Kind::Tensor))
    fail(c.loc, c.name + "(): expects a Tensor for input or " + second, ErrorClass::TypeError);
  return {a, b};
}

Value unary(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value x = argument(c, args, 0, "input", nullptr);
  c.checkKeywordsUsed(c.name.c_str());
  if (!x.is(Kind::Tensor))
    fail(c.loc, c.name + "(): input must be a Tensor, not " + typeName(x), ErrorClass::TypeError);
  return x;
}

Value op1(CallContext& c, ir::Op op, const Value& x) { return applyOp(c, op, {x}); }

// trunc(x) (fix): towards zero, ceil below 0 and floor above (integers as
// they are).
Value truncated(CallContext& c, const Value& x) {
  if (!isFloating(tensorOf(x).dtype())) return x;
  return where(c, binary(c, ir::Op::Lt, x, Value::integer(0)), op1(c, ir::Op::Ceil, x), op1(c, ir::Op::Floor, x));
}
Value bTrunc(CallContext& c, std::vector<Value>& args) { return truncated(c, unary(c, args)); }

// frac(x) = x - trunc(x), of float tensors.
Value bFrac(CallContext& c, std::vector<Value>& args) {
  Value x = unary(c, args);
  if (!isFloating(tensorOf(x).dtype()))
    fail(c.loc, "frac(): expects a float tensor, not " + typeString(tensorOf(x)), ErrorClass::TypeError);
  return binary(c, ir::Op::Sub, x, truncated(c, x));
}

// x as a float tensor (integers and bools as f32, as PyTorch's float
// functions take them).
Value floating(CallContext& c, const Value& x) {
  if (!x.is(Kind::Tensor) || isFloating(tensorOf(x).dtype())) return x;
  return applyOp(c, ir::Op::AsType, {x, Value::dtype(static_cast<int>(DType::F32))});
}

// deg2rad(x) = x * (pi / 180), rad2deg(x) = x * (180 / pi).
Value bAngle(CallContext& c, std::vector<Value>& args) {
  Value x = floating(c, unary(c, args));
  return binary(c, ir::Op::Mul, x, Value::real(c.name == "deg2rad" ? M_PI / 180.0 : 180.0 / M_PI));
}

// sinc(x) = sin(pi x) / (pi x), 1 at 0.
Value bSinc(CallContext& c, std::vector<Value>& args) {
  Value x = floating(c, unary(c, args));
  Value zero = binary(c, ir::Op::Eq, x, Value::integer(0));
  Value px = binary(c, ir::Op::Mul, where(c, zero, Value::real(1.0), x), Value::real(M_PI));
  return where(c, zero, Value::real(1.0), binary(c, ir::Op::Div, op1(c, ir::Op::Sin, px), px));
}

// logaddexp(a, b) = log(exp(a) + exp(b)) without overflow, PyTorch's
// value: the larger plus log1p(exp(-|a - b|)), and a itself where both are
// the same infinity. Its gradient is that of s = b + softplus(a - b)
// (sigmoid(a - b) for a, the rest for b: half each at a tie, where the
// larger's and |a - b|'s would give all to one): under a tape the value
// is stop_gradient(value) + (s - stop_gradient(s)), the last term 0.
// logaddexp2(a, b) = log2(2^a + 2^b), the same in base 2: the larger plus
// log1p(2^-|a - b|) / ln 2, s = b + softplus((a - b) ln 2) / ln 2.
template <bool kBase2>
Value bLogaddexp(CallContext& c, std::vector<Value>& args) {
  auto [input, other] = operands(c, args, "other");
  Value a = floating(c, input), b = floating(c, other);
  auto natural = [&](Value v) { return kBase2 ? binary(c, ir::Op::Mul, v, Value::real(M_LN2)) : v; };
  auto inBase = [&](Value v) { return kBase2 ? binary(c, ir::Op::Div, v, Value::real(M_LN2)) : v; };
  Value larger = where(c, binary(c, ir::Op::Gt, a, b), a, b);
  Value gap = natural(binary(c, ir::Op::Mul, Value::real(-1.0), op1(c, ir::Op::Abs, binary(c, ir::Op::Sub, a, b))));
  Value sum = binary(c, ir::Op::Add, larger, inBase(op1(c, ir::Op::Log1p, op1(c, ir::Op::Exp, gap))));
  Value infinite = a.is(Kind::Tensor) ? op1(c, ir::Op::IsInf, a) : Value::boolean(std::isinf(a.asFloat()));
  Value sameInfinity = applyOp(c, ir::Op::LogicalAnd, {infinite, binary(c, ir::Op::Eq, a, b)});
  Value value = where(c, sameInfinity, a, sum);
  if (!c.interp.tape()) return value;
  Value smooth = binary(c, ir::Op::Add, b, inBase(op1(c, ir::Op::Softplus, natural(binary(c, ir::Op::Sub, a, b)))));
  Value zero = binary(c, ir::Op::Sub, smooth, op1(c, ir::Op::StopGradient, smooth));
  zero = where(c, op1(c, ir::Op::IsFinite, smooth), zero, Value::real(0.0));  // inf - inf is no 0
  return binary(c, ir::Op::Add, op1(c, ir::Op::StopGradient, value), zero);
}

// xlogy(x, y) = x * log(y), 0 where x is 0 (unless y is NaN).
Value bXlogy(CallContext& c, std::vector<Value>& args) {
  auto [input, other] = operands(c, args, "other");
  Value x = floating(c, input), y = floating(c, other);
  Value logY = y.is(Kind::Tensor) ? op1(c, ir::Op::Log, y) : Value::real(std::log(y.asFloat()));
  Value product = binary(c, ir::Op::Mul, x, logY);
  Value zero = binary(c, ir::Op::Eq, x, Value::integer(0));
  Value numberY = binary(c, ir::Op::Eq, y, y);  // y is not NaN
  return where(c, applyOp(c, ir::Op::LogicalAnd, {zero, numberY}), Value::real(0.0), product);
}

// heaviside(x, values): 0 below 0, 1 above, values where x is 0, in the
// dtype they promote to.
Value bHeaviside(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), values = argument(c, args, 1, "values", nullptr);
  c.checkKeywordsUsed("heaviside");
  for (const Value* v : {&x, &values})
    if (!v->is(Kind::Tensor)) fail(c.loc, "heaviside(): input and values must be Tensors", ErrorClass::TypeError);
  DType dt = ir::promote(tensorOf(x).dtype(), tensorOf(values).dtype());
  Value step =
      applyOp(c, ir::Op::AsType, {binary(c, ir::Op::Gt, x, Value::integer(0)), Value::dtype(static_cast<int>(dt))});
  Value typed = applyOp(c, ir::Op::AsType, {values, Value::dtype(static_cast<int>(dt))});
  return where(c, binary(c, ir::Op::Eq, x, Value::integer(0)), typed, step);
}

// float_power(a, b): a ** b in f64.
Value bFloatPower(CallContext& c, std::vector<Value>& args) {
  auto [a, b] = operands(c, args, "exponent");
  auto f64 = [&](const Value& v) {
    return v.is(Kind::Tensor) ? applyOp(c, ir::Op::AsType, {v, Value::dtype(static_cast<int>(DType::F64))})
                              : Value::real(v.asFloat());
  };
  return binary(c, ir::Op::Pow, f64(a), f64(b));
}

// logit(x, eps=None) = log(x / (1 - x)), x clamped to [eps, 1 - eps]
// first when eps is given (so the gradient is 0 outside, as PyTorch's).
Value bLogit(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value none = Value::none();
  Value x = floating(c, argument(c, args, 0, "input", nullptr)), eps = argument(c, args, 1, "eps", &none);
  c.checkKeywordsUsed("logit");
  if (!x.is(Kind::Tensor))
    fail(c.loc, std::string("logit(): input must be a Tensor, not ") + typeName(x), ErrorClass::TypeError);
  if (!eps.is(Kind::None)) {
    if (!eps.isNumber())
      fail(c.loc, std::string("logit(): eps must be a number, not ") + typeName(eps), ErrorClass::TypeError);
    double e = eps.asFloat();
    x = applyOp(c, ir::Op::Clip, {x, Value::real(e), Value::real(1.0 - e)});
  }
  return op1(c, ir::Op::Log, binary(c, ir::Op::Div, x, binary(c, ir::Op::Sub, Value::real(1.0), x)));
}

// fmax(a, b) and fmin(a, b): maximum and minimum where a NaN loses to a
// number; a where a >= b (a <= b) or b is NaN, else b, so a tie's gradient
// goes to a, as PyTorch's.
template <bool kMax>
Value bFextremum(CallContext& c, std::vector<Value>& args) {
  auto [a, b] = operands(c, args, "other");
  Value keepA = binary(c, kMax ? ir::Op::Ge : ir::Op::Le, a, b);
  Value bNaN = binary(c, ir::Op::Ne, b, b);
  return where(c, applyOp(c, ir::Op::LogicalOr, {keepA, bNaN}), a, b);
}

// ldexp(x, e) = x * 2^e, as PyTorch's (in float).
Value bLdexp(CallContext& c, std::vector<Value>& args) {
  auto [x, e] = operands(c, args, "other");
  return binary(c, ir::Op::Mul, floating(c, x), binary(c, ir::Op::Pow, Value::real(2.0), e));
}

// frexp(x) = (mantissa, exponent), x = mantissa * 2^exponent with 0.5 <=
// |mantissa| < 1, of a float tensor; the exponent an i32 tensor (as
// PyTorch's). The mantissa differentiates (by 2^-exponent).
Value bFrexp(CallContext& c, std::vector<Value>& args) {
  Value x = unary(c, args);
  if (!isFloating(tensorOf(x).dtype()))
    fail(c.loc, "frexp(): expects a float tensor, not " + typeString(tensorOf(x)), ErrorClass::TypeError);
  Value exponent =
      applyOp(c, ir::Op::AsType, {op1(c, ir::Op::FrexpExponent, x), Value::dtype(static_cast<int>(DType::I32))});
  return makeTuple({op1(c, ir::Op::FrexpMantissa, x), exponent});
}

// polygamma(n, x): digamma's n-th derivative, n a whole number >= 0 (as
// PyTorch's); the method x.polygamma(n) takes them the other way round.
Value polygammaOf(CallContext& c, const Value& n, const Value& x) {
  if (!n.isIntLike() || n.is(Kind::Bool))
    fail(c.loc, std::string("polygamma(): n must be an int, not ") + typeName(n), ErrorClass::TypeError);
  if (n.asInt() < 0)
    fail(c.loc, "polygamma(): n must be >= 0, not " + std::to_string(n.asInt()), ErrorClass::ValueError);
  if (!x.is(Kind::Tensor))
    fail(c.loc, std::string("polygamma(): input must be a Tensor, not ") + typeName(x), ErrorClass::TypeError);
  if (n.asInt() == 0) return op1(c, ir::Op::Digamma, x);
  return binary(c, ir::Op::Polygamma, Value::integer(n.asInt()), x);
}
Value bPolygamma(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value n = argument(c, args, 0, "n", nullptr), x = argument(c, args, 1, "input", nullptr);
  c.checkKeywordsUsed("polygamma");
  return polygammaOf(c, n, x);
}
Value bPolygammaMethod(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), n = argument(c, args, 1, "n", nullptr);
  c.checkKeywordsUsed("polygamma");
  return polygammaOf(c, n, x);
}

// addcmul(input, tensor1, tensor2, *, value=1) and addcdiv: input +
// value * tensor1 * tensor2 (or / tensor2), in PyTorch's order of
// operations; addcdiv refuses integer division, as PyTorch's.
Value bAddc(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value x = operand(c, args, 0, "input"), a = operand(c, args, 1, "tensor1"), b = operand(c, args, 2, "tensor2");
  const Value* value = c.kw("value");
  c.checkKeywordsUsed(c.name.c_str());
  if (value && !value->isNumber())
    fail(c.loc, c.name + "(): value must be a number, not " + typeName(*value), ErrorClass::TypeError);
  bool divides = c.name == "addcdiv";
  auto integral = [](const Value& v) { return v.is(Kind::Tensor) ? !isFloating(tensorOf(v).dtype()) : v.isIntLike(); };
  if (divides && integral(a) && integral(b))
    fail(c.loc, "addcdiv(): integer division of tensor1 by tensor2 is not supported; use float tensors",
         ErrorClass::TypeError);
  Value scaled = value && !(value->isIntLike() && value->asInt() == 1) ? binary(c, ir::Op::Mul, *value, a) : a;
  return binary(c, ir::Op::Add, x, binary(c, divides ? ir::Op::Div : ir::Op::Mul, scaled, b));
}

// rsub(input, other, alpha=1): other - alpha * input.
Value bRsub(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value one = Value::integer(1);
  Value x = operand(c, args, 0, "input"), other = operand(c, args, 1, "other");
  Value alpha = argument(c, args, 2, "alpha", &one);
  c.checkKeywordsUsed("rsub");
  if (!alpha.isNumber())
    fail(c.loc, std::string("rsub(): alpha must be a number, not ") + typeName(alpha), ErrorClass::TypeError);
  bool unit = alpha.isIntLike() && alpha.asInt() == 1;
  return binary(c, ir::Op::Sub, other, unit ? x : binary(c, ir::Op::Mul, alpha, x));
}

Value bLogicalXor(CallContext& c, std::vector<Value>& args) {
  auto [a, b] = operands(c, args, "other");
  return binary(c, ir::Op::Ne, binary(c, ir::Op::Ne, a, Value::integer(0)),
                binary(c, ir::Op::Ne, b, Value::integer(0)));
}

// signbit: the sign bit (set for -0.0 too, through copysign); isposinf,
// isneginf: +-inf; isreal: true everywhere (nn has no complex dtype).
Value bSignPredicate(CallContext& c, std::vector<Value>& args) {
  Value x = unary(c, args);
  DType type = tensorOf(x).dtype();
  Value none = applyOp(c, ir::Op::ZerosLike, {x, Value::dtype(static_cast<int>(DType::Bool))});
  if (c.name == "isreal") return applyOp(c, ir::Op::OnesLike, {x, Value::dtype(static_cast<int>(DType::Bool))});
  if (c.name == "signbit") {
    if (type == DType::Bool) return none;
    if (!isFloating(type)) return binary(c, ir::Op::Lt, x, Value::integer(0));
    return binary(c, ir::Op::Lt, applyOp(c, ir::Op::Copysign, {Value::real(1.0), x}), Value::integer(0));
  }
  if (!isFloating(type)) return none;
  return binary(c, ir::Op::Eq, x, Value::real(c.name == "isposinf" ? HUGE_VAL : -HUGE_VAL));
}

// mvlgamma(input, p): the multivariate log-gamma function, sum over j <
// p of lgamma(input - j / 2), plus p (p - 1) / 4 log(pi); every element
// must be above (p - 1) / 2 (torch.special.multigammaln's checks).
Value bMvlgamma(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value x = argument(c, args, 0, "input", nullptr), p = argument(c, args, 1, "p", nullptr);
  c.checkKeywordsUsed("mvlgamma");
  const Tensor& t = tensorArg(c, x, "input");
  if (!p.isIntLike() || p.asInt() < 1)
    fail(c.loc, "mvlgamma(): p must be an int of at least 1, not " + repr(p), ErrorClass::ValueError);
  int64_t order = p.asInt();
  double least = static_cast<double>(order - 1) / 2;
  Value above =
      applyOp(c, ir::Op::All, {binary(c, ir::Op::Gt, x, Value::real(least)), Value::none(), Value::boolean(false)});
  if (t.numel() > 0 && readableOnHost(tensorOf(above), c.loc).flatAsInt(0) == 0)
    fail(c.loc, "mvlgamma(): all elements must be greater than (p - 1) / 2 = " + repr(Value::real(least)),
         ErrorClass::ValueError);
  Value total = op1(c, ir::Op::Lgamma, x);
  for (int64_t j = 1; j < order; ++j)
    total = binary(c, ir::Op::Add, total, op1(c, ir::Op::Lgamma, binary(c, ir::Op::Sub, x, Value::real(j / 2.0))));
  return binary(c, ir::Op::Add, total, Value::real(static_cast<double>(order * (order - 1)) / 4 * std::log(M_PI)));
}

}  // namespace

BuiltinFn tensorMathCompositeMethod(const std::string& name) {
  if (name == "trunc" || name == "fix") return bTrunc;
  if (name == "frac") return bFrac;
  if (name == "deg2rad" || name == "rad2deg") return bAngle;
  if (name == "sinc") return bSinc;
  if (name == "logaddexp") return bLogaddexp<false>;
  if (name == "logaddexp2") return bLogaddexp<true>;
  if (name == "xlogy") return bXlogy;
  if (name == "heaviside") return bHeaviside;
  if (name == "float_power") return bFloatPower;
  if (name == "logit") return bLogit;
  if (name == "fmax") return bFextremum<true>;
  if (name == "fmin") return bFextremum<false>;
  if (name == "ldexp") return bLdexp;
  if (name == "frexp") return bFrexp;
  if (name == "polygamma") return bPolygammaMethod;
  if (name == "addcmul" || name == "addcdiv") return bAddc;
  if (name == "rsub") return bRsub;
  if (name == "mvlgamma") return bMvlgamma;
  if (name == "logical_xor") return bLogicalXor;
  if (name == "signbit" || name == "isposinf" || name == "isneginf" || name == "isreal") return bSignPredicate;
  return nullptr;
}

void addTensorMathComposites(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::Trunc, Builtin::Fix, Builtin::Frac, Builtin::Deg2rad, Builtin::Rad2deg, Builtin::Sinc,
                    Builtin::Logaddexp, Builtin::Logaddexp2, Builtin::Xlogy, Builtin::Heaviside, Builtin::FloatPower,
                    Builtin::Logit, Builtin::Fmax, Builtin::Fmin, Builtin::Ldexp, Builtin::Frexp, Builtin::Addcmul,
                    Builtin::Addcdiv, Builtin::Rsub, Builtin::LogicalXor, Builtin::Signbit, Builtin::Isposinf, Builtin::Isneginf,
                    Builtin::Isreal, Builtin::Mvlgamma})
    table[ir::builtinInfo(b).name] = tensorMathCompositeMethod(ir::builtinInfo(b).name);
  table[ir::builtinInfo(Builtin::Polygamma).name] = bPolygamma;
}

}  // namespace nn::stdlib
