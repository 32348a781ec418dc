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
// Comparison `op` of two ints or two doubles into `out`; false for any
// other op.
template <class T>
[[gnu::always_inline]] inline bool compareNumbers(ir::Op op, T x, T y, Value& out) {
  using ir::Op;
  switch (op) {
    case Op::Lt: out = Value::boolean(x < y); return true;
    case Op::Le: out = Value::boolean(x <= y); return true;
    case Op::Gt: out = Value::boolean(x > y); return true;
    case Op::Ge: out = Value::boolean(x >= y); return true;
    case Op::Eq: out = Value::boolean(x == y); return true;
    case Op::Ne: out = Value::boolean(x != y); return true;
    default: return false;
  }
}

// The commonest ops of loop counters and accumulators, on two ints, two
// floats or an int and a float (Python's int and float mix as floats),
// without the generic dispatch: sets `out` and returns true, or returns
// false where the generic path must decide (another op or kind, an int
// overflow or a division by zero, which it reports, an int // or % by -1,
// whose overflow it handles). What is computed here is what binaryOp and
// compareOp compute.
[[gnu::always_inline]] inline bool numberFastPath(ir::Op op, const Value& a, const Value& b, Value& out) {
  using ir::Op;
  if (a.is(Kind::Int) && b.is(Kind::Int)) {
    int64_t x = a.asInt(), y = b.asInt(), r;
    switch (op) {
      case Op::Add: if (__builtin_add_overflow(x, y, &r)) return false; out = Value::integer(r); return true;
      case Op::Sub: if (__builtin_sub_overflow(x, y, &r)) return false; out = Value::integer(r); return true;
      case Op::Mul: if (__builtin_mul_overflow(x, y, &r)) return false; out = Value::integer(r); return true;
      case Op::Div:
        if (y == 0) return false;
        out = Value::real(static_cast<double>(x) / static_cast<double>(y));
        return true;
      case Op::FloorDiv:  // rounded toward minus infinity
        if (y == 0 || y == -1) return false;
        r = x / y;
        out = Value::integer(r - (x % y != 0 && (x < 0) != (y < 0)));
        return true;
      case Op::Mod:  // of the divisor's sign
        if (y == 0 || y == -1) return false;
        r = x % y;
        out = Value::integer(r != 0 && (r < 0) != (y < 0) ? r + y : r);
        return true;
      default: return compareNumbers(op, x, y, out);
    }
  }
  if (!(a.is(Kind::Float) || a.is(Kind::Int)) || !(b.is(Kind::Float) || b.is(Kind::Int))) return false;
  double x = a.asFloat(), y = b.asFloat();
  switch (op) {
    case Op::Add: out = Value::real(x + y); return true;
    case Op::Sub: out = Value::real(x - y); return true;
    case Op::Mul: out = Value::real(x * y); return true;
    case Op::Div:
      if (y == 0) return false;
      out = Value::real(x / y);
      return true;
    default: return compareNumbers(op, x, y, out);
  }
}

// a < b with Python's ordering rules (used by sorted, min, max).
bool lessThan(const Value& a, const Value& b, SourceLoc loc);
bool contains(const Value& container, const Value& item, SourceLoc loc);

Value getItem(const Value& container, const Value& index, SourceLoc loc);
// Returns the updated container: lists and dicts are updated in place.
Value setItem(const Value& container, const Value& index, const Value& v, SourceLoc loc);
// The write-back of a nested update (`c[i][j] = v` puts c[i] back into c,
// a setitem node marked write_back): an item of a list, tuple or dict that
// is still the same object (a list or dict changed in place) stays, one
// read through a slice (a copy, as in Python) is dropped, a new value (a
// tensor's functional update) replaces the old one, in a new tuple for a
// tuple; a tensor container is updated as setItem does.
Value writeBackItem(const Value& container, const Value& index, const Value& v, SourceLoc loc);
// del c[index]: a list's item or slice, a dict's key; the container.
Value delItem(const Value& container, const Value& index, SourceLoc loc);

// Python's slice.indices(len): start/stop clamped for the step; fails on a
// zero step or non-integer bounds.
void sliceIndices(const SliceObj& s, int64_t len, int64_t& start, int64_t& stop, int64_t& step, SourceLoc loc);

// Resolves a Python index (negative from the end) into [0, size) or fails.
int64_t normalizeIndex(int64_t i, int64_t size, const char* what, SourceLoc loc);
// The KeyError of a key a dict does not have (str(e) is the key's repr).
[[noreturn]] void failMissingKey(const Value& key, SourceLoc loc);

}  // namespace nn::rt
