// The runtime of the ops that gradient rules emit (ir/gradient.h): moving
// a gradient between a value's shape and the shape an op broadcast or
// reduced it to.
#pragma once

#include <vector>

#include "runtime/tensor.h"
#include "runtime/value.h"
#include "support/source.h"

namespace nn::rt {

// x summed over the dimensions that broadcasting added to like's shape
// (leading ones, and ones where like has size 1), in like's shape and, when
// like is floating, like's dtype. A Python number `like` takes the sum as a
// float; a number `x` is spread over like's shape.
Value sumTo(const Value& x, const Value& like, SourceLoc loc);
// x broadcast (a view) or reshaped to like's shape.
Tensor broadcastLike(const Tensor& x, const Tensor& like, SourceLoc loc);
Tensor reshapeLike(const Tensor& x, const Tensor& like, SourceLoc loc);
// The gradient g of x[index] with respect to x: zeros of x's shape with g
// added at the positions index selects (repeated positions add up).
Tensor indexGrad(const Tensor& g, const Tensor& x, const Value& index, SourceLoc loc);
// x + indexGrad(g, x, index): one more adjoint of x[index] added to x's
// sum, into x's own buffer (`consume`: nothing else holds it) and at the
// selection alone where the index is basic.
Value indexGradAdd(const Value& x, const Value& g, const Value& index, SourceLoc loc, bool consume);
// The gradient g of sum(x, axes, keepdims) (mean: of mean) with respect to
// x: g spread over x's shape (divided by the count for a mean). No axes:
// all of them.
Tensor reduceGrad(const Tensor& g, const Tensor& x, std::vector<int64_t> axes, bool keepdims, bool mean,
                  SourceLoc loc);

}  // namespace nn::rt
