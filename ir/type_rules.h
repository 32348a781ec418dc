// Result types of IR nodes computed from operand types, following the rule
// each op names in ops.def. Control-flow ops (TypeRule::Merge) take the types
// their blocks yield; passes/infer_types.cpp handles those.
#pragma once

#include "ir/ir.h"

namespace nn::ir {

// The type of result `i` of `n` given the current types of its operands.
// Fails (NnError at the node) on a shape or dtype mismatch it can prove.
Type resultType(const Node& n, size_t i);

// The rules for ops with a tensor operand (ir/tensor_type_rules.cpp);
// nullopt when no operand is a tensor.
std::optional<Type> tensorResultType(const Node& n);
// Calls of builtins (by the called op's shape rule, or the result kind a
// builtin declares) and tensor attributes (ir/shape_rules.cpp).
std::optional<Type> builtinCallType(const Node& call);
// A tensor op node other than an elementwise one, by its shape rule.
std::optional<Type> tensorOpType(const Node& n);
std::optional<Type> attributeType(const Node& getattr);
// Indexing and iterating a tensor: getitem, iter, iter_item on a tensor
// (ir/index_type.cpp); nullopt when the container is not a tensor.
std::optional<Type> indexType(const Node& n);

// The common type of two values merged by control flow: equal types stay;
// tensors keep what both agree on (a dtype, the rank, each equal dim; other
// dims become unknown); anything else becomes any.
Type join(const Type& a, const Type& b);

}  // namespace nn::ir
