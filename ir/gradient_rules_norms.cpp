// The gradient rules of the norms: layer_norm over its normalised dims (and
// its gradient op's, for second derivatives) and the p-norms of `norm`.
#include <cmath>

#include "ir/gradient.h"

namespace nn::ir {

namespace {

// The axes layer_norm normalises: its last k dims, k = len(normalized_shape)
// (1 when None or one int).
Ints normalisedAxes(const GradientBuilder& b) {
  const Attr* shape = b.attr("normalized_shape");
  const Ints* dims = shape ? std::get_if<Ints>(shape) : nullptr;
  int64_t k = dims ? static_cast<int64_t>(dims->size()) : 1;
  Ints axes;
  for (int64_t a = -k; a < 0; ++a) axes.push_back(a);
  return axes;
}

bool givenTensor(const GradientBuilder& b, size_t i) {
  return b.operands.size() > i && b.operands[i]->type().kind != TypeKind::None;
}

}  // namespace

// layer_norm(x, normalized_shape, weight, bias): x's gradient is one
// layer_norm_grad op; with xhat = layer_norm(x) (no weight, no bias),
// dweight = sum of adjoint * xhat, dbias = sum of adjoint.
void GradLayerNorm(GradientBuilder& b) {
  Value* x = b.operands[0];
  auto statistics = b.attrs({"normalized_shape", "eps"});
  if (b.wanted[0]) {
    std::vector<Value*> in{b.adjoint, x};
    if (givenTensor(b, 1)) in.push_back(b.operands[1]);
    b.grads[0] = b.emit(Op::LayerNormGrad, in, statistics);
  }
  if (givenTensor(b, 1) && b.wanted[1])
    b.grads[1] = b.sumTo(b.mul(b.adjoint, b.emit(Op::LayerNorm, {x}, statistics)), b.operands[1]);
  if (givenTensor(b, 2) && b.wanted[2]) b.grads[2] = b.sumTo(b.adjoint, b.operands[2]);
}

// layer_norm_grad(g, x, weight) = r (h - mean(h) - xhat mean(h xhat)), with
// h = g * weight, r = 1 / sqrt(var(x) + eps), xhat = (x - mean(x)) r, the
// means over the normalised dims. Its adjoint u gives, per row:
//   dh = r (u - mean(u) - xhat mean(u xhat))  (the same projection: it is
//        symmetric), so dg = dh * weight and dweight = sum of dh * g;
//   dx = r^2 (3 xhat a b - xhat mean(u (h - mean(h))) - b (u - mean(u))
//        - a (h - mean(h))), a = mean(u xhat), b = mean(h xhat)
// (r and xhat through x's mean and variance). Every op here has a rule:
// third derivatives go on.
void GradLayerNormGrad(GradientBuilder& b) {
  Value* x = b.operands[1];
  Value* u = b.adjoint;
  bool weighted = givenTensor(b, 2);
  Ints axes = normalisedAxes(b);
  auto mean = [&](Value* v) { return b.emit(Op::Mean, {v}, {{"axis", axes}, {"keepdims", true}}); };
  auto centre = [&](Value* v) { return b.sub(v, mean(v)); };
  Value* centred = centre(x);
  Value* r = b.emit(Op::Rsqrt, {b.add(mean(b.mul(centred, centred)), b.constant(b.number("eps", 1e-5)))});
  Value* xhat = b.mul(centred, r);
  Value* h = weighted ? b.mul(b.operands[0], b.operands[2]) : b.operands[0];
  Value* a = mean(b.mul(u, xhat));
  if (b.wanted[0] || (weighted && b.wanted[2])) {
    Value* dh = b.mul(r, b.sub(centre(u), b.mul(xhat, a)));
    if (b.wanted[0]) b.grads[0] = weighted ? b.mul(dh, b.operands[2]) : dh;
    if (weighted && b.wanted[2]) b.grads[2] = b.sumTo(b.mul(dh, b.operands[0]), b.operands[2]);
  }
  if (b.wanted[1]) {
    Value* hc = centre(h);
    Value* bh = mean(b.mul(h, xhat));
    Value* along = b.sub(b.mul(b.constant(3.0), b.mul(a, bh)), mean(b.mul(u, hc)));
    Value* inner = b.sub(b.sub(b.mul(xhat, along), b.mul(bh, centre(u))), b.mul(a, hc));
    b.grads[1] = b.mul(b.mul(r, r), inner);
  }
}

// norm(x, p): with n the norm spread back over x's shape,
//   p = 2     x / n (0 where n is 0, as PyTorch)
//   p = 1     sign(x)
//   p = ±inf  sign(x) at the elements whose |x| is n, shared among ties
//   p = 0     no gradient (a count)
//   other p   sign(x) |x|^(p-1) / n^(p-1) (0 where x is 0)
// each times the spread adjoint.
void GradNorm(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* x = b.operands[0];
  double p = b.number("p", 2.0);
  std::vector<std::pair<std::string, Attr>> reduced{{"axis", b.attr("axis") ? *b.attr("axis") : Attr(NoneAttr{})},
                                                    {"keepdims", b.attr("keepdims") ? *b.attr("keepdims") : Attr(false)}};
  auto spread = [&](Value* v) {
    std::vector<std::pair<std::string, Attr>> attrs = reduced;
    attrs.emplace_back("mean", false);
    return b.emit(Op::ReduceGrad, {v, x}, attrs);
  };
  Value* g = spread(b.adjoint);
  Value* n = spread(b.result());
  Value* sign = b.emit(Op::Sign, {x});
  if (p == 0) {
    b.grads[0] = b.mul(g, b.constant(0.0));
  } else if (p == 1) {
    b.grads[0] = b.mul(g, sign);
  } else if (std::isinf(p)) {
    Value* hit = b.emit(Op::Eq, {b.emit(Op::Abs, {x}), n});
    Value* ties = spread(b.emit(Op::Sum, {hit}, reduced));
    b.grads[0] = b.mul(b.div(b.mul(g, sign), ties), hit);
  } else {
    Value* zero = b.emit(Op::Eq, {n, b.constant(0.0)});
    Value* ratio = p == 2 ? b.div(x, n)
                          : b.mul(sign, b.emit(Op::Pow, {b.div(b.emit(Op::Abs, {x}), n), b.constant(p - 1)}));
    // Below p = 1 a zero element's |x|^(p-1) is infinite: its gradient is
    // 0 (PyTorch's), not sign(0) times infinity.
    if (p < 1) ratio = b.emit(Op::Where, {b.emit(Op::Eq, {x, b.constant(0.0)}), b.constant(0.0), ratio});
    b.grads[0] = b.emit(Op::Where, {zero, b.constant(0.0), b.mul(g, ratio)});
  }
}

}  // namespace nn::ir
