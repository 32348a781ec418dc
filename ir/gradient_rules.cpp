// The ops' gradient rules (vector-Jacobian products) that ops.def names,
// and the builder they are written with (see gradient.h). Each rule
// computes only the adjoints asked for (`wanted`): an operand that is a
// constant of the computation gets none, so, say, the exponent of x ** 2
// costs no log. Gradients flowing back through broadcasting are summed to
// the operand's shape (sum_to); ties of maximum/minimum split the gradient
// evenly, and relu's gradient at 0 is 0, as in PyTorch.
#include "ir/gradient.h"

#include "ir/type_rules.h"
#include "support/diagnostics.h"

namespace nn::ir {

GradientBuilder::GradientBuilder(Block& into, const Node& fwd, std::vector<Value*> in, Value* res, Value* adj,
                                 std::vector<bool> want)
    : forward(fwd),
      operands(std::move(in)),
      result(res),
      adjoint(adj),
      wanted(std::move(want)),
      grads(operands.size(), nullptr),
      into_(into) {
  wanted.resize(operands.size(), false);
}

Value* GradientBuilder::emit(Op op, std::vector<Value*> in, std::vector<std::pair<std::string, Attr>> attrs) {
  Node* n = build(&into_, op, forward.loc(), std::move(in), 1);
  n->setInlinedAt(forward.inlinedAt());
  for (auto& [name, value] : attrs) n->setAttr(name, std::move(value));
  n->result(0)->setType(resultType(*n, 0));
  return n->result(0);
}

Value* GradientBuilder::constant(double v) {
  Node* n = build(&into_, Op::Const, forward.loc(), {}, 1);
  n->setAttr("value", v);
  n->result(0)->setType(TypeKind::Float);
  return n->result(0);
}

size_t GradientBuilder::rankOf(size_t i) const {
  Type t = operands[i]->type();
  if (!t.isTensor() || !t.shape)
    fail(forward.loc(), std::string("the gradient of ") + forward.info().name +
                            " is not supported for operands of unknown rank");
  return t.shape->size();
}

void NoGradient(GradientBuilder& b) {
  fail(b.forward.loc(), std::string("the gradient of '") + b.forward.info().name + "' is not supported yet");
}

void ZeroGradient(GradientBuilder&) {}

namespace {

// Transposes the last two dimensions of a value of rank `rank`.
Value* swapLast(GradientBuilder& b, Value* v, size_t rank) {
  Ints perm;
  for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(i));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return b.emit(Op::Transpose, {v}, {{"axes", perm}});
}

Value* unsqueeze(GradientBuilder& b, Value* v, int64_t axis) {
  return b.emit(Op::Unsqueeze, {v}, {{"axis", axis}});
}

Value* squeeze(GradientBuilder& b, Value* v, int64_t axis) { return b.emit(Op::Squeeze, {v}, {{"axis", axis}}); }

Value* matmul(GradientBuilder& b, Value* x, Value* y) { return b.emit(Op::MatMul, {x, y}); }

// The mask that picks the first operand of maximum (greater) or minimum
// (less): 1 where it wins, 1/2 at ties, 0 elsewhere.
Value* winnerMask(GradientBuilder& b, Op wins) {
  Value* x = b.operands[0];
  Value* y = b.operands[1];
  Value* ties = b.mul(b.emit(Op::Eq, {x, y}), b.constant(0.5));
  return b.add(b.emit(wins, {x, y}), ties);
}

void minMax(GradientBuilder& b, Op wins) {
  Value* first = winnerMask(b, wins);
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.mul(b.adjoint, first), b.operands[0]);
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.mul(b.adjoint, b.sub(b.constant(1.0), first)), b.operands[1]);
}

Attr attrOr(const GradientBuilder& b, const char* name, Attr fallback) {
  const Attr* a = b.attr(name);
  return a ? *a : fallback;
}

void reduction(GradientBuilder& b, bool mean) {
  if (!b.wanted[0]) return;
  b.grads[0] = b.emit(Op::ReduceGrad, {b.adjoint, b.operands[0]},
                      {{"axis", attrOr(b, "axis", NoneAttr{})},
                       {"keepdims", attrOr(b, "keepdims", false)},
                       {"mean", mean}});
}

}  // namespace

// ---- arithmetic ----

void GradAdd(GradientBuilder& b) {
  for (size_t i = 0; i < 2; ++i)
    if (b.wanted[i]) b.grads[i] = b.sumTo(b.adjoint, b.operands[i]);
}

void GradSub(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.adjoint, b.operands[0]);
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.neg(b.adjoint), b.operands[1]);
}

void GradMul(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.mul(b.adjoint, b.operands[1]), b.operands[0]);
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.mul(b.adjoint, b.operands[0]), b.operands[1]);
}

// a / b: d/da = 1/b, d/db = -(a/b)/b.
void GradDiv(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.div(b.adjoint, b.operands[1]), b.operands[0]);
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.neg(b.div(b.mul(b.adjoint, b.result), b.operands[1])), b.operands[1]);
}

// a % b = a - floor(a / b) * b.
void GradMod(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.adjoint, b.operands[0]);
  if (b.wanted[1]) {
    Value* q = b.emit(Op::Floor, {b.div(b.operands[0], b.operands[1])});
    b.grads[1] = b.sumTo(b.neg(b.mul(b.adjoint, q)), b.operands[1]);
  }
}

// a ** e: d/da = e * a ** (e - 1), d/de = a ** e * log(a).
void GradPow(GradientBuilder& b) {
  Value* a = b.operands[0];
  Value* e = b.operands[1];
  if (b.wanted[0]) {
    Value* lower = b.emit(Op::Pow, {a, b.sub(e, b.constant(1.0))});
    b.grads[0] = b.sumTo(b.mul(b.adjoint, b.mul(e, lower)), a);
  }
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.mul(b.adjoint, b.mul(b.result, b.emit(Op::Log, {a}))), e);
}

void GradNeg(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.neg(b.adjoint);
}

void GradPos(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.adjoint;
}

// Matrix products by the operands' ranks (NumPy's matmul: a 1-D operand is
// a row on the left and a column on the right; leading dimensions are batch
// dimensions that broadcast, so their gradients are summed back).
void GradMatMul(GradientBuilder& b) {
  Value* x = b.operands[0];
  Value* y = b.operands[1];
  Value* g = b.adjoint;
  size_t rx = b.rankOf(0), ry = b.rankOf(1);
  if (rx == 1 && ry == 1) {
    if (b.wanted[0]) b.grads[0] = b.mul(g, y);
    if (b.wanted[1]) b.grads[1] = b.mul(g, x);
  } else if (rx == 1) {  // (k) @ (..., k, n) -> (..., n)
    if (b.wanted[0]) b.grads[0] = b.sumTo(squeeze(b, matmul(b, y, unsqueeze(b, g, -1)), -1), x);
    if (b.wanted[1]) b.grads[1] = b.sumTo(matmul(b, unsqueeze(b, x, -1), unsqueeze(b, g, -2)), y);
  } else if (ry == 1) {  // (..., m, k) @ (k) -> (..., m)
    if (b.wanted[0]) b.grads[0] = b.sumTo(matmul(b, unsqueeze(b, g, -1), unsqueeze(b, y, 0)), x);
    if (b.wanted[1]) b.grads[1] = b.sumTo(matmul(b, swapLast(b, x, rx), g), y);
  } else {
    if (b.wanted[0]) b.grads[0] = b.sumTo(matmul(b, g, swapLast(b, y, ry)), x);
    if (b.wanted[1]) b.grads[1] = b.sumTo(matmul(b, swapLast(b, x, rx), g), y);
  }
}

// ---- attributes and elementwise math ----

void GradGetAttr(GradientBuilder& b) {
  if (b.wanted[0] && b.forward.strAttr("name") == "T") b.grads[0] = b.emit(Op::GetAttr, {b.adjoint}, {{"name", std::string("T")}});
}

void GradExp(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.result);
}

void GradLog(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.div(b.adjoint, b.operands[0]);
}

void GradSqrt(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.div(b.adjoint, b.mul(b.result, b.constant(2.0)));
}

// x ** -1/2: d/dx = -1/2 * x ** -1/2 / x.
void GradRsqrt(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.neg(b.div(b.mul(b.adjoint, b.result), b.mul(b.operands[0], b.constant(2.0))));
}

void GradAbs(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::Sign, {b.operands[0]}));
}

void GradSin(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::Cos, {b.operands[0]}));
}

void GradCos(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.neg(b.mul(b.adjoint, b.emit(Op::Sin, {b.operands[0]})));
}

void GradTanh(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.sub(b.constant(1.0), b.mul(b.result, b.result)));
}

void GradSigmoid(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.mul(b.result, b.sub(b.constant(1.0), b.result)));
}

void GradRelu(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::Gt, {b.operands[0], b.constant(0.0)}));
}

// x * s(x), s = sigmoid: d/dx = s * (1 + x * (1 - s)).
void GradSilu(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* s = b.emit(Op::Sigmoid, {x});
  Value* slope = b.mul(s, b.add(b.constant(1.0), b.mul(x, b.sub(b.constant(1.0), s))));
  b.grads[0] = b.mul(b.adjoint, slope);
}

void GradSoftplus(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::Sigmoid, {b.operands[0]}));
}

void GradWhere(GradientBuilder& b) {
  Value* c = b.operands[0];
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.emit(Op::Where, {c, b.adjoint, b.constant(0.0)}), b.operands[1]);
  if (b.wanted[2]) b.grads[2] = b.sumTo(b.emit(Op::Where, {c, b.constant(0.0), b.adjoint}), b.operands[2]);
}

void GradMaximum(GradientBuilder& b) { minMax(b, Op::Gt); }
void GradMinimum(GradientBuilder& b) { minMax(b, Op::Lt); }

// ---- reductions and shapes ----

void GradSum(GradientBuilder& b) { reduction(b, false); }
void GradMean(GradientBuilder& b) { reduction(b, true); }

void GradReshape(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::ReshapeLike, {b.adjoint, b.operands[0]});
}

// The inverse permutation (no axes: the reversal, its own inverse).
void GradTranspose(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Ints* axes = b.attr("axes") ? std::get_if<Ints>(b.attr("axes")) : nullptr;
  Ints inverse;
  if (axes && !axes->empty()) {
    int64_t rank = static_cast<int64_t>(axes->size());
    inverse.assign(axes->size(), 0);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t a = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
      if (a < 0 || a >= rank) fail(b.forward.loc(), "transpose: axes are not a permutation");
      inverse[a] = i;
    }
  }
  b.grads[0] = b.emit(Op::Transpose, {b.adjoint}, {{"axes", inverse}});
}

void GradExpand(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.adjoint, b.operands[0]);
}

// A cast back to the operand's dtype (integer operands get none).
void GradAsType(GradientBuilder& b) {
  Type t = b.operands[0]->type();
  if (!b.wanted[0] || !t.isTensor() || !t.dtype || !isFloating(*t.dtype)) return;
  b.grads[0] = b.emit(Op::AsType, {b.adjoint}, {{"dtype", std::string(dtypeName(*t.dtype))}});
}

// ---- neural-network ops ----

// y = x @ w.T + b.
void GradLinear(GradientBuilder& b) {
  Value* x = b.operands[0];
  Value* w = b.operands[1];
  Value* g = b.adjoint;
  size_t rx = b.rankOf(0);
  if (b.wanted[0]) b.grads[0] = matmul(b, g, w);
  if (b.wanted[1])
    b.grads[1] = rx == 1 ? matmul(b, unsqueeze(b, g, -1), unsqueeze(b, x, 0))
                         : b.sumTo(matmul(b, swapLast(b, g, rx), x), w);
  if (b.operands.size() > 2 && b.operands[2] && b.wanted[2]) b.grads[2] = b.sumTo(g, b.operands[2]);
}

// y = softmax(x): dx = y * (g - sum(g * y)) along the axis.
void GradSoftmax(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* y = b.result;
  Value* dot = b.emit(Op::Sum, {b.mul(b.adjoint, y)}, {{"axis", attrOr(b, "axis", int64_t(-1))}, {"keepdims", true}});
  b.grads[0] = b.mul(y, b.sub(b.adjoint, dot));
}

// y = log_softmax(x): dx = g - exp(y) * sum(g) along the axis.
void GradLogSoftmax(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* total = b.emit(Op::Sum, {b.adjoint}, {{"axis", attrOr(b, "axis", int64_t(-1))}, {"keepdims", true}});
  b.grads[0] = b.sub(b.adjoint, b.mul(b.emit(Op::Exp, {b.result}), total));
}

// mean((input - target) ** 2).
void GradMseLoss(GradientBuilder& b) {
  Value* d = b.sub(b.operands[0], b.operands[1]);
  Value* spread = b.emit(Op::ReduceGrad, {b.adjoint, d}, {{"axis", NoneAttr{}}, {"keepdims", false}, {"mean", true}});
  Value* g = b.mul(b.mul(spread, d), b.constant(2.0));
  if (b.wanted[0]) b.grads[0] = b.sumTo(g, b.operands[0]);
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.neg(g), b.operands[1]);
}

// ---- the ops the rules emit (so gradients of gradients exist) ----

void GradSumTo(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::BroadcastLike, {b.adjoint, b.operands[0]});
}

void GradBroadcastLike(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.adjoint, b.operands[0]);
}

void GradReshapeLike(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::ReshapeLike, {b.adjoint, b.operands[0]});
}

// reduce_grad spreads g over x's shape: its own gradient reduces back.
void GradReduceGrad(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr* mean = b.attr("mean");
  Op op = mean && *mean == Attr(true) ? Op::Mean : Op::Sum;
  b.grads[0] = b.emit(op, {b.adjoint}, {{"axis", attrOr(b, "axis", NoneAttr{})}, {"keepdims", attrOr(b, "keepdims", false)}});
}

}  // namespace nn::ir
