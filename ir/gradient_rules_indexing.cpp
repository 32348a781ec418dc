// The gradient rules of the ops that move elements by an index along one
// axis: gather, scatter_add and scatter, each other's adjoints.
#include "ir/gradient.h"

namespace nn::ir {

// gather and scatter_add are each other's adjoints along the same axis and
// index.
void GradGather(GradientBuilder& b) {
  if (!b.wanted[0]) return;
  Value* zeros = b.emit(Op::ZerosLike, {b.operands[0]}, {{"dtype", NoneAttr{}}});
  auto axis = static_cast<int64_t>(b.number("axis", 0.0));
  b.grads[0] = b.emit(Op::ScatterAdd, {zeros, b.operands[1], b.adjoint}, {{"axis", axis}});
}

namespace {

// The adjoint of scatter's or scatter_add's src (operand 2): the adjoint
// at the index, of the index's shape; for scatter only where an element
// was not written over (nn writes in index order, so of two writes to one
// place the later is the one the result depends on). A src larger than
// the index (only its first index.shape elements are read) gets that in
// zeros of its own shape. Both need each index element's own coordinate
// along the axis, which a cumsum of ones counts out.
Value* scatteredSrcAdjoint(GradientBuilder& b, int64_t axis, bool overwrites) {
  Value* index = b.operands[1];
  Value* picked = b.emit(Op::Gather, {b.adjoint, index}, {{"axis", axis}});
  const Type &src = b.operands[2]->type(), &indexType = index->type();
  bool sameShape = src.shape && indexType.shape && *src.shape == *indexType.shape;
  if (sameShape && !overwrites) return picked;
  Value* counted = b.emit(Op::CumSum, {b.emit(Op::OnesLike, {index})}, {{"axis", axis}, {"reverse", false}});
  Value* own = b.sub(counted, b.literal(int64_t{1}));
  if (overwrites) {
    // Each place's last writer, by its coordinate: is it this element?
    Value* nobody = b.emit(Op::FullLike, {b.operands[0], b.literal(int64_t{-1})}, {{"dtype", std::string("i64")}});
    Value* last = b.emit(Op::Scatter, {nobody, index, own, b.literal(NoneAttr{})}, {{"axis", axis}});
    Value* kept = b.emit(Op::Eq, {b.emit(Op::Gather, {last, index}, {{"axis", axis}}), own});
    picked = b.mul(picked, kept);
  }
  if (sameShape) return picked;
  Value* zeros = b.emit(Op::ZerosLike, {b.operands[2]}, {{"dtype", NoneAttr{}}});
  return b.emit(Op::ScatterAdd, {zeros, own, picked}, {{"axis", axis}});
}

}  // namespace

void GradScatterAdd(GradientBuilder& b) {
  if (b.wanted[0]) b.grads[0] = b.adjoint;
  auto axis = static_cast<int64_t>(b.number("axis", 0.0));
  if (b.wanted[2]) b.grads[2] = scatteredSrcAdjoint(b, axis, false);
}

// scatter: x's adjoint is the adjoint with the written places zeroed; src's
// is the adjoint where each of its elements stayed (PyTorch gives it to
// both of two writes to one place, though the earlier was written over).
void GradScatter(GradientBuilder& b) {
  auto axis = static_cast<int64_t>(b.number("axis", 0.0));
  if (b.wanted[0])
    b.grads[0] = b.emit(Op::Scatter, {b.adjoint, b.operands[1], b.constant(0.0), b.literal(NoneAttr{})},
                        {{"axis", axis}});
  if (b.wanted[2] && b.operands[2]->type().isTensor()) b.grads[2] = scatteredSrcAdjoint(b, axis, true);
}

}  // namespace nn::ir
