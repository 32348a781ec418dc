// The shape rules that ops.def names for the tensor ops: each gives the
// result type of a call of the op's builtin from the types (and constant
// values) of its arguments, or nullopt when they do not determine it, and
// fails at the call with the runtime's message when they prove a mismatch
// (reshape to a size that cannot fit, linear of incompatible shapes).
// Arguments are found by the op's signature: positionally or by keyword.
#pragma once

#include "ir/ir.h"

namespace nn::ir::shape_rules {

std::optional<Type> Untyped(const Node& call, Op op);      // no rule: the result is any
std::optional<Type> Elementwise(const Node& call, Op op);  // the op's own rule (tensor_type_rules.cpp)
std::optional<Type> Creation(const Node& call, Op op);     // zeros(2, 3, dtype=f64)
std::optional<Type> Like(const Node& call, Op op);         // zeros_like(x)
std::optional<Type> Reduce(const Node& call, Op op);       // sum(x), sum(x, axis=1, keepdims=True)
std::optional<Type> Reshape(const Node& call, Op op);
std::optional<Type> Transpose(const Node& call, Op op);    // transpose(x) reverses the axes
std::optional<Type> Flatten(const Node& call, Op op);
std::optional<Type> Linear(const Node& call, Op op);       // x @ w.T + b
std::optional<Type> Softmax(const Node& call, Op op);
std::optional<Type> Loss(const Node& call, Op op);         // a 0-d tensor

// A full reduction of `x` by `op` (also x.sum() as a method call).
Type fullReduction(Op op, const Type& x);

}  // namespace nn::ir::shape_rules
