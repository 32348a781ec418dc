// The one execute entry of the value ops: the ops whose result depends
// only on their operand values and attributes (arithmetic, comparisons,
// math, where, indexing, formatting). The eager interpreter runs them
// through it, and so does constant folding (constant_eval.cpp), so a
// folded constant is exactly what eager mode computes; the graph
// executor's pre-resolved ops (fast_ops.h) are the same device kernels
// looked up once per plan instead of per call. The other tensor ops run
// through the host's runTensorOp (stdlib/op_call.h) on the parameters
// tensorOpParams reads off their node.
#pragma once

#include "ir/ir.h"
#include "runtime/value.h"

namespace nn::rt {

// Whether `op` is a value op that runValueOp executes.
bool isValueOp(ir::Op op);

// An IR attribute as a runtime value: a literal as itself, an int list
// as a tuple of ints (a keyword-name list, which no value holds, as None).
Value attrValue(const ir::Attr& a);

// The parameters of tensor op node `n`, one per parameter of its
// signature: its operands (`in`, in order) and its attributes as values.
std::vector<Value> tensorOpParams(const ir::Node& n, const Value* const* in);

// Runs value op `n` on its operand values `in` (n.operands().size() of
// them). `consumable` (kConsumeFirst/kConsumeSecond): operands whose
// tensor buffer may take the result. Errors are NnErrors at n's location.
Value runValueOp(const ir::Node& n, const Value* const* in, unsigned consumable);

}  // namespace nn::rt
