// The gradient rules (see gradient.h) of cross_entropy and of its gradient
// op. The common case (logits [N, C], class indices, no weight, the mean,
// no label smoothing) is one cross_entropy_grad op; every other is written
// in the ops below, from the loss as PyTorch defines it: with p the
// softmax and lsm the log-softmax over the class dim, each position's loss
// is -sum over the classes of a * lsm for a coefficient vector a (for a
// class index y, (1 - eps) w[y] at y plus eps / C times w everywhere, 0
// where y is ignore_index; for class probabilities t, w (t (1 - eps) +
// eps / C)), so its gradient with respect to the logits is
// u (sum(a) p - a), u the position's share of the reduction's adjoint.
#include <string>

#include "ir/gradient.h"
#include "support/diagnostics.h"

namespace nn::ir {

namespace {

// The call's arguments as the rules need them.
struct CrossEntropyCall {
  int64_t classDim;
  int64_t ignore;
  std::string reduction;
  double smoothing;
  Value* weight;  // null without one
};

// A static size the rule needs (the class count, the positions of a mean).
int64_t knownDim(const GradientBuilder& b, Value* v, size_t dim, const char* why) {
  const Type& t = v->type();
  if (!t.shape || dim >= t.shape->size() || !(*t.shape)[dim].isKnown())
    fail(b.forward.loc(),
         std::string("the gradient of cross_entropy is not supported for an input of unknown shape (") + why + ")");
  return (*t.shape)[dim].size;
}

// weight [C] as input-shaped broadcasting: [1, C, 1, ...] (itself for a
// 1-d input).
Value* weightAlongClasses(GradientBuilder& b, const CrossEntropyCall& c, size_t rank) {
  if (rank == 1) return c.weight;
  Ints shape(rank, 1);
  shape[1] = -1;
  return b.emit(Op::Reshape, {c.weight}, {{"shape", shape}});
}

// Class indices: the one-hot part through a scatter-add of each position's
// coefficient at its class, the smoothing part through the weight (or 1)
// everywhere.
Value* indexTargetsGradient(GradientBuilder& b, const CrossEntropyCall& c, size_t rank) {
  Value* x = b.operands[0];
  Value* p = b.emit(Op::Softmax, {x}, {{"axis", c.classDim}});
  Value* target = b.operands[1];
  Value* valid = b.emit(Op::Ne, {target, b.literal(c.ignore)});
  Value* safe = b.emit(Op::Where, {valid, target, b.literal(int64_t(0))});
  Value* counted = b.emit(Op::Where, {valid, b.constant(1.0), b.constant(0.0)});
  Value* weights = counted;  // w[y], 0 where ignored
  if (c.weight) {
    Value* flat = b.emit(Op::Reshape, {safe}, {{"shape", Ints{-1}}});
    Value* picked = b.emit(Op::Gather, {c.weight, flat}, {{"axis", int64_t(0)}});
    weights = b.mul(b.emit(Op::ReshapeLike, {picked, target}), counted);
  }
  Value* u = b.adjoint;
  if (c.reduction == "mean") u = b.div(u, b.emit(Op::Sum, {weights}));
  Value* share = b.unsqueeze(b.mul(u, weights), c.classDim);
  Value* zeros = b.emit(Op::ZerosLike, {p}, {{"dtype", NoneAttr{}}});
  Value* atClass = b.emit(Op::ScatterAdd, {zeros, b.unsqueeze(safe, c.classDim), share}, {{"axis", c.classDim}});
  Value* gx = b.sub(b.mul(share, p), atClass);
  if (c.smoothing == 0.0) return gx;
  double classes = static_cast<double>(knownDim(b, x, static_cast<size_t>(c.classDim), "label smoothing"));
  gx = b.mul(b.constant(1.0 - c.smoothing), gx);
  Value* spread = b.unsqueeze(b.mul(u, counted), c.classDim);
  Value* term = c.weight ? b.sub(b.mul(b.emit(Op::Sum, {c.weight}), p), weightAlongClasses(b, c, rank))
                         : b.sub(b.mul(b.constant(classes), p), b.constant(1.0));
  return b.add(gx, b.mul(b.mul(b.constant(c.smoothing / classes), spread), term));
}

// Class probabilities t: a = w (t (1 - eps) + eps / C); the logits'
// gradient u (sum(a) p - a), t's -u (1 - eps) w lsm, the weight's -u t' lsm
// summed to [C], each where wanted.
void probabilityTargetsGradients(GradientBuilder& b, const CrossEntropyCall& c, size_t rank) {
  Value* x = b.operands[0];
  Value* target = b.operands[1];
  Value* u = b.adjoint;
  if (c.reduction == "mean") {
    double positions = 1;
    for (size_t d = 0; d < rank; ++d)
      if (static_cast<int64_t>(d) != c.classDim) positions *= static_cast<double>(knownDim(b, x, d, "mean"));
    u = b.div(u, b.constant(positions));
  }
  if (c.reduction == "none") u = b.unsqueeze(u, c.classDim);
  double classes =
      c.smoothing > 0 ? static_cast<double>(knownDim(b, x, static_cast<size_t>(c.classDim), "label smoothing")) : 1.0;
  Value* smoothed =
      c.smoothing > 0 ? b.add(b.mul(target, b.constant(1.0 - c.smoothing)), b.constant(c.smoothing / classes)) : target;
  Value* wB = c.weight ? weightAlongClasses(b, c, rank) : nullptr;
  Value* a = wB ? b.mul(smoothed, wB) : smoothed;
  bool targetWanted = b.wanted[1], weightWanted = c.weight && b.wanted.size() > 2 && b.wanted[2];
  if (targetWanted || weightWanted) {
    Value* lsm = b.emit(Op::LogSoftmax, {x}, {{"axis", c.classDim}});
    Value* back = b.neg(b.mul(u, lsm));
    if (targetWanted) {
      Value* gt = c.smoothing > 0 ? b.mul(back, b.constant(1.0 - c.smoothing)) : back;
      b.grads[1] = wB ? b.mul(gt, wB) : gt;
    }
    if (weightWanted) b.grads[2] = b.emit(Op::ReshapeLike, {b.sumTo(b.mul(back, smoothed), wB), c.weight});
  }
  if (!b.wanted[0]) return;
  Value* p = b.emit(Op::Softmax, {x}, {{"axis", c.classDim}});
  Value* total = b.emit(Op::Sum, {a}, {{"axis", c.classDim}, {"keepdims", true}});
  b.grads[0] = b.mul(u, b.sub(b.mul(total, p), a));
}

}  // namespace

void GradCrossEntropy(GradientBuilder& b) {
  size_t rank = b.rankOf(0);
  const Type& targetType = b.operands[1]->type();
  if (!targetType.dtype)
    fail(b.forward.loc(), "the gradient of cross_entropy is not supported for a target of unknown dtype");
  bool indices = isIntegral(*targetType.dtype);
  CrossEntropyCall c{rank >= 2 ? 1 : 0, b.integer("ignore_index", -100), b.text("reduction", "mean"),
                     b.number("label_smoothing", 0.0),
                     b.operands.size() > 2 && b.operands[2]->type().kind != TypeKind::None ? b.operands[2] : nullptr};
  if (indices && c.weight && b.wanted.size() > 2 && b.wanted[2])
    fail(b.forward.loc(), "the gradient of cross_entropy with respect to weight is not supported for class indices");
  if (!indices) return probabilityTargetsGradients(b, c, rank);
  if (!b.wanted[0]) return;
  if (rank == 2 && !c.weight && c.reduction == "mean" && c.smoothing == 0.0)
    b.grads[0] = b.emit(Op::CrossEntropyGrad, {b.adjoint, b.operands[0], b.operands[1]}, {{"ignore_index", c.ignore}});
  else
    b.grads[0] = indexTargetsGradient(b, c, rank);
}

// Its gradient, for second derivatives: with p = softmax(logits), v the
// rows counted (labels not ignore_index) and s = g / sum(v), the output
// v (p - one_hot) s gives g the adjoint A's sum of v A (p - one_hot) over
// sum(v), and logits softmax's Jacobian applied to v A s: p (v A s -
// sum(v A s p)) along the classes.
void GradCrossEntropyGrad(GradientBuilder& b) {
  Value* g = b.operands[0];
  Value* logits = b.operands[1];
  Value* labels = b.operands[2];
  Value* valid = b.emit(Op::Ne, {labels, b.literal(b.integer("ignore_index", -100))});
  Value* counted = b.emit(Op::Where, {valid, b.constant(1.0), b.constant(0.0)});
  Value* rows = b.unsqueeze(counted, 1);
  Value* count = b.emit(Op::Sum, {counted});
  Value* p = b.emit(Op::Softmax, {logits}, {{"axis", int64_t(1)}});
  if (b.wanted[0]) {
    Value* safe = b.unsqueeze(b.emit(Op::Where, {valid, labels, b.literal(int64_t(0))}), 1);
    Value* atLabels = b.emit(Op::Gather, {b.adjoint, safe}, {{"axis", int64_t(1)}});
    Value* inner = b.sub(b.emit(Op::Sum, {b.mul(b.mul(b.adjoint, p), rows)}), b.emit(Op::Sum, {b.mul(atLabels, rows)}));
    b.grads[0] = b.div(inner, count);
  }
  if (b.wanted[1]) {
    Value* scaled = b.mul(b.mul(b.adjoint, b.div(g, count)), rows);
    Value* dot = b.emit(Op::Sum, {b.mul(scaled, p)}, {{"axis", int64_t(1)}, {"keepdims", true}});
    b.grads[1] = b.mul(p, b.sub(scaled, dot));
  }
}

}  // namespace nn::ir
