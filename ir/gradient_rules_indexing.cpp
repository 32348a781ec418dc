// The gradient rules of the ops that move elements by an index along one
// axis: gather, scatter_add and scatter, each other's adjoints, and
// scatter_reduce.
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

// Each index element's own coordinate along the axis, which a cumsum of
// ones counts out.
Value* ownCoordinates(GradientBuilder& b, int64_t axis) {
  Value* counted = b.emit(Op::CumSum, {b.emit(Op::OnesLike, {b.operands[1]})}, {{"axis", axis}, {"reverse", false}});
  return b.sub(counted, b.literal(int64_t{1}));
}

bool srcShapedAsIndex(GradientBuilder& b) {
  const Type &src = b.operands[2]->type(), &index = b.operands[1]->type();
  return src.shape && index.shape && *src.shape == *index.shape;
}

// An adjoint of the index's shape for src (operand 2) of the scatters: a
// src larger than the index (only its first index.shape elements are
// read) gets it in zeros of its own shape.
Value* asSrcAdjoint(GradientBuilder& b, int64_t axis, Value* picked) {
  if (srcShapedAsIndex(b)) return picked;
  Value* zeros = b.emit(Op::ZerosLike, {b.operands[2]}, {{"dtype", NoneAttr{}}});
  return b.emit(Op::ScatterAdd, {zeros, ownCoordinates(b, axis), picked}, {{"axis", axis}});
}

// The adjoint of scatter's or scatter_add's src: the adjoint at the index;
// for scatter only where an element was not written over (nn writes in
// index order, so of two writes to one place the later is the one the
// result depends on).
Value* scatteredSrcAdjoint(GradientBuilder& b, int64_t axis, bool overwrites) {
  Value* index = b.operands[1];
  Value* picked = b.emit(Op::Gather, {b.adjoint, index}, {{"axis", axis}});
  if (overwrites) {
    // Each place's last writer, by its coordinate: is it this element?
    Value* own = ownCoordinates(b, axis);
    Value* nobody = b.emit(Op::FullLike, {b.operands[0], b.literal(int64_t{-1})}, {{"dtype", std::string("i64")}});
    Value* last = b.emit(Op::Scatter, {nobody, index, own, b.literal(NoneAttr{})}, {{"axis", axis}});
    Value* kept = b.emit(Op::Eq, {b.emit(Op::Gather, {last, index}, {{"axis", axis}}), own});
    picked = b.mul(picked, kept);
  }
  return asSrcAdjoint(b, axis, picked);
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

// scatter_reduce, as PyTorch's (FunctionsManual.cpp): "sum" passes the
// adjoint through, "mean" divided by each place's count of terms; "amax"
// and "amin" share it evenly among the terms equal to the result; "prod"
// gives each term the product of the others, computed without dividing by
// a zero: x's with x's zeros taken as ones, a src element's as the result
// over it where it is not 0, and where it is the place's only zero src, the
// reduction run again with it taken as one. Where x's own elements are
// left out (include_self false), the places the index reaches give x none
// (nor count its element among the terms equal to an extreme, where
// PyTorch's does).
void GradScatterReduce(GradientBuilder& b) {
  auto axis = static_cast<int64_t>(b.number("axis", 0.0));
  std::string reduce = b.text("reduce", "sum");
  const Attr* includeAttr = b.attr("include_self");
  bool includeSelf = !includeAttr || !std::holds_alternative<bool>(*includeAttr) || std::get<bool>(*includeAttr);
  Value *x = b.operands[0], *index = b.operands[1], *g = b.adjoint;
  Value* src = srcShapedAsIndex(b) ? b.operands[2]
                                   : b.emit(Op::Gather, {b.operands[2], ownCoordinates(b, axis)}, {{"axis", axis}});
  auto gathered = [&](Value* v) { return b.emit(Op::Gather, {v, index}, {{"axis", axis}}); };
  auto atIndex = [&](Value* v, Value* value) {
    return b.emit(Op::Scatter, {v, index, value, b.literal(NoneAttr{})}, {{"axis", axis}});
  };
  auto isZero = [&](Value* v) { return b.emit(Op::Eq, {v, b.constant(0.0)}); };
  auto orOne = [&](Value* v, Value* mask) { return b.emit(Op::Where, {mask, b.constant(1.0), v}); };
  // Whether each place of the result has x's element among its terms.
  Value* selfCounted = nullptr;
  if (!includeSelf)
    selfCounted = atIndex(b.emit(Op::OnesLike, {x}, {{"dtype", std::string("bool")}}), b.literal(false));
  Value *gx = nullptr, *gsrc = nullptr;
  if (reduce == "sum") {
    gx = g;
    gsrc = gathered(g);
  } else if (reduce == "mean") {
    Value* none = b.emit(Op::FullLike, {x, b.literal(int64_t{includeSelf ? 1 : 0})}, {{"dtype", std::string("i64")}});
    Value* counts = b.emit(Op::ScatterAdd, {none, index, b.emit(Op::OnesLike, {index})}, {{"axis", axis}});
    Value* shared = b.div(g, b.emit(Op::Maximum, {counts, b.literal(int64_t{1})}));
    gx = shared;
    gsrc = gathered(shared);
  } else if (reduce == "amax" || reduce == "amin") {
    Value* r = b.result();
    Value* selfIs = b.emit(Op::Eq, {x, r});
    if (selfCounted) selfIs = b.emit(Op::LogicalAnd, {selfIs, selfCounted});
    Value* srcIs = b.emit(Op::Eq, {src, gathered(r)});
    Value* ties = b.emit(Op::ScatterAdd,
                         {b.emit(Op::AsType, {selfIs}, {{"dtype", std::string("i64")}}), index,
                          b.emit(Op::AsType, {srcIs}, {{"dtype", std::string("i64")}})},
                         {{"axis", axis}});
    Value* shared = b.div(g, b.emit(Op::Maximum, {ties, b.literal(int64_t{1})}));
    gx = b.emit(Op::Where, {selfIs, shared, b.constant(0.0)});
    gsrc = b.emit(Op::Where, {srcIs, gathered(shared), b.constant(0.0)});
  } else {  // prod
    Value* selfZero = isZero(x);
    Value* maskedSelf = orOne(x, selfZero);
    Value* others =
        b.emit(Op::ScatterReduce, {maskedSelf, index, b.operands[2]}, b.attrs({"axis", "reduce", "include_self"}));
    gx = b.div(b.mul(g, others), maskedSelf);
    Value* srcZero = isZero(src);
    Value* zerosThere = b.emit(Op::ScatterAdd,
                               {b.emit(Op::ZerosLike, {x}, {{"dtype", std::string("i64")}}), index,
                                b.emit(Op::AsType, {srcZero}, {{"dtype", std::string("i64")}})},
                               {{"axis", axis}});
    Value* onlyZero = b.emit(Op::LogicalAnd, {srcZero, b.emit(Op::Eq, {gathered(zerosThere), b.literal(int64_t{1})})});
    Value* withoutIt =
        b.emit(Op::ScatterReduce, {x, index, orOne(src, onlyZero)}, b.attrs({"axis", "reduce", "include_self"}));
    gsrc = b.emit(Op::Where, {onlyZero, gathered(b.mul(g, withoutIt)),
                              b.div(gathered(b.mul(g, b.result())), orOne(src, srcZero))});
  }
  if (b.wanted[0]) b.grads[0] = selfCounted ? b.emit(Op::Where, {selfCounted, gx, b.constant(0.0)}) : gx;
  if (b.wanted[2]) b.grads[2] = asSrcAdjoint(b, axis, gsrc);
}

}  // namespace nn::ir
