// The gradient rules (see gradient.h) of the losses: ctc_loss (an op of
// its own, the kernel's alpha-beta recursion), binary_cross_entropy and
// mse_loss (cross_entropy's are gradient_rules_cross_entropy.cpp's).
#include "ir/gradient.h"
#include "support/diagnostics.h"

namespace nn::ir {

// ctc_loss: its gradient op (the kernel's alpha-beta recursion), given the
// same arguments.
void GradCtcLoss(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  std::vector<Value*> in{b.adjoint};
  in.insert(in.end(), b.operands.begin(), b.operands.end());
  b.grads[0] = b.emit(Op::CtcLossGrad, in, b.attrs({"blank", "reduction", "zero_infinity"}));
}

// binary_cross_entropy(p, y) = mean(-(y log p + (1 - y) log(1 - p))), the
// logs clamped at -100 as in PyTorch.
void GradBinaryCrossEntropy(GradientBuilder& b) {
  Value* p = b.operands[0];
  Value* y = b.operands[1];
  Value* adj = b.emit(Op::ReduceGrad, {b.adjoint, p}, {{"axis", NoneAttr{}}, {"keepdims", false}, {"mean", true}});
  if (b.wanted[0]) {
    Value* slope = b.emit(Op::Maximum, {b.mul(p, b.sub(b.constant(1.0), p)), b.constant(1e-12)});
    b.grads[0] = b.mul(adj, b.div(b.sub(p, y), slope));
  }
  if (b.wanted[1]) {
    Value* logQ = b.emit(Op::Maximum, {b.emit(Op::Log, {b.sub(b.constant(1.0), p)}), b.constant(-100.0)});
    Value* logP = b.emit(Op::Maximum, {b.emit(Op::Log, {p}), b.constant(-100.0)});
    b.grads[1] = b.sumTo(b.mul(adj, b.sub(logQ, logP)), y);
  }
}

// mean((input - target) ** 2).
void GradMseLoss(GradientBuilder& b) {
  Value* d = b.sub(b.operands[0], b.operands[1]);
  Value* spread = b.emit(Op::ReduceGrad, {b.adjoint, d}, {{"axis", NoneAttr{}}, {"keepdims", false}, {"mean", true}});
  Value* g = b.mul(b.mul(spread, d), b.constant(2.0));
  if (b.wanted[0]) b.grads[0] = b.sumTo(g, b.operands[0]);
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.neg(g), b.operands[1]);
}

}  // namespace nn::ir
