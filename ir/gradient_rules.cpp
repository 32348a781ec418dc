// The ops' gradient rules (vector-Jacobian products) that ops.def names,
// and the builder they are written with (see gradient.h). Each rule
// computes only the adjoints asked for (`wanted`): an operand that is a
// constant of the computation gets none, so, say, the exponent of x ** 2
// costs no log. Gradients flowing back through broadcasting are summed to
// the operand's shape (sum_to); ties of maximum/minimum split the gradient
// evenly, and relu's gradient at 0 is 0, as in PyTorch. The rules of the
// norms, of gather/scatter and of the losses are gradient_rules_norms.cpp's,
// gradient_rules_indexing.cpp's and gradient_rules_losses.cpp's.
#include "ir/gradient.h"

#include <cmath>

#include "ir/builtins.h"
#include "ir/type_rules.h"
#include "support/diagnostics.h"

namespace nn::ir {

GradientBuilder::GradientBuilder(Block& into, const Node& fwd, std::vector<Value*> in,
                                 std::function<Value*()> resultOf, Value* adj, std::vector<bool> want)
    : forward(fwd),
      operands(std::move(in)),
      adjoint(adj),
      wanted(std::move(want)),
      grads(operands.size(), nullptr),
      resultOf_(std::move(resultOf)),
      into_(into) {
  wanted.resize(operands.size(), false);
}

Value* GradientBuilder::emit(Op op, std::vector<Value*> in, std::vector<std::pair<std::string, Attr>> attrs) {
  Node* n = build(&into_, op, forward.loc(), std::move(in), 1);
  n->setInlinedAt(forward.inlinedAt());
  n->setBackward();
  for (auto& [name, value] : attrs) n->setAttr(name, std::move(value));
  n->result(0)->setType(resultType(*n, 0));
  return n->result(0);
}

Value* GradientBuilder::constant(double v) { return literal(v); }

Value* GradientBuilder::literal(Attr v) {
  Node* n = build(&into_, Op::Const, forward.loc(), {}, 1);
  n->setBackward();
  n->setAttr("value", std::move(v));
  n->result(0)->setType(resultType(*n, 0));
  return n->result(0);
}

double GradientBuilder::number(const char* name, double dflt) const {
  const Attr* a = attr(name);
  if (const double* d = a ? std::get_if<double>(a) : nullptr) return *d;
  if (const int64_t* i = a ? std::get_if<int64_t>(a) : nullptr) return static_cast<double>(*i);
  return dflt;
}

int64_t GradientBuilder::integer(const char* name, int64_t dflt) const {
  const Attr* a = attr(name);
  const int64_t* v = a ? std::get_if<int64_t>(a) : nullptr;
  return v ? *v : dflt;
}

std::string GradientBuilder::text(const char* name, const char* dflt) const {
  const Attr* a = attr(name);
  const std::string* v = a ? std::get_if<std::string>(a) : nullptr;
  return v ? *v : dflt;
}

std::vector<std::pair<std::string, Attr>> GradientBuilder::attrs(std::initializer_list<const char*> names) const {
  std::vector<std::pair<std::string, Attr>> out;
  for (const char* name : names)
    if (const Attr* a = attr(name)) out.emplace_back(name, *a);
  return out;
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
  return b.emit(Op::Permute, {v}, {{"dims", perm}});
}

Value* unsqueeze(GradientBuilder& b, Value* v, int64_t axis) {
  return b.emit(Op::Unsqueeze, {v}, {{"axis", axis}});
}

Value* squeeze(GradientBuilder& b, Value* v, int64_t axis) { return b.emit(Op::Squeeze, {v}, {{"axis", axis}}); }

Value* matmul(GradientBuilder& b, Value* x, Value* y) { return b.emit(Op::MatMul, {x, y}); }

// v (of rank `rank` >= 2) with its leading dims flattened into one:
// [N, last]. The gradient of a matrix shared by a batch of products (a
// weight) is then one product over the batch's rows, not a product per
// batch element summed afterwards, whose [..., m, n] temporary cost a
// transformer layer's training step half its time (134 MB at
// [128, 16, 1024]).
Value* leadingRows(GradientBuilder& b, Value* v, size_t rank) {
  if (rank == 2) return v;
  return b.emit(Op::Flatten, {v}, {{"start_dim", int64_t(0)}, {"end_dim", int64_t(-2)}});
}

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

// A value of the reduction's result shape (its adjoint, its result)
// spread back over the shape of operand 0; `mean` divides by the count.
Value* spread(GradientBuilder& b, Value* v, bool mean = false) {
  return b.emit(Op::ReduceGrad, {v, b.operands[0]},
                {{"axis", attrOr(b, "axis", NoneAttr{})}, {"keepdims", attrOr(b, "keepdims", false)}, {"mean", mean}});
}

void reduction(GradientBuilder& b, bool mean) {
  if (b.wanted[0]) b.grads[0] = spread(b, b.adjoint, mean);
}

// How many elements of operand 0 each result element of the reduction
// combines, from the types; fails (not supported) when they do not tell.
double reducedCount(GradientBuilder& b) {
  Type x = b.operands[0]->type(), r = b.result()->type();
  auto numel = [](const Type& t) -> double {
    if (!t.isTensor() || !t.shape) return -1;
    double n = 1;
    for (const Dim& d : *t.shape) {
      if (!d.isKnown()) return -1;
      n *= static_cast<double>(d.size);
    }
    return n;
  };
  double nx = numel(x), nr = numel(r);
  if (nx < 0 || nr <= 0)
    fail(b.forward.loc(), std::string("the gradient of ") + b.forward.info().name +
                              " is not supported for operands of unknown shape");
  return nx / nr;
}

// The gradient of var (of std when `root`): 2 (x - mean) / (n - ddof),
// times the adjoint (std: divided by 2 std).
void variance(GradientBuilder& b, bool root) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  double ddof = b.number("ddof", 0.0);
  double n = reducedCount(b);
  Value* adj = root ? b.div(b.adjoint, b.mul(b.result(), b.constant(2.0))) : b.adjoint;
  Value* mean = b.emit(Op::Mean, {x}, {{"axis", attrOr(b, "axis", NoneAttr{})}, {"keepdims", true}});
  Value* centred = b.sub(x, mean);
  b.grads[0] = b.mul(spread(b, adj), b.mul(centred, b.constant(2.0 / (n - ddof))));
}

// max/min: the adjoint goes to the elements equal to the result, split
// evenly among ties.
void extremum(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* hit = b.emit(Op::Eq, {b.operands[0], spread(b, b.result())});
  Value* ties = b.emit(Op::Sum, {hit}, {{"axis", attrOr(b, "axis", NoneAttr{})}, {"keepdims", attrOr(b, "keepdims", false)}});
  b.grads[0] = b.mul(spread(b, b.div(b.adjoint, ties)), hit);
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
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.neg(b.div(b.mul(b.adjoint, b.result()), b.operands[1])), b.operands[1]);
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
  if (b.wanted[1]) b.grads[1] = b.sumTo(b.mul(b.adjoint, b.mul(b.result(), b.emit(Op::Log, {a}))), e);
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
    if (b.wanted[1])
      b.grads[1] = ry == 2 && rx > 2
                       ? b.sumTo(matmul(b, swapLast(b, leadingRows(b, x, rx), 2), leadingRows(b, g, rx)), y)
                       : b.sumTo(matmul(b, swapLast(b, x, rx), g), y);
  }
}

// ---- attributes and elementwise math ----

// A tensor attribute that is an op (x.T, x.mT) is its own inverse: the
// gradient is that op of the adjoint.
void GradGetAttr(GradientBuilder& b) {
  std::optional<AttributeOp> a = tensorAttributeOp(b.forward.strAttr("name"));
  if (b.wanted[0] && a) b.grads[0] = b.emit(a->op, {b.adjoint}, {{"axes", a->axes}});
}

void GradExp(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.result());
}

void GradLog(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.div(b.adjoint, b.operands[0]);
}

void GradSqrt(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.div(b.adjoint, b.mul(b.result(), b.constant(2.0)));
}

// x ** -1/2: d/dx = -1/2 * x ** -1/2 / x.
void GradRsqrt(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.neg(b.div(b.mul(b.adjoint, b.result()), b.mul(b.operands[0], b.constant(2.0))));
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
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.sub(b.constant(1.0), b.mul(b.result(), b.result())));
}

void GradSigmoid(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.mul(b.result(), b.sub(b.constant(1.0), b.result())));
}

// Masked by the result, not the input (relu(x) > 0 exactly where x > 0),
// so the pre-activation need not be kept for the backward pass; `where`
// rather than a product with the mask spares a bool-to-float pass, and an
// infinite or NaN adjoint where x <= 0 gives 0, as PyTorch's
// threshold_backward does.
void GradRelu(GradientBuilder& b) {
  if (b.wanted[0])
    b.grads[0] = b.emit(Op::Where, {b.emit(Op::Gt, {b.result(), b.constant(0.0)}), b.adjoint, b.constant(0.0)});
}

// x * s(x), s = sigmoid: d/dx = s * (1 + x * (1 - s)) (silu_grad).
void GradSilu(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::SiluGrad, {b.operands[0]}));
}

// d/dx (s * (1 + x * (1 - s))), with s' = s * (1 - s):
// s' * (1 + x * (1 - s)) + s * (1 - s - x * s') = s' * (2 + x * (1 - 2 s)).
void GradSiluGrad(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* s = b.emit(Op::Sigmoid, {x});
  Value* slope = b.mul(s, b.sub(b.constant(1.0), s));
  Value* rest = b.add(b.constant(2.0), b.mul(x, b.sub(b.constant(1.0), b.mul(b.constant(2.0), s))));
  b.grads[0] = b.mul(b.adjoint, b.mul(slope, rest));
}

// The exact gelu, x * Phi(x): Phi(x) + x * phi(x) (gelu_grad), with Phi
// the normal distribution function 0.5 * (1 + erf(x / sqrt 2)) and phi its
// density.
void GradGelu(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(b.adjoint, b.emit(Op::GeluGrad, {b.operands[0]}));
}

// d/dx (Phi(x) + x * phi(x)) = 2 phi(x) + x * phi'(x) = phi(x) * (2 - x^2).
void GradGeluGrad(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  Value* square = b.mul(x, x);
  Value* pdf = b.mul(b.constant(0.5 * M_2_SQRTPI * M_SQRT1_2), b.emit(Op::Exp, {b.mul(square, b.constant(-0.5))}));
  b.grads[0] = b.mul(b.adjoint, b.mul(pdf, b.sub(b.constant(2.0), square)));
}

// d erf(x) = 2 / sqrt(pi) * exp(-x^2).
void GradErf(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  b.grads[0] = b.mul(b.adjoint, b.mul(b.constant(M_2_SQRTPI), b.emit(Op::Exp, {b.neg(b.mul(x, x))})));
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
void GradMax(GradientBuilder& b) { extremum(b); }
void GradMin(GradientBuilder& b) { extremum(b); }
void GradVar(GradientBuilder& b) { variance(b, false); }
void GradStd(GradientBuilder& b) { variance(b, true); }

// prod: result / x per element (operands with zeros are not supported:
// their gradient is not finite here).
void GradProd(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.mul(spread(b, b.adjoint), b.div(spread(b, b.result()), b.operands[0]));
}

// logsumexp: softmax of x along the axes, times the adjoint.
void GradLogSumExp(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* weights = b.emit(Op::Exp, {b.sub(b.operands[0], spread(b, b.result()))});
  b.grads[0] = b.mul(spread(b, b.adjoint), weights);
}

// clip(x, lo, hi): the adjoint where lo <= x <= hi, else to the bound
// that clipped (when it is a value being differentiated).
void GradClip(GradientBuilder& b) {
  Value* x = b.operands[0];
  auto given = [&](size_t i) { return b.operands.size() > i && b.operands[i]->type().kind != TypeKind::None; };
  Value* inside = nullptr;
  for (size_t i = 1; i <= 2; ++i) {
    if (!given(i)) continue;
    Value* ok = b.emit(i == 1 ? Op::Ge : Op::Le, {x, b.operands[i]});
    inside = inside ? b.emit(Op::LogicalAnd, {inside, ok}) : ok;
    if (b.wanted[i])
      b.grads[i] = b.sumTo(b.mul(b.adjoint, b.emit(i == 1 ? Op::Lt : Op::Gt, {x, b.operands[i]})), b.operands[i]);
  }
  if (b.wanted[0]) b.grads[0] = inside ? b.mul(b.adjoint, inside) : b.adjoint;
}

void GradReshape(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::ReshapeLike, {b.adjoint, b.operands[0]});
}

void GradExpand(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.sumTo(b.adjoint, b.operands[0]);
}

// Constant padding: the adjoint without the padding, adjoint[...,
// before:-after] over the padded axes (widths pair up from the last
// axis); the other modes: pad_grad, which adds the copies back.
void GradPad(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Ints* widths = b.attr("widths") ? std::get_if<Ints>(b.attr("widths")) : nullptr;
  if (!widths) fail(b.forward.loc(), "the gradient of pad needs constant widths");
  if (b.text("mode", "constant") != "constant") {
    b.grads[0] = b.emit(Op::PadGrad, {b.adjoint, b.operands[0]}, b.attrs({"widths", "mode"}));
    return;
  }
  std::vector<Value*> index{b.emit(Op::Builtin, {}, {{"name", std::string("Ellipsis")}})};
  for (size_t i = widths->size() / 2; i-- > 0;) {
    int64_t before = (*widths)[2 * i], after = (*widths)[2 * i + 1];
    Value* stop = after > 0 ? b.literal(-after) : b.literal(NoneAttr{});
    index.push_back(b.emit(Op::MakeSlice, {b.literal(before), stop, b.literal(NoneAttr{})}));
  }
  b.grads[0] = b.emit(Op::GetItem, {b.adjoint, b.emit(Op::MakeTuple, index)});
}

// pad_grad is linear in g, the transpose of pad: its adjoint's pad.
void GradPadGrad(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::Pad, {b.adjoint}, b.attrs({"widths", "mode"}));
}

// A cast back to the operand's dtype (integer operands get none).
void GradAsType(GradientBuilder& b) {
  Type t = b.operands[0]->type();
  if (!b.wanted[0] || !t.isTensor() || !t.dtype || !isFloating(*t.dtype)) return;
  b.grads[0] = b.emit(Op::AsType, {b.adjoint}, {{"dtype", std::string(dtypeName(*t.dtype))}});
}

// A copy back to where the operand was (to, copy_like, place); place's
// operand may be a number, whose adjoint is itself.
void GradCopyBack(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Type t = b.operands[0]->type();
  b.grads[0] = t.isTensor() || t.kind == TypeKind::Any ? b.emit(Op::CopyLike, {b.adjoint, b.operands[0]}) : b.adjoint;
}

// ---- neural-network ops ----

// y = x @ w.T + b.
void GradLinear(GradientBuilder& b) {
  Value* x = b.operands[0];
  Value* w = b.operands[1];
  Value* g = b.adjoint;
  size_t rx = b.rankOf(0);
  if (b.wanted[0]) b.grads[0] = matmul(b, g, w);
  if (b.wanted[1])  // one [out, N] @ [N, in] product over all the rows
    b.grads[1] = rx == 1 ? matmul(b, unsqueeze(b, g, -1), unsqueeze(b, x, 0))
                         : b.sumTo(matmul(b, swapLast(b, leadingRows(b, g, rx), 2), leadingRows(b, x, rx)), w);
  if (b.operands.size() > 2 && b.operands[2] && b.wanted[2]) b.grads[2] = b.sumTo(g, b.operands[2]);
}

// y = softmax(x): dx = y * (g - sum(g * y)) along the axis.
void GradSoftmax(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* y = b.result();
  Value* dot = b.emit(Op::Sum, {b.mul(b.adjoint, y)}, {{"axis", attrOr(b, "axis", int64_t(-1))}, {"keepdims", true}});
  b.grads[0] = b.mul(y, b.sub(b.adjoint, dot));
}

// y = log_softmax(x): dx = g - exp(y) * sum(g) along the axis.
void GradLogSoftmax(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* total = b.emit(Op::Sum, {b.adjoint}, {{"axis", attrOr(b, "axis", int64_t(-1))}, {"keepdims", true}});
  b.grads[0] = b.sub(b.adjoint, b.mul(b.emit(Op::Exp, {b.result()}), total));
}

// dropout: the elements kept, scaled by 1 / (1 - p) (an element of x that
// is exactly 0 counts as dropped); the identity when not training.
void GradDropout(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr* training = b.attr("training");
  if (training && *training == Attr(false)) {
    b.grads[0] = b.adjoint;
    return;
  }
  double p = b.number("p", 0.5);
  Value* kept = b.emit(Op::Ne, {b.result(), b.constant(0.0)});
  b.grads[0] = b.mul(b.mul(b.adjoint, kept), b.constant(p < 1.0 ? 1.0 / (1.0 - p) : 0.0));
}

// (x - mean) / sqrt(var + eps) * gamma + beta over channel axis 1, with
// given statistics: training mode passes the batch's (nn.batch_norm_train),
// so their adjoints carry the gradient through them as in PyTorch.
void GradBatchNorm(GradientBuilder& b) {
  size_t rank = b.rankOf(0);
  if (rank < 2) fail(b.forward.loc(), "the gradient of batch_norm needs an input of rank 2 or more");
  Ints channels{-1};  // a [C] vector broadcast over [N, C, ...]
  channels.insert(channels.end(), rank - 2, 1);
  Ints others{0};  // the axes summed to give a channel's adjoint
  for (size_t a = 2; a < rank; ++a) others.push_back(static_cast<int64_t>(a));
  auto perChannel = [&](Value* v) { return b.emit(Op::Reshape, {v}, {{"shape", channels}}); };
  auto sumOthers = [&](Value* v) {
    return b.emit(Op::Sum, {v}, {{"axis", others}, {"keepdims", false}});
  };
  auto given = [&](size_t i) { return b.operands.size() > i && b.operands[i]->type().kind != TypeKind::None; };
  Value* x = b.operands[0];
  Value* centred = b.sub(x, perChannel(b.operands[1]));
  Value* inv = b.emit(Op::Rsqrt, {b.add(perChannel(b.operands[2]), b.constant(b.number("eps", 1e-5)))});
  Value* g = given(3) ? b.mul(b.adjoint, perChannel(b.operands[3])) : b.adjoint;  // d/d(xhat)
  Value* gx = b.mul(g, inv);
  if (b.wanted[0]) b.grads[0] = gx;
  if (b.wanted[1]) b.grads[1] = b.neg(sumOthers(gx));
  if (b.wanted[2]) {
    Value* cube = b.mul(b.mul(inv, inv), inv);
    b.grads[2] = sumOthers(b.mul(b.mul(g, centred), b.mul(cube, b.constant(-0.5))));
  }
  if (given(3) && b.wanted[3]) b.grads[3] = sumOthers(b.mul(b.adjoint, b.mul(centred, inv)));
  if (given(4) && b.wanted[4]) b.grads[4] = sumOthers(b.adjoint);
}

// ---- convolution and pooling ----

// An ints attribute (one int or a pair) as (height, width); `dflt` when
// absent or None.
std::pair<int64_t, int64_t> pairAttr(const GradientBuilder& b, const char* name, int64_t dflt) {
  const Attr* a = b.attr(name);
  if (!a) return {dflt, dflt};
  if (const int64_t* i = std::get_if<int64_t>(a)) return {*i, *i};
  if (const Ints* l = std::get_if<Ints>(a)) {
    if (l->size() == 1) return {(*l)[0], (*l)[0]};
    if (l->size() == 2) return {(*l)[0], (*l)[1]};
  }
  return {dflt, dflt};
}

const std::initializer_list<const char*> kConvAttrs = {"stride", "padding", "dilation", "groups"};
// Pooling's attributes: max_pool2d's and avg_pool2d's (each node has its
// own kind's; pool2d_grad has both).
const std::initializer_list<const char*> kPoolAttrs = {"kernel_size", "stride",    "padding",
                                                       "dilation",    "ceil_mode", "count_include_pad",
                                                       "divisor_override"};
const std::initializer_list<const char*> kAvgPoolAttrs = {"kernel_size", "stride", "padding", "ceil_mode",
                                                          "count_include_pad", "divisor_override"};

// conv2d: the backward-data and backward-weights convolutions; the bias
// gathers the adjoint over batch and positions.
void GradConv2d(GradientBuilder& b) {
  auto attrs = b.attrs(kConvAttrs);
  if (b.wanted[0]) b.grads[0] = b.emit(Op::Conv2dGradInput, {b.adjoint, b.operands[0], b.operands[1]}, attrs);
  if (b.wanted[1]) b.grads[1] = b.emit(Op::Conv2dGradWeight, {b.adjoint, b.operands[0], b.operands[1]}, attrs);
  if (b.operands.size() > 2 && b.wanted[2])
    b.grads[2] = b.emit(Op::Sum, {b.adjoint}, {{"axis", Ints{0, 2, 3}}, {"keepdims", false}});
}

// conv1d is conv2d of [N, C, 1, L] inputs with [OC, C/g, 1, K] weights:
// its rule is conv2d's on those views, squeezed back.
void GradConv1d(GradientBuilder& b) {
  // An int or 1-tuple attribute `name` as the 2-d pair (fill, value).
  auto pair = [&](const char* name, int64_t fill, int64_t dflt) {
    const Attr* a = b.attr(name);
    int64_t v = dflt;
    if (const int64_t* i = a ? std::get_if<int64_t>(a) : nullptr) v = *i;
    if (const Ints* l = a ? std::get_if<Ints>(a) : nullptr; l && !l->empty()) v = l->front();
    return Attr(Ints{fill, v});
  };
  std::vector<std::pair<std::string, Attr>> attrs{{"stride", pair("stride", 1, 1)},
                                                  {"padding", pair("padding", 0, 0)},
                                                  {"dilation", pair("dilation", 1, 1)},
                                                  {"groups", Attr(int64_t(b.number("groups", 1)))}};
  auto view2d = [&](Value* v) { return b.emit(Op::Unsqueeze, {v}, {{"axis", int64_t(2)}}); };
  auto back1d = [&](Value* v) { return b.emit(Op::Squeeze, {v}, {{"axis", Ints{2}}}); };
  Value *g = view2d(b.adjoint), *x = view2d(b.operands[0]), *w = view2d(b.operands[1]);
  if (b.wanted[0]) b.grads[0] = back1d(b.emit(Op::Conv2dGradInput, {g, x, w}, attrs));
  if (b.wanted[1]) b.grads[1] = back1d(b.emit(Op::Conv2dGradWeight, {g, x, w}, attrs));
  if (b.operands.size() > 2 && b.wanted[2])
    b.grads[2] = b.emit(Op::Sum, {b.adjoint}, {{"axis", Ints{0, 2}}, {"keepdims", false}});
}

// embedding(input, weight) is weight[input]: the adjoint rows added back at
// the indices (as indexing's rule); the indices get none.
void GradEmbedding(GradientBuilder& b) {
  if (b.wanted[1]) b.grads[1] = b.emit(Op::IndexGrad, {b.adjoint, b.operands[1], b.operands[0]});
}

// conv2d_grad_input(g, x, w) is bilinear in g and w: <dx(g, w), a> =
// <g, conv2d(a, w)>, so its adjoints are conv2d(a, w) for g and the weight
// gradient of that convolution for w; x gives only a shape.
void GradConv2dGradInput(GradientBuilder& b) {
  auto attrs = b.attrs(kConvAttrs);
  if (b.wanted[0]) b.grads[0] = b.emit(Op::Conv2d, {b.adjoint, b.operands[2]}, attrs);
  if (b.wanted[2]) b.grads[2] = b.emit(Op::Conv2dGradWeight, {b.operands[0], b.adjoint, b.operands[2]}, attrs);
}

// conv2d_grad_weight(g, x, w): <dw(g, x), a> = <g, conv2d(x, a)>.
void GradConv2dGradWeight(GradientBuilder& b) {
  auto attrs = b.attrs(kConvAttrs);
  if (b.wanted[0]) b.grads[0] = b.emit(Op::Conv2d, {b.operands[1], b.adjoint}, attrs);
  if (b.wanted[1]) b.grads[1] = b.emit(Op::Conv2dGradInput, {b.operands[0], b.operands[1], b.adjoint}, attrs);
}

// Pooling: pool2d_grad routes the adjoint of each window back to the
// window's first maximum (max pooling, as PyTorch) or spreads it evenly.
void pooling(GradientBuilder& b, bool isMax) {
  if (!b.wanted[0]) return;
  auto attrs = b.attrs(kPoolAttrs);
  attrs.emplace_back("max", isMax);
  b.grads[0] = b.emit(Op::Pool2dGrad, {b.adjoint, b.operands[0]}, attrs);
}

void GradMaxPool2d(GradientBuilder& b) { pooling(b, true); }
void GradAvgPool2d(GradientBuilder& b) { pooling(b, false); }

// pool2d_grad(g, x) is linear in g and piecewise constant in x (no
// gradient). Its transpose pools the adjoint a: averaging for average
// pooling; for max pooling each window takes a at the position it chose,
// which with windows that do not overlap is a sum over the window of a
// masked by the chosen positions (overlapping windows: not supported).
void GradPool2dGrad(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr* isMax = b.attr("max");
  if (!isMax || *isMax != Attr(true)) {
    b.grads[0] = b.emit(Op::AvgPool2d, {b.adjoint}, b.attrs(kAvgPoolAttrs));
    return;
  }
  auto kernel = pairAttr(b, "kernel_size", 1);
  const Attr* strideAttr = b.attr("stride");
  auto stride = strideAttr && !std::holds_alternative<NoneAttr>(*strideAttr) ? pairAttr(b, "stride", 1) : kernel;
  auto dilation = pairAttr(b, "dilation", 1);
  if (stride.first < kernel.first || stride.second < kernel.second || dilation != std::pair<int64_t, int64_t>(1, 1))
    fail(b.forward.loc(),
         "the second derivative of max_pool2d is supported for undilated windows that do not overlap (stride >= "
         "kernel) so far");
  std::vector<std::pair<std::string, Attr>> routed = b.attrs(kPoolAttrs);
  routed.emplace_back("max", true);
  Value* counts = b.emit(Op::Pool2dGrad, {b.emit(Op::OnesLike, {b.operands[0]}), b.operands[1]}, routed);
  Value* chosen = b.mul(b.emit(Op::Gt, {counts, b.constant(0.0)}), b.constant(1.0));
  // Each window's sum: average pooling divided by 1.
  std::vector<std::pair<std::string, Attr>> sums = b.attrs({"kernel_size", "stride", "padding", "ceil_mode"});
  sums.emplace_back("divisor_override", Attr(int64_t{1}));
  b.grads[0] = b.emit(Op::AvgPool2d, {b.mul(b.adjoint, chosen)}, sums);
}

// ---- indexing ----

// x[index] of a tensor: the adjoint added back at index (containers pass
// their elements through unchanged and need no rule in eager mode).
void GradGetItem(GradientBuilder& b) {
  if (b.wanted[0] && b.operands[0]->type().isTensor())
    b.grads[0] = b.emit(Op::IndexGrad, {b.adjoint, b.operands[0], b.operands[1]});
}

// Iterating a tensor: iter is the tensor itself, and its k-th item is x[k].
void GradIter(GradientBuilder& b) {
  if (b.wanted[0] && b.operands[0]->type().isTensor()) b.grads[0] = b.adjoint;
}

void GradIterItem(GradientBuilder& b) { GradGetItem(b); }

// x[index] = v of a tensor (a new tensor): the adjoint where x was kept,
// and the adjoint at index summed to v's shape.
void GradSetItem(GradientBuilder& b) {
  if (!b.operands[0]->type().isTensor()) return;
  if (b.wanted[0]) b.grads[0] = b.emit(Op::SetItem, {b.adjoint, b.operands[1], b.constant(0.0)});
  if (b.wanted[2]) b.grads[2] = b.sumTo(b.emit(Op::GetItem, {b.adjoint, b.operands[1]}), b.operands[2]);
}

// ---- joining ----

// The elements of the list or tuple a concat/stack joined, as the node that
// built it knows them; fails (not supported) for a sequence built elsewhere.
std::vector<Type> joinedTypes(GradientBuilder& b) {
  const Node* seq = b.forward.operand(0)->def();
  if (!seq || (seq->op() != Op::MakeList && seq->op() != Op::MakeTuple))
    fail(b.forward.loc(), std::string("the gradient of ") + b.forward.info().name +
                              " is only supported for a list or tuple of tensors written at the call");
  std::vector<Type> types;
  for (const Value* v : seq->operands()) types.push_back(v->type());
  return types;
}

// adjoint[:, ..., at] with `at` on axis `axis` (a slice or an index).
Value* along(GradientBuilder& b, int64_t axis, Value* at) {
  std::vector<Value*> index;
  for (int64_t k = 0; k < axis; ++k) {
    Value* none = b.literal(NoneAttr{});
    index.push_back(b.emit(Op::MakeSlice, {none, none, none}));
  }
  index.push_back(at);
  return b.emit(Op::GetItem, {b.adjoint, b.emit(Op::MakeTuple, index)});
}

int64_t joinAxis(GradientBuilder& b, size_t rank) {
  auto axis = static_cast<int64_t>(b.number("axis", 0.0));
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

// concat: the adjoint cut back into the pieces, as a list for the
// make_list/make_tuple that gathered them.
void GradConcat(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  std::vector<Type> types = joinedTypes(b);
  std::vector<Value*> pieces;
  int64_t start = 0;
  for (const Type& t : types) {
    if (!t.isTensor() || !t.shape) fail(b.forward.loc(), "the gradient of concat is not supported for tensors of unknown shape");
    int64_t axis = joinAxis(b, t.shape->size());
    const Dim& d = (*t.shape)[static_cast<size_t>(axis)];
    if (!d.isKnown()) fail(b.forward.loc(), "the gradient of concat is not supported for tensors of unknown shape");
    Value* slice = b.emit(Op::MakeSlice, {b.literal(start), b.literal(start + d.size), b.literal(NoneAttr{})});
    pieces.push_back(along(b, axis, slice));
    start += d.size;
  }
  b.grads[0] = b.emit(Op::MakeList, pieces);
}

// stack: the adjoint's slices along the new axis.
void GradStack(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  std::vector<Type> types = joinedTypes(b);
  std::vector<Value*> pieces;
  for (size_t i = 0; i < types.size(); ++i) {
    size_t rank = types[i].isTensor() && types[i].shape ? types[i].shape->size() + 1 : 1;
    pieces.push_back(along(b, joinAxis(b, rank), b.literal(static_cast<int64_t>(i))));
  }
  b.grads[0] = b.emit(Op::MakeList, pieces);
}

// A list or tuple's adjoint (a list of the elements' adjoints) handed out.
void GradMakeSequence(GradientBuilder& b) {
  for (size_t i = 0; i < b.operands.size(); ++i)
    if (b.wanted[i]) b.grads[i] = b.emit(Op::GetItem, {b.adjoint, b.literal(static_cast<int64_t>(i))});
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

void GradIndexGrad(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::GetItem, {b.adjoint, b.operands[2]});
}

// index_grad_add(x, g, index) = x + index_grad(g, x, index).
void GradIndexGradAdd(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.adjoint;
  if (b.wanted[1]) b.grads[1] = b.emit(Op::GetItem, {b.adjoint, b.operands[2]});
}

// reduce_grad spreads g over x's shape: its own gradient reduces back.
void GradReduceGrad(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr* mean = b.attr("mean");
  Op op = mean && *mean == Attr(true) ? Op::Mean : Op::Sum;
  b.grads[0] = b.emit(op, {b.adjoint}, {{"axis", attrOr(b, "axis", NoneAttr{})}, {"keepdims", attrOr(b, "keepdims", false)}});
}

}  // namespace nn::ir
