// Python scalar and container semantics for the interpreter: integer ops
// with overflow detection (ints are 64-bit), floor division and modulo that
// round toward negative infinity, true division to float, int/float mixing,
// sequence concatenation and repetition, lexicographic comparison, and
// indexing with negative indices and slices.
#include "runtime/scalar_ops.h"

#include "runtime/format.h"
#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"

#include <cmath>
#include <limits>

namespace nn::rt {

using ir::Op;

[[noreturn]] static void unsupported(Op op, const Value& a, const Value& b, SourceLoc loc) {
  if (op == Op::Add && (a.is(Kind::Str) || a.is(Kind::List) || a.is(Kind::Tuple)))
    fail(loc, std::string("can only concatenate ") + typeName(a) + " (not \"" + typeName(b) + "\") to " + typeName(a),
         ErrorClass::TypeError);
  fail(loc, std::string("unsupported operand type(s) for ") + (op == Op::Pow ? "** or pow()" : opSymbol(op)) + ": '" +
                typeName(a) + "' and '" +
                typeName(b) + "'");
}

[[noreturn]] static void overflow(SourceLoc loc) { fail(loc, "integer overflow: result does not fit in a 64-bit int"); }

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

static int64_t floorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// CPython's float_divmod.
static void floatDivmod(double a, double b, double& div, double& mod) {
  mod = std::fmod(a, b);
  div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  if (div != 0.0) {
    double floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    div = floordiv;
  } else {
    div = std::copysign(0.0, a / b);
  }
}

static Value intBinary(Op op, int64_t x, int64_t y, bool bothBool, SourceLoc loc) {
  int64_t r = 0;
  switch (op) {
    case Op::Add: if (__builtin_add_overflow(x, y, &r)) overflow(loc); return Value::integer(r);
    case Op::Sub: if (__builtin_sub_overflow(x, y, &r)) overflow(loc); return Value::integer(r);
    case Op::Mul: if (__builtin_mul_overflow(x, y, &r)) overflow(loc); return Value::integer(r);
    case Op::Div:
      if (y == 0) fail(loc, "division by zero");
      return Value::real(static_cast<double>(x) / static_cast<double>(y));
    case Op::FloorDiv:
      if (y == 0) fail(loc, "integer division or modulo by zero");
      if (x == std::numeric_limits<int64_t>::min() && y == -1) overflow(loc);
      return Value::integer(floorDiv(x, y));
    case Op::Mod:
      if (y == 0) fail(loc, "integer division or modulo by zero");
      if (y == -1) return Value::integer(0);
      return Value::integer(floorMod(x, y));
    case Op::Pow: {
      if (y < 0) {
        if (x == 0) fail(loc, "0.0 cannot be raised to a negative power");
        return Value::real(std::pow(static_cast<double>(x), static_cast<double>(y)));
      }
      int64_t result = 1, base = x;
      while (y > 0) {
        if (y & 1)
          if (__builtin_mul_overflow(result, base, &result)) overflow(loc);
        y >>= 1;
        if (y > 0 && __builtin_mul_overflow(base, base, &base)) overflow(loc);
      }
      return Value::integer(result);
    }
    case Op::BitAnd: return bothBool ? Value::boolean(x & y) : Value::integer(x & y);
    case Op::BitOr: return bothBool ? Value::boolean(x | y) : Value::integer(x | y);
    case Op::BitXor: return bothBool ? Value::boolean(x ^ y) : Value::integer(x ^ y);
    case Op::LShift:
      if (y < 0) fail(loc, "negative shift count");
      if (x == 0) return Value::integer(0);
      if (y >= 63 || (x > 0 ? x > (std::numeric_limits<int64_t>::max() >> y)
                            : x < (std::numeric_limits<int64_t>::min() >> y)))
        overflow(loc);
      return Value::integer(static_cast<int64_t>(static_cast<uint64_t>(x) << y));
    case Op::RShift:
      if (y < 0) fail(loc, "negative shift count");
      return Value::integer(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
    default: break;
  }
  fail(loc, "internal error: bad integer op");
}

static Value floatBinary(Op op, double x, double y, const Value& a, const Value& b, SourceLoc loc) {
  switch (op) {
    case Op::Add: return Value::real(x + y);
    case Op::Sub: return Value::real(x - y);
    case Op::Mul: return Value::real(x * y);
    case Op::Div:
      if (y == 0) fail(loc, "float division by zero");
      return Value::real(x / y);
    case Op::FloorDiv:
    case Op::Mod: {
      if (y == 0) fail(loc, op == Op::Mod ? "float modulo by zero" : "float floor division by zero");
      double div, mod;
      floatDivmod(x, y, div, mod);
      return Value::real(op == Op::Mod ? mod : div);
    }
    case Op::Pow:
      if (x == 0 && y < 0) fail(loc, "0.0 cannot be raised to a negative power");
      if (x < 0 && y != std::floor(y)) fail(loc, "negative number cannot be raised to a fractional power");
      return Value::real(std::pow(x, y));
    default: unsupported(op, a, b, loc);
  }
}

static Value repeat(const Value& seq, int64_t n, SourceLoc loc) {
  size_t unit = seq.is(Kind::Str) ? seq.asStr().size() : seq.as<SeqObj>().items.size();
  // An empty sequence repeated any number of times is empty at once: the
  // loops below would otherwise count to n for nothing.
  if (n < 0 || unit == 0) n = 0;
  size_t total = 0;
  if (__builtin_mul_overflow(unit, static_cast<size_t>(n), &total) || total > std::string().max_size())
    fail(loc, seq.is(Kind::Str) ? "repeated string is too long" : "out of memory");
  checkHostAllocation(total, seq.is(Kind::Str) ? 1 : sizeof(Value));
  // Reserving first turns an impossible size into bad_alloc at once
  // instead of after filling memory.
  if (seq.is(Kind::Str)) {
    std::string out;
    out.reserve(total);
    for (int64_t i = 0; i < n; ++i) out += seq.asStr();
    return Value::str(out);
  }
  std::vector<Value> items;
  items.reserve(total);
  for (int64_t i = 0; i < n; ++i)
    for (const Value& v : seq.as<SeqObj>().items) items.push_back(v);
  return seq.is(Kind::List) ? makeList(std::move(items)) : makeTuple(std::move(items));
}

Value binaryOp(Op op, const Value& a, const Value& b, SourceLoc loc, unsigned consumable) {
  if (op == Op::Mod && a.is(Kind::Str)) return Value::str(percentFormat(a.asStr(), b, loc));
  if (a.is(Kind::Tensor) || b.is(Kind::Tensor)) {
    if (op == Op::MatMul) {
      if (!a.is(Kind::Tensor) || !b.is(Kind::Tensor))
        fail(loc, std::string("unsupported operand type(s) for @: '") + typeName(a) + "' and '" + typeName(b) + "'");
      return makeTensorValue(matmul(tensorOf(a), tensorOf(b), loc));
    }
    return tensorBinary(op, a, b, loc, consumable);
  }
  if (a.isNumber() && b.isNumber()) {
    if (op == Op::MatMul) unsupported(op, a, b, loc);
    if (a.isIntLike() && b.isIntLike())
      return intBinary(op, a.asInt(), b.asInt(), a.is(Kind::Bool) && b.is(Kind::Bool), loc);
    if (op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor || op == Op::LShift || op == Op::RShift)
      unsupported(op, a, b, loc);
    return floatBinary(op, a.asFloat(), b.asFloat(), a, b, loc);
  }
  bool seqA = a.is(Kind::Str) || a.is(Kind::List) || a.is(Kind::Tuple);
  if (op == Op::Add && a.kind() == b.kind() && seqA) {
    if (a.is(Kind::Str)) return Value::str(a.asStr() + b.asStr());
    std::vector<Value> items = a.as<SeqObj>().items;
    for (const Value& v : b.as<SeqObj>().items) items.push_back(v);
    return a.is(Kind::List) ? makeList(std::move(items)) : makeTuple(std::move(items));
  }
  // dict | dict: a new dict, b's values over a's (Python 3.9).
  if (op == Op::BitOr && a.is(Kind::Dict) && b.is(Kind::Dict)) {
    Value merged = makeDict();
    merged.as<DictObj>().copyFrom(a.as<DictObj>());
    for (const auto& [key, value] : b.as<DictObj>().items) merged.as<DictObj>().set(key, value);
    return merged;
  }
  if (op == Op::Mul && seqA && b.isIntLike()) return repeat(a, b.asInt(), loc);
  bool seqB = b.is(Kind::Str) || b.is(Kind::List) || b.is(Kind::Tuple);
  if (op == Op::Mul && seqB && a.isIntLike()) return repeat(b, a.asInt(), loc);
  unsupported(op, a, b, loc);
}

Value unaryOp(Op op, const Value& a, SourceLoc loc, unsigned consumable) {
  switch (op) {
    case Op::Not: return Value::boolean(!truthy(a, loc));
    case Op::Truth: return Value::boolean(truthy(a, loc));
    default: break;
  }
  if (a.is(Kind::Tensor)) return tensorUnary(op, a, loc, consumable);
  switch (op) {
    case Op::Neg:
      if (a.is(Kind::Float)) return Value::real(-a.asFloat());
      if (a.isIntLike()) {
        if (a.asInt() == std::numeric_limits<int64_t>::min()) overflow(loc);
        return Value::integer(-a.asInt());
      }
      fail(loc, std::string("bad operand type for unary -: '") + typeName(a) + "'");
    case Op::Pos:
      if (a.is(Kind::Float)) return a;
      if (a.isIntLike()) return Value::integer(a.asInt());
      fail(loc, std::string("bad operand type for unary +: '") + typeName(a) + "'");
    case Op::Invert:
      if (a.isIntLike()) return Value::integer(~a.asInt());
      fail(loc, std::string("bad operand type for unary ~: '") + typeName(a) + "'");
    default: fail(loc, "internal error: bad unary op");
  }
}

// Three-way comparison for ordered kinds; fails for unordered ones.
// Sequences compare item by item, at most 1000 levels deep (Python's
// recursion limit).
static int compare3(Op op, const Value& a, const Value& b, SourceLoc loc, size_t depth = 0) {
  if (a.isNumber() && b.isNumber()) {
    if (a.isIntLike() && b.isIntLike()) return a.asInt() < b.asInt() ? -1 : a.asInt() > b.asInt() ? 1 : 0;
    double x = a.asFloat(), y = b.asFloat();
    if (std::isnan(x) || std::isnan(y)) return 2;  // unordered: every ordering test is false
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is(Kind::Str) && b.is(Kind::Str)) {
    int c = a.asStr().compare(b.asStr());
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if (a.kind() == b.kind() && (a.is(Kind::List) || a.is(Kind::Tuple))) {
    if (depth >= 1000) fail(loc, "maximum recursion depth exceeded in comparison", ErrorClass::RecursionError);
    const auto& x = a.as<SeqObj>().items;
    const auto& y = b.as<SeqObj>().items;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (equal(x[i], y[i])) continue;
      return compare3(op, x[i], y[i], loc, depth + 1);
    }
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  fail(loc, std::string("'") + opSymbol(op) + "' not supported between instances of '" + typeName(a) + "' and '" +
                typeName(b) + "'");
}

bool lessThan(const Value& a, const Value& b, SourceLoc loc) {
  // A tensor's `<` is elementwise, and Python's min, max and sorted read
  // its truth, as they do with PyTorch's: a one-element tensor orders, a
  // larger one is ambiguous.
  if (a.is(Kind::Tensor) || b.is(Kind::Tensor)) return truthy(binaryOp(Op::Lt, a, b, loc), loc);
  return compare3(Op::Lt, a, b, loc) == -1;
}

bool contains(const Value& c, const Value& item, SourceLoc loc) {
  switch (c.kind()) {
    case Kind::Str:
      if (!item.is(Kind::Str))
        fail(loc, std::string("'in <string>' requires string as left operand, not ") + typeName(item),
             ErrorClass::TypeError);
      return c.asStr().find(item.asStr()) != std::string::npos;
    case Kind::List:
    case Kind::Tuple:
      for (const Value& v : c.as<SeqObj>().items)
        if (equal(v, item)) return true;
      return false;
    case Kind::Dict: return item.is(Kind::Str) && c.as<DictObj>().find(item) != nullptr;
    case Kind::Lazy: {
      // The length first: reading an iterator's items shortens it.
      auto& seq = c.as<LazySeqObj>();
      for (int64_t i = 0, n = seq.length(); i < n; ++i)
        if (equal(seq.at(i, loc), item)) return true;
      return false;
    }
    case Kind::Range: {
      if (!item.isNumber()) return false;
      const auto& r = c.as<RangeObj>();
      for (int64_t i = 0, n = r.length(); i < n; ++i)
        if (equal(Value::integer(r.at(i)), item)) return true;
      return false;
    }
    default: fail(loc, std::string("argument of type '") + typeName(c) + "' is not iterable", ErrorClass::TypeError);
  }
}

Value compareOp(Op op, const Value& a, const Value& b, SourceLoc loc) {
  bool tensors = a.is(Kind::Tensor) || b.is(Kind::Tensor);
  if (tensors && op != Op::Is && op != Op::IsNot) {
    if (op == Op::In || op == Op::NotIn) fail(loc, "'in' is not supported for tensors");
    return tensorBinary(op, a, b, loc);
  }
  switch (op) {
    case Op::Eq: return Value::boolean(equal(a, b));
    case Op::Ne: return Value::boolean(!equal(a, b));
    case Op::Is:
    case Op::IsNot: {
      bool same;
      if (a.kind() != b.kind()) same = false;
      else if (a.is(Kind::None) || a.is(Kind::Ellipsis)) same = true;
      else if (a.is(Kind::Bool)) same = a.asBool() == b.asBool();
      else if (a.is(Kind::Int)) same = a.asInt() == b.asInt();
      else if (a.is(Kind::Float)) same = a.asFloat() == b.asFloat();
      else same = a.ptr() == b.ptr();
      return Value::boolean(op == Op::Is ? same : !same);
    }
    case Op::In: return Value::boolean(contains(b, a, loc));
    case Op::NotIn: return Value::boolean(!contains(b, a, loc));
    default: break;
  }
  int c = compare3(op, a, b, loc);
  switch (op) {
    case Op::Lt: return Value::boolean(c == -1);
    case Op::Le: return Value::boolean(c == -1 || c == 0);
    case Op::Gt: return Value::boolean(c == 1);
    case Op::Ge: return Value::boolean(c == 1 || c == 0);
    default: fail(loc, "internal error: bad comparison");
  }
}

int64_t normalizeIndex(int64_t i, int64_t size, const char* what, SourceLoc loc) {
  int64_t j = i < 0 ? i + size : i;
  if (j < 0 || j >= size)
    fail(loc,
         std::string(what) + " index out of range: index " + std::to_string(i) + " for length " +
             std::to_string(size),
         ErrorClass::IndexError, std::string(what) + " index out of range");
  return j;
}

void failMissingKey(const Value& key, SourceLoc loc) {
  fail(loc, "key " + repr(key) + " not found in dict", ErrorClass::KeyError, str(key));
}

void sliceIndices(const SliceObj& s, int64_t len, int64_t& start, int64_t& stop, int64_t& step, SourceLoc loc) {
  auto intOf = [&](const Value& v, const char* what) -> int64_t {
    if (!v.isIntLike()) fail(loc, std::string("slice ") + what + " must be an integer or None");
    return v.asInt();
  };
  step = s.step.is(Kind::None) ? 1 : intOf(s.step, "step");
  if (step == 0) fail(loc, "slice step cannot be zero");
  auto clamp = [&](const Value& v, int64_t dflt, const char* what) {
    if (v.is(Kind::None)) return dflt;
    int64_t i = intOf(v, what);
    if (i < 0) {
      i += len;
      if (i < 0) i = step < 0 ? -1 : 0;
    } else if (i >= len) {
      i = step < 0 ? len - 1 : len;
    }
    return i;
  };
  start = clamp(s.start, step < 0 ? len - 1 : 0, "start");
  stop = clamp(s.stop, step < 0 ? -1 : len, "stop");
}

static std::vector<int64_t> sliceRange(const SliceObj& s, int64_t len, SourceLoc loc) {
  int64_t start, stop, step;
  sliceIndices(s, len, start, stop, step, loc);
  std::vector<int64_t> idx;
  if (step > 0)
    for (int64_t i = start; i < stop; i += step) idx.push_back(i);
  else
    for (int64_t i = start; i > stop; i += step) idx.push_back(i);
  return idx;
}

Value getItem(const Value& c, const Value& index, SourceLoc loc) {
  switch (c.kind()) {
    case Kind::Tensor: return makeTensorValue(tensorGetItem(tensorOf(c), index, loc));
    case Kind::List:
    case Kind::Tuple: {
      const auto& items = c.as<SeqObj>().items;
      const char* what = c.is(Kind::List) ? "list" : "tuple";
      if (index.isIntLike())
        return items[normalizeIndex(index.asInt(), static_cast<int64_t>(items.size()), what, loc)];
      if (index.is(Kind::Slice)) {
        std::vector<Value> out;
        for (int64_t i : sliceRange(index.as<SliceObj>(), static_cast<int64_t>(items.size()), loc))
          out.push_back(items[i]);
        return c.is(Kind::List) ? makeList(std::move(out)) : makeTuple(std::move(out));
      }
      fail(loc, std::string(what) + " indices must be integers or slices, not " + typeName(index));
    }
    case Kind::Str: {
      const std::string& bytes = c.asStr();
      bool ascii = utf8Length(bytes) == bytes.size();
      std::vector<std::string> chars = ascii ? std::vector<std::string>{} : utf8Chars(bytes);
      int64_t len = static_cast<int64_t>(ascii ? bytes.size() : chars.size());
      auto at = [&](int64_t i) { return ascii ? std::string(1, bytes[i]) : chars[i]; };
      if (index.isIntLike()) return Value::str(at(normalizeIndex(index.asInt(), len, "string", loc)));
      if (index.is(Kind::Slice)) {
        std::string out;
        for (int64_t i : sliceRange(index.as<SliceObj>(), len, loc)) out += at(i);
        return Value::str(out);
      }
      fail(loc, std::string("string indices must be integers, not '") + typeName(index) + "'");
    }
    case Kind::Dict: {
      if (!index.is(Kind::Str)) fail(loc, std::string("dict keys must be str, not ") + typeName(index));
      Value* v = c.as<DictObj>().find(index);
      if (!v) failMissingKey(index, loc);
      return *v;
    }
    case Kind::Range: {
      const auto& r = c.as<RangeObj>();
      if (index.isIntLike()) return Value::integer(r.at(normalizeIndex(index.asInt(), r.length(), "range object", loc)));
      if (index.is(Kind::Slice)) {
        // A range again, as Python's: the items at the slice's indices.
        int64_t start, stop, step;
        sliceIndices(index.as<SliceObj>(), r.length(), start, stop, step, loc);
        __int128 first = __int128(r.start) + __int128(start) * r.step;
        __int128 last = __int128(r.start) + __int128(stop) * r.step, by = __int128(r.step) * step;
        auto fits = [](__int128 x) { return x >= INT64_MIN && x <= INT64_MAX; };
        if (!fits(first) || !fits(last) || !fits(by)) fail(loc, "range slice: bounds do not fit in int64");
        auto out = std::make_shared<RangeObj>();
        out->start = static_cast<int64_t>(first);
        out->stop = static_cast<int64_t>(last);
        out->step = static_cast<int64_t>(by);
        return Value::object(Kind::Range, std::move(out));
      }
      fail(loc, std::string("range indices must be integers or slices, not ") + typeName(index));
    }
    default: fail(loc, std::string("'") + typeName(c) + "' object is not subscriptable");
  }
}

Value setItem(const Value& c, const Value& index, const Value& v, SourceLoc loc) {
  switch (c.kind()) {
    case Kind::Tensor: return makeTensorValue(tensorSetItem(tensorOf(c), index, v, loc));
    case Kind::List: {
      auto& items = c.as<SeqObj>().items;
      if (index.isIntLike()) {
        items[normalizeIndex(index.asInt(), static_cast<int64_t>(items.size()), "list assignment", loc)] = v;
        return c;
      }
      if (index.is(Kind::Slice)) {
        if (!v.is(Kind::List) && !v.is(Kind::Tuple))
          fail(loc, "can only assign a list or tuple to a list slice");
        auto idx = sliceRange(index.as<SliceObj>(), static_cast<int64_t>(items.size()), loc);
        const auto& src = v.as<SeqObj>().items;
        const auto& s = index.as<SliceObj>();
        bool simple = s.step.is(Kind::None) || (s.step.isIntLike() && s.step.asInt() == 1);
        if (simple) {
          int64_t start, stop, step;
          sliceIndices(s, static_cast<int64_t>(items.size()), start, stop, step, loc);
          if (stop < start) stop = start;
          std::vector<Value> copy = src;
          if (copy.size() > static_cast<size_t>(stop - start))
            c.as<SeqObj>().reserveMore(copy.size() - static_cast<size_t>(stop - start));
          items.erase(items.begin() + start, items.begin() + stop);
          items.insert(items.begin() + start, copy.begin(), copy.end());
          return c;
        }
        if (idx.size() != src.size())
          fail(loc, "attempt to assign sequence of size " + std::to_string(src.size()) +
                        " to extended slice of size " + std::to_string(idx.size()));
        std::vector<Value> copy = src;
        for (size_t i = 0; i < idx.size(); ++i) items[idx[i]] = copy[i];
        return c;
      }
      fail(loc, std::string("list indices must be integers or slices, not ") + typeName(index));
    }
    case Kind::Dict:
      if (!index.is(Kind::Str)) fail(loc, std::string("dict keys must be str, not ") + typeName(index));
      c.as<DictObj>().set(index, v);
      return c;
    default: fail(loc, std::string("'") + typeName(c) + "' object does not support item assignment", ErrorClass::TypeError);
  }
}

Value writeBackItem(const Value& c, const Value& index, const Value& v, SourceLoc loc) {
  auto same = [&](const Value& item) { return item.ptr() && item.ptr() == v.ptr(); };
  switch (c.kind()) {
    case Kind::List:
    case Kind::Tuple: {
      // Through a slice the update changed a copy, which Python drops; a
      // bad index raises as setItem's does.
      if (index.is(Kind::Slice)) return c;
      if (!index.isIntLike()) return setItem(c, index, v, loc);
      const auto& items = c.as<SeqObj>().items;
      int64_t at = normalizeIndex(index.asInt(), static_cast<int64_t>(items.size()),
                                  c.is(Kind::List) ? "list assignment" : "tuple", loc);
      if (same(items[at])) return c;
      if (c.is(Kind::List)) return setItem(c, index, v, loc);
      std::vector<Value> copy = items;
      copy[at] = v;
      return makeTuple(std::move(copy));
    }
    case Kind::Dict:
      if (index.is(Kind::Str))
        if (Value* item = c.as<DictObj>().find(index); item && same(*item)) return c;
      return setItem(c, index, v, loc);
    default: return setItem(c, index, v, loc);
  }
}

Value delItem(const Value& c, const Value& index, SourceLoc loc) {
  switch (c.kind()) {
    case Kind::List: {
      auto& items = c.as<SeqObj>().items;
      if (index.isIntLike()) {
        int64_t i = normalizeIndex(index.asInt(), static_cast<int64_t>(items.size()), "list assignment", loc);
        items.erase(items.begin() + i);
        return c;
      }
      if (index.is(Kind::Slice)) {
        std::vector<int64_t> idx = sliceRange(index.as<SliceObj>(), static_cast<int64_t>(items.size()), loc);
        std::vector<bool> gone(items.size(), false);
        for (int64_t i : idx) gone[static_cast<size_t>(i)] = true;
        size_t kept = 0;
        for (size_t i = 0; i < items.size(); ++i)
          if (!gone[i]) items[kept++] = std::move(items[i]);
        items.resize(kept);
        return c;
      }
      fail(loc, std::string("list indices must be integers or slices, not ") + typeName(index));
    }
    case Kind::Dict:
      if (!index.is(Kind::Str)) fail(loc, std::string("dict keys must be str, not ") + typeName(index));
      if (!c.as<DictObj>().erase(index.asStr())) failMissingKey(index, loc);
      return c;
    default: fail(loc, std::string("'") + typeName(c) + "' object doesn't support item deletion", ErrorClass::TypeError);
  }
}

}  // namespace nn::rt
