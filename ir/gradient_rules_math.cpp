// The gradient rules (see gradient.h) of the elementwise math ops beyond
// the activations: log1p, expm1, square, reciprocal, the logarithms and
// exponentials of other bases, and the trigonometric and hyperbolic
// functions past sin, cos and tanh. Each is the adjoint times the
// derivative, from the result where PyTorch's uses it.
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

}  // namespace nn::ir
