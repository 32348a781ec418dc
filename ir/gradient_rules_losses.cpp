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

namespace {

// The adjoint of a reduced loss spread over the elementwise loss `like`:
// "mean" divides it by their count, "sum" copies it, "none" is it.
Value* spreadOfReduction(GradientBuilder& b, Value* like) {
  std::string reduction = b.text("reduction", "mean");
  if (reduction == "none") return b.adjoint;
  return b.emit(Op::ReduceGrad, {b.adjoint, like},
                {{"axis", NoneAttr{}}, {"keepdims", false}, {"mean", reduction == "mean"}});
}

}  // namespace

// binary_cross_entropy(p, y, weight) = -(y log p + (1 - y) log(1 - p))
// (times weight), reduced, the logs clamped at -100 as in PyTorch.
void GradBinaryCrossEntropy(GradientBuilder& b) {
  Value* p = b.operands[0];
  Value* y = b.operands[1];
  Value* weight = b.operands.size() > 2 && b.operands[2]->type().kind != TypeKind::None ? b.operands[2] : nullptr;
  if (weight && b.wanted[2])
    fail(b.forward.loc(), "the gradient of binary_cross_entropy with respect to weight is not supported");
  Value* adj = spreadOfReduction(b, p);
  if (weight) adj = b.mul(adj, weight);
  if (b.wanted[0]) {
    Value* slope = b.emit(Op::Maximum, {b.mul(p, b.sub(b.constant(1.0), p)), b.constant(1e-12)});
    b.grads[0] = b.sumTo(b.mul(adj, b.div(b.sub(p, y), slope)), p);
  }
  if (b.wanted[1]) {
    Value* logQ = b.emit(Op::Maximum, {b.emit(Op::Log, {b.sub(b.constant(1.0), p)}), b.constant(-100.0)});
    Value* logP = b.emit(Op::Maximum, {b.emit(Op::Log, {p}), b.constant(-100.0)});
    b.grads[1] = b.sumTo(b.mul(adj, b.sub(logQ, logP)), y);
  }
}

// (input - target) ** 2, reduced.
void GradMseLoss(GradientBuilder& b) {
  Value* d = b.sub(b.operands[0], b.operands[1]);
  Value* g = b.mul(b.mul(spreadOfReduction(b, d), d), b.constant(2.0));
  if (b.wanted[0]) b.grads[0] = b.sumTo(g, b.operands[0]);
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.neg(g), b.operands[1]);
}

}  // namespace nn::ir
