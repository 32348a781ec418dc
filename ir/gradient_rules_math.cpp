// The gradient rules (see gradient.h) of the elementwise math ops beyond
// the activations: log1p, expm1, square, reciprocal, the logarithms and
// exponentials of other bases, the trigonometric and hyperbolic functions
// and their inverses past sin, cos and tanh, erfc, erfinv and the gamma
// family (lgamma, digamma, polygamma, zeta), torch.special's Bessel and
// normal-distribution functions, the two-argument functions atan2,
// hypot, copysign and fmod, and frexp's mantissa. Each is the adjoint
// times the derivative, from the result where PyTorch's uses it, in
// PyTorch's order of operations (so a zero denominator gives its NaN where
// it gives one).
#include <cmath>
#include <string>

#include "ir/gradient.h"
#include "support/diagnostics.h"

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

// zeta(x, q)' in q = -x zeta(x + 1, q); PyTorch has no derivative in x
// (nor does nn: it would need zeta's derivative in its order).
void GradZeta(GradientBuilder& b) {
  if (b.wanted[0])
    fail(b.forward.loc(), "the gradient of zeta with respect to its first argument x is not supported");
  if (!b.wanted[1]) return;
  Value* x = b.operands[0];
  Value* slope = b.neg(b.mul(x, b.emit(Op::Zeta, {b.add(x, b.constant(1.0)), b.operands[1]})));
  b.grads[1] = b.sumTo(b.mul(b.adjoint, slope), b.operands[1]);
}

// d/dx P(a, x) = e^-x x^(a - 1) / gamma(a) = -d/dx Q(a, x), in PyTorch's
// form exp((a - 1) log x - x - lgamma(a)); PyTorch has no derivative in a
// (nor does nn).
void incompleteGammaGradient(GradientBuilder& b, bool upper) {
  if (b.wanted[0])
    fail(b.forward.loc(), std::string("the gradient of ") + b.forward.info().name +
                              " with respect to its first argument a is not supported");
  if (!b.wanted[1]) return;
  Value *a = b.operands[0], *x = b.operands[1];
  Value* exponent = b.sub(b.sub(b.mul(b.sub(a, b.constant(1.0)), b.emit(Op::Log, {x})), x), b.emit(Op::Lgamma, {a}));
  Value* slope = b.emit(Op::Exp, {exponent});
  b.grads[1] = b.sumTo(b.mul(b.adjoint, upper ? b.neg(slope) : slope), x);
}
void GradGammainc(GradientBuilder& b) { incompleteGammaGradient(b, false); }
void GradGammaincc(GradientBuilder& b) { incompleteGammaGradient(b, true); }

// i0' = i1; i0e' = i1e - sgn(x) i0e, from the result.
void GradI0(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::I1, {b.operands[0]}));
}
void GradI0e(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* slope = b.sub(b.emit(Op::I1e, {x}), b.mul(b.emit(Op::Sign, {x}), b.result()));
  b.grads[0] = b.mul(b.adjoint, slope);
}

// The derivative of an order-1 Bessel function f (i1, i1e, j1), of the
// form g(x) - f(x) / x, is 1/2 at 0 where the quotient is 0 / 0: within
// 2^-26 of 0 it is 1/2 (the next term, 3x^2 / 16, is below half an ulp of
// it), and x is held away from 0 in the quotient, so no NaN reaches a
// higher derivative through the other branch. `slope(safeX)` builds the
// derivative with 1 in place of the x near 0.
template <class Slope>
void orderOneBesselGradient(GradientBuilder& b, Slope slope) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* nearZero = b.emit(Op::Le, {b.emit(Op::Abs, {x}), b.constant(0x1p-26)});
  Value* safeX = b.emit(Op::Where, {nearZero, b.constant(1.0), x});
  b.grads[0] = b.mul(b.adjoint, b.emit(Op::Where, {nearZero, b.constant(0.5), slope(safeX)}));
}

// i1' = i0 - i1 / x; i1e' = i0e - i1e (sgn(x) + 1 / x).
void GradI1(GradientBuilder& b) {
  orderOneBesselGradient(
      b, [&](Value* safeX) { return b.sub(b.emit(Op::I0, {b.operands[0]}), b.div(b.result(), safeX)); });
}
void GradI1e(GradientBuilder& b) {
  orderOneBesselGradient(b, [&](Value* safeX) {
    Value* x = b.operands[0];
    Value* factor = b.add(b.emit(Op::Sign, {x}), b.div(b.constant(1.0), safeX));
    return b.sub(b.emit(Op::I0e, {x}), b.mul(b.result(), factor));
  });
}

// k0' = -k1, k1' = -k0 - k1 / x; scaled by e^x, k0e' = k0e - k1e and
// k1e' = k1e (1 - 1 / x) - k0e.
void GradK0(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.neg(b.mul(b.adjoint, b.emit(Op::K1, {b.operands[0]})));
}
void GradK1(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.neg(b.mul(b.adjoint, b.add(b.emit(Op::K0, {x}), b.div(b.result(), x))));
}
void GradK0e(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  b.grads[0] = b.mul(b.adjoint, b.sub(b.result(), b.emit(Op::K1e, {b.operands[0]})));
}
void GradK1e(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* slope = b.sub(b.mul(b.result(), b.sub(b.constant(1.0), b.div(b.constant(1.0), x))), b.emit(Op::K0e, {x}));
  b.grads[0] = b.mul(b.adjoint, slope);
}

// j0' = -j1, y0' = -y1; j1' = j0 - j1 / x (1/2 at 0), y1' = y0 - y1 / x.
void GradBesselJ0(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.neg(b.mul(b.adjoint, b.emit(Op::BesselJ1, {b.operands[0]})));
}
void GradBesselJ1(GradientBuilder& b) {
  orderOneBesselGradient(
      b, [&](Value* safeX) { return b.sub(b.emit(Op::BesselJ0, {b.operands[0]}), b.div(b.result(), safeX)); });
}
void GradBesselY0(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.neg(b.mul(b.adjoint, b.emit(Op::BesselY1, {b.operands[0]})));
}
void GradBesselY1(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.mul(b.adjoint, b.sub(b.emit(Op::BesselY0, {x}), b.div(b.result(), x)));
}

// erfcx' = 2x erfcx(x) - 2 / sqrt(pi); ndtri' = sqrt(2 pi) e^(ndtri(p)^2 / 2);
// log_ndtr' = e^(-x^2 / 2 - log_ndtr(x)) / sqrt(2 pi) (the normal density
// over the distribution function, finite where both underflow); each
// from the result.
void GradErfcx(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* slope = b.sub(b.mul(b.mul(x, b.constant(2.0)), b.result()), b.constant(M_2_SQRTPI));
  b.grads[0] = b.mul(b.adjoint, slope);
}
void GradNdtri(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* y = b.result();
  Value* slope = b.mul(b.emit(Op::Exp, {b.mul(b.mul(y, y), b.constant(0.5))}), b.constant(std::sqrt(2 * M_PI)));
  b.grads[0] = b.mul(b.adjoint, slope);
}
void GradLogNdtr(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* exponent = b.sub(b.mul(b.mul(x, x), b.constant(-0.5)), b.result());
  b.grads[0] = b.mul(b.adjoint, b.mul(b.emit(Op::Exp, {exponent}), b.constant(0.5 * M_2_SQRTPI * M_SQRT1_2)));
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

// frexp's mantissa m = x * 2^-e, e held for x's neighbourhood: dm/dx =
// 2^-e (PyTorch's grad / exponent.exp2()), exact for every exponent a
// power of two of x's dtype can hold.
void GradFrexpMantissa(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* exponent = b.emit(Op::FrexpExponent, {b.operands[0]});
  b.grads[0] = b.mul(b.adjoint, b.emit(Op::Exp2, {b.neg(exponent)}));
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
