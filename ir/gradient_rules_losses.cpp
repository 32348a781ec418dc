// The gradient rules (see gradient.h) of the losses: cross_entropy (its
// gradient an op of its own, which has a rule for second derivatives),
// ctc_loss (an op of its own, the kernel's alpha-beta recursion),
// binary_cross_entropy and mse_loss.
#include "ir/gradient.h"
#include "support/diagnostics.h"

namespace nn::ir {

// cross_entropy(logits [N, C], labels [N]) = mean of -log_softmax at the
// labels: d logits = (softmax(logits) - one_hot(labels)) * g / N, one op.
void GradCrossEntropy(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::CrossEntropyGrad, {b.adjoint, b.operands[0], b.operands[1]});
}

// Its gradient, for second derivatives: with p = softmax(logits) and s =
// g / N, the output (p - one_hot) * s gives g the adjoint A's sum of A (p
// - one_hot) / N, and logits softmax's Jacobian applied to A s: p (A s -
// sum(A s p)) along the classes.
void GradCrossEntropyGrad(GradientBuilder& b) {
  Type t = b.operands[1]->type();
  if (!t.isTensor() || !t.shape || t.shape->size() != 2 || !(*t.shape)[0].isKnown() || !(*t.shape)[1].isKnown())
    fail(b.forward.loc(), "the second derivative of cross_entropy is not supported for logits of unknown shape");
  int64_t n = (*t.shape)[0].size, classes = (*t.shape)[1].size;
  Value* p = b.emit(Op::Softmax, {b.operands[1]}, {{"axis", int64_t(1)}});
  Value* count = b.constant(static_cast<double>(n));
  if (b.wanted[0]) {
    Value* target = b.emit(Op::OneHot, {b.operands[2]}, {{"n", classes}});
    b.grads[0] = b.div(b.emit(Op::Sum, {b.mul(b.adjoint, b.sub(p, target))}), count);
  }
  if (b.wanted[1]) {
    Value* scaled = b.mul(b.adjoint, b.div(b.operands[0], count));
    Value* dot = b.emit(Op::Sum, {b.mul(scaled, p)}, {{"axis", int64_t(1)}, {"keepdims", true}});
    b.grads[1] = b.mul(p, b.sub(scaled, dot));
  }
}

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
