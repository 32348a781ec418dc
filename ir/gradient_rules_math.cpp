// The gradient rules (see gradient.h) of the elementwise math ops beyond
// the activations: log1p, expm1, square, reciprocal, the logarithms and
// exponentials of other bases, the trigonometric and hyperbolic functions
// and their inverses past sin, cos and tanh, erfc, erfinv and the gamma
// family (lgamma, digamma, polygamma), and the two-argument functions
// atan2, hypot, copysign and fmod. Each is the adjoint times the derivative,
// from the result where PyTorch's uses it, in PyTorch's order of
// operations (so a zero denominator gives its NaN where it gives one).
#include <cmath>

#include "ir/gradient.h"

namespace nn::ir {

void GradLog1p(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.div(b.adjoint, b.add(b.operands[0], b.constant(1.0)));
}

// From the result: e^x = expm1(x) + 1, 1 / cos^2 x = 1 + tan^2 x.
void GradExpm1(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.add(b.result(), b.constant(1.0)));
}
void GradTan(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.add(b.mul(b.result(), b.result()), b.constant(1.0)));
}

void GradAtan(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.div(b.adjoint, b.add(b.mul(x, x), b.constant(1.0)));
}

void GradSquare(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.mul(b.operands[0], b.constant(2.0)));
}

// -1 / x^2 = -y^2.
void GradReciprocal(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.neg(b.mul(b.adjoint, b.mul(b.result(), b.result())));
}

void GradLog2(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.div(b.adjoint, b.mul(b.operands[0], b.constant(M_LN2)));
}
void GradLog10(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.div(b.adjoint, b.mul(b.operands[0], b.constant(M_LN10)));
}

void GradSinh(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::Cosh, {b.operands[0]}));
}
void GradCosh(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::Sinh, {b.operands[0]}));
}

// asin' = 1 / sqrt(1 - x^2), acos' its negation.
void GradAsin(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.div(b.adjoint, b.emit(Op::Sqrt, {b.sub(b.constant(1.0), b.mul(x, x))}));
}
void GradAcos(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.neg(b.div(b.adjoint, b.emit(Op::Sqrt, {b.sub(b.constant(1.0), b.mul(x, x))})));
}

// acosh' = 1 / sqrt(x^2 - 1), asinh' = 1 / sqrt(x^2 + 1), atanh' = 1 / (1 - x^2).
void GradAcosh(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.mul(b.adjoint, b.emit(Op::Rsqrt, {b.sub(b.mul(x, x), b.constant(1.0))}));
}
void GradAsinh(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.mul(b.adjoint, b.emit(Op::Rsqrt, {b.add(b.mul(x, x), b.constant(1.0))}));
}
void GradAtanh(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.div(b.adjoint, b.sub(b.constant(1.0), b.mul(x, x)));
}

// From the result: (2^x)' = 2^x ln 2.
void GradExp2(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.mul(b.result(), b.constant(M_LN2)));
}

// erfc' = -2 / sqrt(pi) e^(-x^2); erfinv' = sqrt(pi) / 2 e^(erfinv(x)^2),
// from the result.
void GradErfc(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* density = b.emit(Op::Exp, {b.neg(b.mul(x, x))});
  b.grads[0] = b.mul(b.adjoint, b.mul(density, b.constant(-M_2_SQRTPI)));
}
void GradErfinv(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* y = b.result();
  b.grads[0] = b.mul(b.adjoint, b.mul(b.emit(Op::Exp, {b.mul(y, y)}), b.constant(0.5 * std::sqrt(M_PI))));
}

// lgamma' = digamma, digamma' = polygamma(1, x), and polygamma(n, x)' =
// polygamma(n + 1, x); the order n (a number) has none.
void GradLgamma(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::Digamma, {b.operands[0]}));
}
void GradDigamma(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::Polygamma, {b.constant(1.0), b.operands[0]}));
}
void GradPolygamma(GradientBuilder& b) {
  if (!b.wanted[1]) return;
  Value* order = b.add(b.operands[0], b.constant(1.0));
  b.grads[1] = b.sumTo(b.mul(b.adjoint, b.emit(Op::Polygamma, {order, b.operands[1]})), b.operands[1]);
}

// atan2(a, b) = the angle of (b, a): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
void GradAtan2(GradientBuilder& b) {
  Value* y = b.operands[0];
  Value* x = b.operands[1];
  Value* recip = b.div(b.constant(1.0), b.add(b.mul(y, y), b.mul(x, x)));
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.mul(b.mul(b.adjoint, x), recip), y);
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.mul(b.mul(b.adjoint, b.neg(y)), recip), x);
}

// hypot(a, b) = sqrt(a^2 + b^2): d/da = a / hypot, d/db = b / hypot.
void GradHypot(GradientBuilder& b) {
  for (size_t i = 0; i < 2; ++i)
    if (b.wanted[i]) b.grads[i] = b.sumTo(b.div(b.mul(b.adjoint, b.operands[i]), b.result()), b.operands[i]);
}

// copysign(a, b) = a or -a: d/da = result / a, 0 where a is 0 (PyTorch's
// choice there); no gradient flows to the sign's source b.
void GradCopysign(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* a = b.operands[0];
  Value* ratio = b.emit(Op::Where, {b.emit(Op::Eq, {a, b.constant(0.0)}), b.constant(0.0), b.div(b.result(), a)});
  b.grads[0] = b.sumTo(b.mul(b.adjoint, ratio), a);
}

// fmod(a, b) = a - trunc(a / b) * b.
void GradFmod(GradientBuilder& b) {
  Value* a = b.operands[0];
  Value* d = b.operands[1];
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.adjoint, a);
  if (b.wanted[1]) {
    Value* q = b.div(a, d);
    Value* negative = b.emit(Op::Lt, {q, b.constant(0.0)});
    Value* truncated = b.emit(Op::Where, {negative, b.emit(Op::Ceil, {q}), b.emit(Op::Floor, {q})});
    b.grads[1] = b.sumTo(b.neg(b.mul(b.adjoint, truncated)), d);
  }
}

}  // namespace nn::ir
