// Result types of IR nodes computed from operand types, following the rule
// each op names in ops.def. Control-flow ops (TypeRule::Merge) take the types
// their blocks yield; passes/infer_types.cpp handles those.
#pragma once

#include "ir/ir.h"

namespace nn::ir {

// The type of result `i` of `n` given the current types of its operands.
Type resultType(const Node& n, size_t i);

// The common type of two values merged by control flow: equal types stay,
// different ones become any.
inline Type join(Type a, Type b) { return a == b ? a : Type::any(); }

}  // namespace nn::ir
