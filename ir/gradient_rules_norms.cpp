// The gradient rules of the norms: layer_norm over its normalised dims and
// the p-norms of `norm`.
#include <cmath>

#include "ir/gradient.h"

namespace nn::ir {

// layer_norm over its last k dims (k = len(normalized_shape), 1 when None):
// with xhat = (x - mean) / sqrt(var + eps) and g = adjoint * weight,
// dx = (g - mean(g) - xhat * mean(g * xhat)) / sqrt(var + eps);
// dweight = sum of adjoint * xhat, dbias = sum of adjoint.
void GradLayerNorm(GradientBuilder& b) {
  Value* x = b.operands[0];
  double eps = b.number("eps", 1e-5);
  const Attr* shape = b.attr("normalized_shape");
  const Ints* dims = shape ? std::get_if<Ints>(shape) : nullptr;
  int64_t k = dims ? static_cast<int64_t>(dims->size()) : 1;
  if (shape && std::get_if<int64_t>(shape)) k = 1;
  Ints axes;
  for (int64_t a = -k; a < 0; ++a) axes.push_back(a);
  auto normalised = [&](Op op, Value* v) { return b.emit(op, {v}, {{"axis", axes}, {"keepdims", true}}); };
  Value* centred = b.sub(x, normalised(Op::Mean, x));
  Value* var = normalised(Op::Mean, b.mul(centred, centred));
  Value* inv = b.emit(Op::Rsqrt, {b.add(var, b.constant(eps))});
  Value* xhat = b.mul(centred, inv);
  auto given = [&](size_t i) { return b.operands.size() > i && b.operands[i]->type().kind != TypeKind::None; };
  if (b.wanted[0]) {
    Value* g = given(1) ? b.mul(b.adjoint, b.operands[1]) : b.adjoint;
    Value* inner = b.sub(b.sub(g, normalised(Op::Mean, g)), b.mul(xhat, normalised(Op::Mean, b.mul(g, xhat))));
    b.grads[0] = b.mul(inner, inv);
  }
  if (given(1) && b.wanted[1]) b.grads[1] = b.sumTo(b.mul(b.adjoint, xhat), b.operands[1]);
  if (given(2) && b.wanted[2]) b.grads[2] = b.sumTo(b.adjoint, b.operands[2]);
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
