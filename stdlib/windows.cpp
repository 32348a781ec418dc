// PyTorch's logspace(start, end, steps, base=10.0, *, dtype=None,
// device=None) and its signal windows: hann_window, hamming_window(...,
// alpha=0.54, beta=0.46), blackman_window, bartlett_window and
// kaiser_window(..., beta=12.0), each of window_length samples, periodic
// (the first window_length of one sample longer, for spectral analysis) by
// default. Composed of arange, linspace and elementwise ops in the asked
// dtype (f32 by default), with PyTorch's formulas.
#include <cmath>
#include <optional>
#include <utility>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// dtype= and device= as the creation ops take them (None: f32, the
// default device).
struct Placement {
  Value dtype, device;
};

Placement placementOf(CallContext& c) {
  const Value* dtype = c.kw("dtype");
  const Value* device = c.kw("device");
  Value type = dtype && !dtype->is(Kind::None) ? *dtype : Value::dtype(static_cast<int>(DType::F32));
  return {type, device ? *device : Value::none()};
}

Value bLogspace(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value ten = Value::real(10.0);
  Value start = argument(c, args, 0, "start", nullptr), end = argument(c, args, 1, "end", nullptr),
        steps = argument(c, args, 2, "steps", nullptr), base = argument(c, args, 3, "base", &ten);
  Placement p = placementOf(c);
  c.checkKeywordsUsed("logspace");
  if (!base.isNumber())
    fail(c.loc, std::string("logspace(): base must be a number, not ") + typeName(base), ErrorClass::TypeError);
  // The exponents in f64, so that an integer dtype gets base's exact powers.
  Value exponents =
      applyOp(c, ir::Op::Linspace, {start, end, steps, Value::dtype(static_cast<int>(DType::F64)), p.device});
  Value powers = binary(c, ir::Op::Pow, base, exponents);
  return applyOp(c, ir::Op::AsType, {powers, p.dtype});
}

// A window of no sample, or of one (a 1, whatever the formula), as
// PyTorch's; none for a longer one.
std::optional<Value> trivialWindow(CallContext& c, int64_t length, const Placement& p) {
  if (length > 1) return std::nullopt;
  return applyOp(c, ir::Op::Ones, {intsTuple({length}), p.dtype, p.device});
}

// The sample positions 0 .. n - 1 scaled by `scale` / (n - 1) (a periodic
// window computes one sample more and drops it at the end).
Value ramp(CallContext& c, int64_t n, double scale, const Placement& p) {
  Value at = applyOp(c, ir::Op::Arange, {Value::integer(n), Value::none(), Value::none(), p.dtype, p.device});
  return binary(c, ir::Op::Mul, at, Value::real(scale / static_cast<double>(n - 1)));
}

Value dropLastIfPeriodic(CallContext& c, const Value& w, int64_t n, bool periodic) {
  if (!periodic) return w;
  return indexAlong(c, w, 0, makeSlice(Value::integer(0), Value::integer(n - 1), Value::none()));
}

Value bWindow(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, c.name == "hamming_window" ? 4 : c.name == "kaiser_window" ? 3 : 2);
  Value yes = Value::boolean(true);
  Value lengthV = argument(c, args, 0, "window_length", nullptr), periodicV = argument(c, args, 1, "periodic", &yes);
  Value alpha = Value::real(0.54), beta = Value::real(c.name == "kaiser_window" ? 12.0 : 0.46);
  if (c.name == "hamming_window") {
    Value a = alpha, b = beta;
    alpha = argument(c, args, 2, "alpha", &a), beta = argument(c, args, 3, "beta", &b);
  } else if (c.name == "kaiser_window") {
    Value b = beta;
    beta = argument(c, args, 2, "beta", &b);
  }
  Placement p = placementOf(c);
  c.checkKeywordsUsed(c.name.c_str());
  if (!lengthV.isIntLike())
    fail(c.loc, c.name + "(): window_length must be an int, not " + typeName(lengthV), ErrorClass::TypeError);
  if (lengthV.asInt() < 0)
    fail(c.loc, c.name + "(): window_length must be non-negative, not " + std::to_string(lengthV.asInt()),
         ErrorClass::ValueError);
  if (!periodicV.is(Kind::Bool))
    fail(c.loc, c.name + "(): periodic must be a bool, not " + typeName(periodicV), ErrorClass::TypeError);
  for (auto [v, what] : {std::pair{alpha, "alpha"}, std::pair{beta, "beta"}})
    if (!v.isNumber())
      fail(c.loc, c.name + "(): " + what + " must be a number, not " + typeName(v), ErrorClass::TypeError);
  int64_t length = lengthV.asInt();
  bool periodic = periodicV.asBool();
  if (std::optional<Value> fixed = trivialWindow(c, length, p)) return *fixed;
  int64_t n = periodic ? length + 1 : length;
  Value w;
  if (c.name == "hann_window" || c.name == "hamming_window") {
    double a = c.name == "hann_window" ? 0.5 : alpha.asFloat(), b = c.name == "hann_window" ? 0.5 : beta.asFloat();
    Value cosine = applyOp(c, ir::Op::Cos, {ramp(c, n, 2 * M_PI, p)});
    w = binary(c, ir::Op::Add, binary(c, ir::Op::Mul, cosine, Value::real(-b)), Value::real(a));
  } else if (c.name == "blackman_window") {
    Value x = ramp(c, n, M_PI, p);
    Value four = applyOp(c, ir::Op::Cos, {binary(c, ir::Op::Mul, x, Value::real(4.0))});
    Value two = applyOp(c, ir::Op::Cos, {binary(c, ir::Op::Mul, x, Value::real(2.0))});
    w = binary(c, ir::Op::Add,
               binary(c, ir::Op::Sub, binary(c, ir::Op::Mul, four, Value::real(0.08)),
                      binary(c, ir::Op::Mul, two, Value::real(0.5))),
               Value::real(0.42));
  } else if (c.name == "bartlett_window") {
    // 2i / (n - 1) over the first half, 2 minus that over the rest.
    Value x = ramp(c, n, 2.0, p);
    Value at = applyOp(c, ir::Op::Arange, {Value::integer(n), Value::none(), Value::none(), p.dtype, p.device});
    Value rising = binary(c, ir::Op::Lt, at, Value::integer((n - 1) / 2 + 1));
    w = where(c, rising, x, binary(c, ir::Op::Sub, Value::real(2.0), x));
  } else {  // kaiser: I0(beta sqrt(1 - ((i - m) / m)^2)) / I0(beta), m = (n - 1) / 2
    double middle = static_cast<double>(n - 1) / 2;
    Value at = applyOp(c, ir::Op::Arange, {Value::integer(n), Value::none(), Value::none(), p.dtype, p.device});
    Value r = binary(c, ir::Op::Div, binary(c, ir::Op::Sub, at, Value::real(middle)), Value::real(middle));
    Value inside = applyOp(c, ir::Op::Sqrt, {binary(c, ir::Op::Sub, Value::real(1.0), binary(c, ir::Op::Mul, r, r))});
    Value bessel = applyOp(c, ir::Op::I0, {binary(c, ir::Op::Mul, inside, beta)});
    Value top = applyOp(c, ir::Op::I0, {applyOp(c, ir::Op::FullLike, {bessel, beta, Value::none()})});
    w = binary(c, ir::Op::Div, bessel, top);
  }
  return dropLastIfPeriodic(c, w, n, periodic);
}

}  // namespace

void addWindows(BuiltinTable& table) {
  using ir::Builtin;
  table[ir::builtinInfo(Builtin::Logspace).name] = bLogspace;
  for (Builtin b : {Builtin::HannWindow, Builtin::HammingWindow, Builtin::BlackmanWindow, Builtin::BartlettWindow,
                    Builtin::KaiserWindow})
    table[ir::builtinInfo(b).name] = bWindow;
}

}  // namespace nn::stdlib
