// The gradient rules (see gradient.h) of the ops that move, select or
// accumulate elements by position: permutations (transpose, permute),
// scans (cumsum, cumprod, logcumsumexp), resampling (interpolate,
// grid_sample), flip, roll, triangles (tril, triu), masked_fill, outer and
// repeat. Each is the same kind of op applied to the adjoint the other way
// round.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/gradient.h"
#include "support/diagnostics.h"

namespace nn::ir {

void GradPermute(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const char* param = b.forward.op() == Op::Permute ? "dims" : "axes";
  const Ints* axes = b.attr(param) ? std::get_if<Ints>(b.attr(param)) : nullptr;
  Ints inverse;
  if (axes && !axes->empty()) {
    int64_t rank = static_cast<int64_t>(axes->size());
    inverse.assign(axes->size(), 0);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t a = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
      if (a < 0 || a >= rank) fail(b.forward.loc(), std::string(b.forward.info().name) + ": axes are not a permutation");
      inverse[a] = i;
    }
  }
  b.grads[0] = b.emit(Op::Permute, {b.adjoint}, {{"dims", inverse}});
}

// The adjoint permuted back: by the inverse permutation (no axes: the
// reversal and a swap of two dims are their own inverses).
void GradTranspose(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Ints* axes = b.attr("axes") ? std::get_if<Ints>(b.attr("axes")) : nullptr;
  if (!axes || axes->size() == 2 || axes->empty()) {
    b.grads[0] = b.emit(Op::Transpose, {b.adjoint}, {{"axes", axes ? *axes : Ints{}}});
    return;
  }
  GradPermute(b);
}

// The gradient of a scan is the scan of the adjoint the other way; a scan
// of the flattened tensor (no axis) is reshaped back.
void GradCumSum(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr* axis = b.attr("axis");
  bool flat = !axis || std::holds_alternative<NoneAttr>(*axis);
  const Attr* reverse = b.attr("reverse");
  bool backwards = !(reverse && std::holds_alternative<bool>(*reverse) && std::get<bool>(*reverse));
  Value* g = b.emit(Op::CumSum, {b.adjoint}, {{"axis", flat ? Attr(int64_t{0}) : *axis}, {"reverse", backwards}});
  b.grads[0] = flat ? b.emit(Op::ReshapeLike, {g, b.operands[0]}) : g;
}

// cumprod: y_i is the product of x_0 .. x_i along the scan. Before the
// scan's first zero, dx_j = (the sum over i >= j of g_i y_i) / x_j, a scan
// the other way; at the first zero z, dx_z = the sum over i >= z of g_i y'_i,
// where y' is the scan of x with x_z taken as 1; after it every product
// holds x_z, so no gradient reaches x_j (PyTorch's rule, zeros included).
void GradCumProd(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr* axis = b.attr("axis");
  bool flat = !axis || std::holds_alternative<NoneAttr>(*axis);
  const Attr* reverse = b.attr("reverse");
  bool backwards = reverse && std::holds_alternative<bool>(*reverse) && std::get<bool>(*reverse);
  Attr along = flat ? Attr(int64_t{0}) : *axis;
  auto scan = [&](Op op, Value* v, bool rev) { return b.emit(op, {v}, {{"axis", along}, {"reverse", rev}}); };
  Value* x = flat ? b.emit(Op::Reshape, {b.operands[0]}, {{"shape", Ints{-1}}}) : b.operands[0];
  Value* zero = b.emit(Op::Eq, {x, b.constant(0.0)});
  Value* zerosSoFar = scan(Op::CumSum, zero, backwards);
  Value* before = b.emit(Op::Eq, {zerosSoFar, b.literal(int64_t{0})});
  Value* first = b.emit(Op::LogicalAnd, {zero, b.emit(Op::Eq, {zerosSoFar, b.literal(int64_t{1})})});
  Value* one = b.constant(1.0);
  Value* early = b.div(scan(Op::CumSum, b.mul(b.adjoint, b.result()), !backwards), b.emit(Op::Where, {before, x, one}));
  Value* skipped = scan(Op::CumProd, b.emit(Op::Where, {first, one, x}), backwards);
  Value* atZero = scan(Op::CumSum, b.mul(b.adjoint, skipped), !backwards);
  Value* g = b.emit(Op::Where, {before, early, b.emit(Op::Where, {first, atZero, b.constant(0.0)})});
  b.grads[0] = flat ? b.emit(Op::ReshapeLike, {g, b.operands[0]}) : g;
}

// logcumsumexp: dx_j = the sum over i >= j (along the scan) of g_i
// exp(x_j - y_i), a logcumsumexp the other way of log|g| - y, taken for
// the positive and the negative adjoints apart (PyTorch's rule; log|g| is
// the dtype's lowest number where g has the other sign or is 0).
void GradLogCumSumExp(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr* axis = b.attr("axis");
  if (!axis) fail(b.forward.loc(), "the gradient of logcumsumexp needs its axis as a constant");
  const Attr* reverse = b.attr("reverse");
  bool backwards = !(reverse && std::holds_alternative<bool>(*reverse) && std::get<bool>(*reverse));
  std::optional<DType> dt = b.adjoint->type().dtype;
  Value* lowest =
      b.constant(dt == DType::F32 ? -std::numeric_limits<float>::max() : -std::numeric_limits<double>::max());
  Value* zero = b.constant(0.0);
  auto part = [&](Op sign, Value* magnitude) {
    Value* logs = b.emit(Op::Where, {b.emit(sign, {b.adjoint, zero}), b.emit(Op::Log, {magnitude}), lowest});
    Value* summed = b.emit(Op::LogCumSumExp, {b.sub(logs, b.result())}, {{"axis", *axis}, {"reverse", backwards}});
    return b.emit(Op::Exp, {b.add(summed, b.operands[0])});
  };
  b.grads[0] = b.sub(part(Op::Gt, b.adjoint), part(Op::Lt, b.neg(b.adjoint)));
}

// interpolate is linear in x: its gradient is interpolate_grad, the
// transpose (each output's adjoint shared back among its sources), and
// the gradient of that with respect to its g is interpolate again.
namespace {
const std::initializer_list<const char*> kResampling = {"size", "scale_factor", "mode", "align_corners"};
const std::initializer_list<const char*> kSampling = {"mode", "padding_mode", "align_corners"};
}  // namespace

void GradInterpolate(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::InterpolateGrad, {b.adjoint, b.operands[0]}, b.attrs(kResampling));
}

void GradInterpolateGrad(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::Interpolate, {b.adjoint}, b.attrs(kResampling));
}

// grid_sample's gradients are ops of their own (the kernels' weights and
// slopes); the input's is linear in g, so its gradient with respect to g
// is grid_sample again (the input only gives it its shape). Its gradient
// with respect to the grid is not supported, as PyTorch's is not.
void GradGridSample(GradientBuilder& b) {
  for (size_t i = 0; i < 2; ++i)
    if (b.wanted[i])
      b.grads[i] = b.emit(i == 0 ? Op::GridSampleGradInput : Op::GridSampleGradGrid,
                          {b.adjoint, b.operands[0], b.operands[1]}, b.attrs(kSampling));
}

void GradGridSampleGradInput(GradientBuilder& b) {
  if (b.wanted[2]) fail(b.forward.loc(), "the second derivative of grid_sample in the grid is not supported");
  if (b.wanted[0]) b.grads[0] = b.emit(Op::GridSample, {b.adjoint, b.operands[2]}, b.attrs(kSampling));
}

// tril/triu keep the adjoint's same triangle.
// Reversed elements come back reversed the same way; rolled ones rolled
// back by the opposite shifts.
void GradFlip(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::Flip, {b.adjoint}, {{"dims", *b.attr("dims")}});
}
void GradRoll(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  const Attr& shifts = *b.attr("shifts");  // one int, or one per dim
  Ints back = std::holds_alternative<Ints>(shifts) ? std::get<Ints>(shifts) : Ints{std::get<int64_t>(shifts)};
  for (int64_t& s : back) s = -s;
  b.grads[0] = b.emit(Op::Roll, {b.adjoint}, {{"shifts", back}, {"dims", *b.attr("dims")}});
}

void GradTriangle(GradientBuilder& b) {
  const Attr* diagonal = b.attr("diagonal");
  if (b.wanted[0]) b.grads[0] = b.emit(b.forward.op(), {b.adjoint}, {{"diagonal", diagonal ? *diagonal : Attr(int64_t{0})}});
}

// masked_fill(x, mask, value): the adjoint where the mask is false to x,
// the rest (summed to its shape) to the value.
void GradMaskedFill(GradientBuilder& b) {
  Value* mask = b.operands[1];
  if (b.wanted[0]) b.grads[0] = b.emit(Op::Where, {mask, b.constant(0.0), b.adjoint});
  if (b.wanted[2]) b.grads[2] = b.sumTo(b.emit(Op::Where, {mask, b.adjoint, b.constant(0.0)}), b.operands[2]);
}

// outer(a, b)[i, j] = a[i] b[j]: g @ b for a, a @ g for b.
void GradOuter(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.emit(Op::MatMul, {b.adjoint, b.operands[1]});
  if (b.wanted[1]) b.grads[1] = b.emit(Op::MatMul, {b.operands[0], b.adjoint});
}

// diag(x, k): of a 1-d x, the k-th diagonal of the square adjoint; of a
// 2-d [m, n] x, the adjoint put on x's k-th diagonal: diag of it is a
// square of side L + |k| (L the diagonal's length), padded and cut to
// [m, n]. The 2-d case needs x's dims.
void GradDiag(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  int64_t k = static_cast<int64_t>(b.number("diagonal", 0));
  std::vector<std::pair<std::string, Attr>> diagonal{{"diagonal", Attr(k)}};
  if (b.rankOf(0) == 1) {
    b.grads[0] = b.emit(Op::Diag, {b.adjoint}, diagonal);
    return;
  }
  Type t = b.operands[0]->type();
  const Dim &rows = (*t.shape)[0], &cols = (*t.shape)[1];
  if (!rows.isKnown() || !cols.isKnown()) fail(b.forward.loc(), "the gradient of 'diag' needs the shape of its input");
  int64_t m = rows.size, n = cols.size, row = k < 0 ? -k : 0, col = k > 0 ? k : 0;
  int64_t side = std::max<int64_t>(0, std::min(m - row, n - col)) + row + col;
  Value* g = b.emit(Op::Diag, {b.adjoint}, diagonal);
  if (side < m || side < n)
    g = b.emit(Op::Pad, {g}, {{"widths", Ints{0, std::max<int64_t>(0, n - side), 0, std::max<int64_t>(0, m - side)}}});
  if (side > m || side > n) {
    auto upTo = [&](int64_t end) {
      return b.emit(Op::MakeSlice, {b.literal(int64_t(0)), b.literal(end), b.literal(NoneAttr{})});
    };
    g = b.emit(Op::GetItem, {g, b.emit(Op::MakeTuple, {upTo(m), upTo(n)})});
  }
  b.grads[0] = g;
}

// repeat(x, *sizes) tiles each dim d of x sizes[i] times: the adjoint,
// viewed as [r0, d0, r1, d1, ...], summed over the tile axes. Needs x's
// dims (known in a specialised version and on the tape).
void GradRepeat(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Type t = b.operands[0]->type();
  const Ints* sizes = b.attr("sizes") ? std::get_if<Ints>(b.attr("sizes")) : nullptr;
  Ints dims;
  if (t.isTensor() && t.shape)
    for (const Dim& d : *t.shape) dims.push_back(d.isKnown() ? d.size : -1);
  bool known = sizes && t.isTensor() && t.shape && std::find(dims.begin(), dims.end(), -1) == dims.end();
  if (!known) fail(b.forward.loc(), "the gradient of 'repeat' needs the shape of its input");
  Ints padded(sizes->size() - dims.size(), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  Ints tiles, tileAxes;
  for (size_t i = 0; i < sizes->size(); ++i) {
    tiles.insert(tiles.end(), {(*sizes)[i], padded[i]});
    tileAxes.push_back(static_cast<int64_t>(2 * i));
  }
  Value* viewed = b.emit(Op::Reshape, {b.adjoint}, {{"shape", tiles}});
  Value* summed = b.emit(Op::Sum, {viewed}, {{"axis", tileAxes}, {"keepdims", false}});
  b.grads[0] = b.emit(Op::Reshape, {summed}, {{"shape", dims}});
}

}  // namespace nn::ir
