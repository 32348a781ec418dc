// Python semantics of the arithmetic, comparison and container ops on
// scalars, strings, tuples, lists and dicts. Errors (division by zero,
// overflow, unsupported operand types, index out of range) are NnErrors at
// the given location.
#pragma once

#include "ir/ir.h"
#include "runtime/value.h"
#include "support/diagnostics.h"

namespace nn::rt {

using ir::opSymbol;

// `consumable`: operands whose tensor buffer may take the result (see
// tensor_ops.h, kConsumeFirst).
Value binaryOp(ir::Op op, const Value& a, const Value& b, SourceLoc loc, unsigned consumable = 0);
Value unaryOp(ir::Op op, const Value& a, SourceLoc loc, unsigned consumable = 0);
Value compareOp(ir::Op op, const Value& a, const Value& b, SourceLoc loc);
// a < b with Python's ordering rules (used by sorted, min, max).
bool lessThan(const Value& a, const Value& b, SourceLoc loc);
bool contains(const Value& container, const Value& item, SourceLoc loc);

Value getItem(const Value& container, const Value& index, SourceLoc loc);
// Returns the updated container: lists and dicts are updated in place.
Value setItem(const Value& container, const Value& index, const Value& v, SourceLoc loc);
// del c[index]: a list's item or slice, a dict's key; the container.
Value delItem(const Value& container, const Value& index, SourceLoc loc);

// Python's slice.indices(len): start/stop clamped for the step; fails on a
// zero step or non-integer bounds.
void sliceIndices(const SliceObj& s, int64_t len, int64_t& start, int64_t& stop, int64_t& step, SourceLoc loc);

// Resolves a Python index (negative from the end) into [0, size) or fails.
int64_t normalizeIndex(int64_t i, int64_t size, const char* what, SourceLoc loc);

}  // namespace nn::rt
