// The core builtins (language.md §5 "core"): print, len, range, enumerate,
// zip, min, max, abs, sum, divmod, int, float, bool, str, repr, round,
// tuple, list, dict, sorted, reversed, slice, map, filter, any, all, exit,
// plus the @jit/@eager decorators, and the one table of every builtin
// (the other builtins_*.cpp files add theirs). Semantics follow Python.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

#include "ir/builtins.h"
#include "runtime/scalar_ops.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "runtime/unicode.h"
#include "stdlib/builtins.h"
#include "stdlib/help.h"
#include "support/utf8.h"

namespace nn::stdlib {

using namespace nn::rt;

void arityError(CallContext& c, const std::vector<Value>& args, size_t min, size_t max) {
  // A method counts what its caller wrote, not its receiver, and names the
  // receiver's type as Python does (list.append() takes 1 argument).
  std::string who = c.name + "()";
  size_t given = args.size();
  if (c.receiverFirst && min > 0) {
    --min, --given;
    if (max != SIZE_MAX) --max;
    Kind k = args[0].kind();
    if (k == Kind::List || k == Kind::Dict || k == Kind::Str || k == Kind::Tuple || k == Kind::Tensor)
      who = std::string(typeName(args[0])) + "." + who;
  }
  auto count = [](size_t n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); };
  std::string expected = min == max && min == 0 ? "no arguments"
                         : min == max           ? count(min)
                         : max == SIZE_MAX      ? "at least " + count(min)
                                                : "from " + std::to_string(min) + " to " + count(max);
  fail(c.loc, who + " takes " + expected + " (" + std::to_string(given) + " given)");
}

std::vector<Value> iterate(const Value& v, SourceLoc loc) {
  switch (v.kind()) {
    case Kind::List:
    case Kind::Tuple: return v.as<SeqObj>().items;
    case Kind::Range: {
      const auto& r = v.as<RangeObj>();
      std::vector<Value> out;
      checkHostAllocation(static_cast<size_t>(r.length()), sizeof(Value));
      out.reserve(static_cast<size_t>(r.length()));
      for (int64_t i = 0, n = r.length(); i < n; ++i) out.push_back(Value::integer(r.at(i)));
      return out;
    }
    case Kind::Str: return charValues(v.asStr());
    case Kind::Dict: {
      std::vector<Value> out;
      for (const auto& kv : v.as<DictObj>().items) out.push_back(Value::str(kv.first));
      return out;
    }
    case Kind::Lazy: return v.as<LazySeqObj>().items(loc);
    default: fail(loc, std::string("'") + typeName(v) + "' object is not iterable");
  }
}

std::vector<Value> iterate(CallContext& c, const Value& v) {
  if (v.is(Kind::Tensor)) return c.interp.unpackItems(v, c.loc);
  return iterate(v, c.loc);
}

int64_t toIndex(const Value& v, SourceLoc loc) {
  if (!v.isIntLike())
    fail(loc, std::string("'") + typeName(v) + "' object cannot be interpreted as an integer", ErrorClass::TypeError);
  return v.asInt();
}

namespace {

Value bPrint(CallContext& c, std::vector<Value>& args) {
  std::string sep = " ", end = "\n";
  if (const Value* s = c.kw("sep"); s && !s->is(Kind::None)) {
    if (!s->is(Kind::Str)) fail(c.loc, std::string("sep must be None or a string, not ") + typeName(*s));
    sep = s->asStr();
  }
  if (const Value* e = c.kw("end"); e && !e->is(Kind::None)) {
    if (!e->is(Kind::Str)) fail(c.loc, std::string("end must be None or a string, not ") + typeName(*e));
    end = e->asStr();
  }
  // flush=True: written through at once (a log read through a pipe
  // while the script runs), as a terminal's line is.
  const Value* flush = c.kw("flush");
  bool flushing = flush && truthy(*flush, c.loc);
  std::string line;
  for (size_t i = 0; i < args.size(); ++i) line += (i ? sep : "") + str(args[i]);
  std::ostream& out = printStream(c, c.kw("file"));
  out << line << end;
  if (flushing) out.flush();
  return Value::none();
}

Value bLen(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  const Value& v = args[0];
  int64_t n = 0;
  if (lengthOf(v, n)) return Value::integer(n);
  if (v.is(Kind::Tensor)) fail(c.loc, "len() of a 0-d tensor");
  fail(c.loc, std::string("object of type '") + typeName(v) + "' has no len()");
}

Value bRange(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 3);
  auto r = std::make_shared<RangeObj>();
  if (args.size() == 1) {
    r->stop = toIndex(args[0], c.loc);
  } else {
    r->start = toIndex(args[0], c.loc);
    r->stop = toIndex(args[1], c.loc);
    if (args.size() == 3) r->step = toIndex(args[2], c.loc);
  }
  if (r->step == 0) fail(c.loc, "range() arg 3 must not be zero");
  return Value::object(Kind::Range, std::move(r));
}

// enumerate and zip read their inputs as a loop takes their items, as
// Python's iterators do: a loop over enumerate(xs) sees items appended to
// the list xs meanwhile, and the items of a lazy sequence (data.batches,
// progress) are still made one at a time. Each input is the loop's own
// view of it (interpreter.h's iterable: a str or dict as a tuple of its
// items), except a tensor, whose rows are taken at the call (on the tape
// when one records).
Value itemsView(CallContext& c, const Value& v) {
  if (v.is(Kind::Tensor)) return makeTuple(iterate(c, v));
  return iterable(v, c.loc);
}

class LazyEnumerate final : public LazySeqObj {
 public:
  LazyEnumerate(Value items, int64_t start) : items_(std::move(items)), start_(start) {}
  const char* typeName() const override { return "enumerate"; }
  int64_t length() const override { return iterLength(items_); }
  Value at(int64_t i, SourceLoc loc) override {
    int64_t index;
    if (__builtin_add_overflow(start_, i, &index)) fail(loc, "integer overflow: result does not fit in a 64-bit int");
    return makeTuple({Value::integer(index), iterItem(items_, i, loc)});
  }
  void forEachHeldValue(const std::function<void(Value&)>& f) override { f(items_); }

 private:
  Value items_;
  int64_t start_;
};

class LazyZip final : public LazySeqObj {
 public:
  explicit LazyZip(std::vector<Value> inputs) : inputs_(std::move(inputs)) {}
  const char* typeName() const override { return "zip"; }
  int64_t length() const override {
    if (inputs_.empty()) return 0;
    int64_t n = INT64_MAX;
    for (const Value& v : inputs_) n = std::min(n, iterLength(v));
    return n;
  }
  Value at(int64_t i, SourceLoc loc) override {
    std::vector<Value> t;
    for (const Value& v : inputs_) t.push_back(iterItem(v, i, loc));
    return makeTuple(std::move(t));
  }
  void forEachHeldValue(const std::function<void(Value&)>& f) override {
    for (Value& v : inputs_) f(v);
  }

 private:
  std::vector<Value> inputs_;
};

Value bEnumerate(CallContext& c, std::vector<Value>& args) {
  int64_t start = 0;
  if (const Value* s = c.kw("start")) start = toIndex(*s, c.loc);
  checkArity(c, args, 1, 2);
  if (args.size() == 2) start = toIndex(args[1], c.loc);
  return Value::object(Kind::Lazy, std::make_shared<LazyEnumerate>(itemsView(c, args[0]), start));
}

Value bZip(CallContext& c, std::vector<Value>& args) {
  std::vector<Value> inputs;
  for (const Value& a : args) inputs.push_back(itemsView(c, a));
  return Value::object(Kind::Lazy, std::make_shared<LazyZip>(std::move(inputs)));
}

Value minMax(CallContext& c, std::vector<Value>& args, bool isMax) {
  if (!args.empty() && args[0].is(Kind::Tensor)) {
    ir::Op op = isMax ? ir::Op::Max : ir::Op::Min;
    bool twoTensors = args.size() == 2 && args[1].is(Kind::Tensor) && c.kwnames.empty();
    return tensorReduction(c, args, twoTensors ? *ir::pairwiseForm(op) : op);
  }
  const Value* key = c.kw("key");
  const Value* dflt = c.kw("default");
  c.checkKeywordsUsed(isMax ? "max" : "min");
  if (args.empty()) fail(c.loc, c.name + " expected at least 1 argument, got 0");
  std::vector<Value> items = args.size() == 1 ? iterate(c, args[0]) : args;
  if (items.empty()) {
    if (dflt) return *dflt;
    fail(c.loc, c.name + "() arg is an empty sequence");
  }
  auto keyOf = [&](const Value& v) {
    return key && !key->is(Kind::None) ? c.interp.call(*key, {v}, c.loc) : v;
  };
  Value best = items[0], bestKey = keyOf(items[0]);
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = keyOf(items[i]);
    bool better = isMax ? lessThan(bestKey, k, c.loc) : lessThan(k, bestKey, c.loc);
    if (better) best = items[i], bestKey = k;
  }
  return best;
}
Value bMin(CallContext& c, std::vector<Value>& args) { return minMax(c, args, false); }
Value bMax(CallContext& c, std::vector<Value>& args) { return minMax(c, args, true); }

Value bAbs(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  const Value& v = args[0];
  if (v.is(Kind::Tensor)) return tensorMath(c, v, ir::Op::Abs);
  if (v.is(Kind::Float)) return Value::real(std::fabs(v.asFloat()));
  if (v.isIntLike()) {
    if (v.asInt() == std::numeric_limits<int64_t>::min()) fail(c.loc, "integer overflow in abs()");
    return Value::integer(std::llabs(v.asInt()));
  }
  fail(c.loc, std::string("bad operand type for abs(): '") + typeName(v) + "'");
}

Value bSum(CallContext& c, std::vector<Value>& args) {
  if (!args.empty() && args[0].is(Kind::Tensor)) return tensorReduction(c, args, ir::Op::Sum);
  Value acc = Value::integer(0);
  if (const Value* s = c.kw("start")) acc = *s;
  c.checkKeywordsUsed("sum");
  checkArity(c, args, 1, 2);
  if (args.size() == 2) acc = args[1];
  if (acc.is(Kind::Str)) fail(c.loc, "sum() can't sum strings [use ''.join(seq) instead]");
  for (const Value& v : iterate(c, args[0])) {
    Value next = binaryOp(ir::Op::Add, acc, v, c.loc);
    if (rt::Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::Add, c.loc, {acc, v}, next);
    acc = std::move(next);
  }
  return acc;
}

Value bDivmod(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  return makeTuple({binaryOp(ir::Op::FloorDiv, args[0], args[1], c.loc),
                    binaryOp(ir::Op::Mod, args[0], args[1], c.loc)});
}

// Text with Unicode digits and spaces as ASCII ones, stripped of spaces.
std::string strippedAscii(const std::string& s) {
  std::string ascii = asciiDigitsAndSpaces(s);
  size_t b = ascii.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return ascii.substr(b, ascii.find_last_not_of(' ') - b + 1);
}

// A number's text as int() and float() read it, as Python's: Unicode
// decimal digits as ASCII ones (٣ as 3) and whitespace as spaces (other
// non-ASCII characters as '?', in no number), stripped, and the
// underscores that separate two digits dropped (PEP 515: 1_000); empty
// when an underscore stands anywhere else.
std::string numberText(const std::string& s) {
  std::string ascii = strippedAscii(s);
  auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  std::string out;
  for (size_t i = 0; i < ascii.size(); ++i) {
    if (ascii[i] != '_') {
      out += ascii[i];
      continue;
    }
    if (i == 0 || i + 1 == ascii.size() || !digit(ascii[i - 1]) || !digit(ascii[i + 1])) return "";
  }
  return out;
}

// A str argument quoted in an error message: its repr cut to 200
// characters (CPython's int() writes "%.200R"), so that a long one cannot
// flood the report.
std::string quotedPrefix(const Value& text) {
  auto prefix = [](const std::string& s) {
    size_t end = 0;
    for (int k = 0; k < 200 && end < s.size(); ++k) end += decodeUtf8(s, end).len;
    return s.substr(0, end);
  };
  return prefix(repr(Value::str(prefix(text.asStr()))));
}

// Python's int(s, base) of a str: stripped, an optional sign, then with
// base 0 a literal's prefix (0x, 0o, 0b) or a decimal without leading
// zeros, with base 16, 8 or 2 optionally its prefix; digits below the base
// (letters from 10 on), one underscore between two of them or after the
// prefix. Unicode digits and spaces count as numberText's do.
Value intOfText(CallContext& c, const Value& text, int64_t base) {
  auto invalid = [&]() -> Value {
    fail(c.loc, "invalid literal for int() with base " + std::to_string(base) + ": " + quotedPrefix(text));
  };
  // Stripped here, not through numberText, whose underscores go before the
  // prefix is known ("0x_f").
  std::string s = strippedAscii(text.asStr());
  if (s.empty()) return invalid();
  size_t i = 0;
  bool negative = s[i] == '-';
  if (s[i] == '-' || s[i] == '+') ++i;
  int radix = static_cast<int>(base);
  bool prefixed = false;
  if (s.size() >= i + 2 && s[i] == '0') {
    char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i + 1])));
    int named = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
    if (named && (base == 0 || base == named)) radix = named, prefixed = true, i += 2;
  }
  if (radix == 0) radix = 10;
  uint64_t magnitude = 0, limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  bool overflow = false;
  char first = 0;  // digit
  for (; i < s.size(); ++i) {
    char ch = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    if (ch == '_') {
      // Between two digits, or right after the prefix.
      if (!(first || prefixed) || i + 1 == s.size() || s[i + 1] == '_') return invalid();
      continue;
    }
    int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'z' ? ch - 'a' + 10 : 99;
    if (d >= radix) return invalid();
    if (!first) first = ch;
    if (magnitude > (limit - static_cast<uint64_t>(d)) / static_cast<uint64_t>(radix)) overflow = true;
    else
      magnitude = magnitude * static_cast<uint64_t>(radix) + static_cast<uint64_t>(d);
  }
  if (!first) return invalid();
  // Base 0 reads a decimal as a literal: no leading zeros ("010"; "00" is 0).
  if (base == 0 && !prefixed && first == '0' && (magnitude || overflow)) return invalid();
  if (overflow)
    fail(c.loc, "integer overflow: int() of " + quotedPrefix(text) + " does not fit in a 64-bit int",
         ErrorClass::OverflowError);
  return Value::integer(negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude));
}

Value bInt(CallContext& c, std::vector<Value>& args) {
  c.keywordsToPositions(args, 1, {{"base", Value::integer(10)}});
  checkArity(c, args, 0, 2);
  if (args.empty()) return Value::integer(0);
  if (args.size() == 2) {
    int64_t base = toIndex(args[1], c.loc);
    if (base != 0 && (base < 2 || base > 36))
      fail(c.loc, "int() base must be >= 2 and <= 36, or 0", ErrorClass::ValueError);
    if (!args[0].is(Kind::Str)) fail(c.loc, "int() can't convert non-string with explicit base", ErrorClass::TypeError);
    return intOfText(c, args[0], base);
  }
  Value v = args[0].is(Kind::Tensor) ? item(tensorOf(args[0]), c.loc) : args[0];
  if (v.isIntLike()) return Value::integer(v.asInt());
  if (v.is(Kind::Float)) {
    double d = v.asFloat();
    if (std::isnan(d)) fail(c.loc, "cannot convert float NaN to integer");
    if (std::isinf(d)) fail(c.loc, "cannot convert float infinity to integer");
    double t = std::trunc(d);
    if (t >= 9223372036854775808.0 || t < -9223372036854775808.0) fail(c.loc, "integer overflow: float too large for a 64-bit int");
    return Value::integer(static_cast<int64_t>(t));
  }
  if (v.is(Kind::Str)) return intOfText(c, v, 10);
  fail(c.loc, std::string("int() argument must be a string or a number, not '") + typeName(v) + "'");
}

Value bFloat(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 1);
  if (args.empty()) return Value::real(0.0);
  Value v = args[0].is(Kind::Tensor) ? item(tensorOf(args[0]), c.loc) : args[0];
  if (v.isNumber()) return Value::real(v.asFloat());
  if (v.is(Kind::Str)) {
    std::string s = numberText(v.asStr());
    std::string lower;
    for (char ch : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "inf" || lower == "+inf" || lower == "infinity") return Value::real(HUGE_VAL);
    if (lower == "-inf" || lower == "-infinity") return Value::real(-HUGE_VAL);
    if (lower == "nan" || lower == "+nan" || lower == "-nan") return Value::real(std::nan(""));
    char* end = nullptr;
    double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
    if (s.empty() || *end || lower.find_first_of("xp") != std::string::npos)
      fail(c.loc, "could not convert string to float: " + quotedPrefix(v));
    return Value::real(d);
  }
  fail(c.loc, std::string("float() argument must be a string or a number, not '") + typeName(v) + "'");
}

Value bBool(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 1);
  return Value::boolean(!args.empty() && truthy(args[0], c.loc));
}

Value bStr(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 1);
  // A str is its own str, as in Python: the same object, as strs never
  // change (no copy of its text).
  if (!args.empty() && args[0].is(Kind::Str)) return std::move(args[0]);
  return Value::str(args.empty() ? std::string() : str(args[0]));
}

Value bRepr(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  return Value::str(repr(args[0]));
}

// round(x, n) of an int x: x itself for n >= 0, else the nearest multiple
// of 10**-n, ties to the even multiple (round(1250, -2) == 1200), as Python.
Value roundInt(int64_t x, int64_t n, SourceLoc loc) {
  if (n >= 0) return Value::integer(x);
  // Every int64 is below half of 10**20: all round to 0.
  if (n < -19) return Value::integer(0);
  __int128 unit = 1;
  for (int64_t k = 0; k < -n; ++k) unit *= 10;
  __int128 q = x / unit, r = x % unit;
  if (r < 0) r += unit, q -= 1;  // floor division
  if (2 * r > unit || (2 * r == unit && (q & 1) != 0)) q += 1;
  __int128 rounded = q * unit;
  if (rounded > INT64_MAX || rounded < INT64_MIN)
    fail(loc, "integer overflow: rounded value does not fit in a 64-bit int");
  return Value::integer(static_cast<int64_t>(rounded));
}

Value bRound(CallContext& c, std::vector<Value>& args) {
  c.keywordsToPositions(args, 1, {{"ndigits", Value::none()}});
  checkArity(c, args, 1, 2);
  const Value& v = args[0];
  if (v.is(Kind::Tensor)) {
    if (args.size() == 2) fail(c.loc, "round(): ndigits is not supported for tensors");
    return tensorMath(c, v, ir::Op::Round);
  }
  if (!v.isNumber()) fail(c.loc, std::string("type ") + typeName(v) + " doesn't define __round__ method");
  bool hasDigits = args.size() == 2 && !args[1].is(Kind::None);
  if (v.isIntLike())
    return hasDigits ? roundInt(v.asInt(), toIndex(args[1], c.loc), c.loc) : Value::integer(v.asInt());
  double d = v.asFloat();
  if (!hasDigits) {
    if (std::isnan(d)) fail(c.loc, "cannot convert float NaN to integer");
    if (std::isinf(d)) fail(c.loc, "cannot convert float infinity to integer");
    double r = std::nearbyint(d);  // ties to even
    if (r >= 9223372036854775808.0 || r < -9223372036854775808.0)
      fail(c.loc, "integer overflow: rounded value does not fit in a 64-bit int");
    return Value::integer(static_cast<int64_t>(r));
  }
  int64_t n = toIndex(args[1], c.loc);
  if (!std::isfinite(d) || n > 300) return Value::real(d);
  if (n >= 0) {
    // Correct rounding of the exact binary value, as Python does: printf's
    // conversion is exact, so round(2.675, 2) == 2.67.
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(n), d);
    return Value::real(std::strtod(buf, nullptr));
  }
  // Below 10**308 every finite float rounds to (signed) zero, as Python's.
  if (n < -308) return Value::real(std::copysign(0.0, d));
  double scale = std::pow(10.0, static_cast<double>(-n));
  double r = std::nearbyint(d / scale) * scale;
  return Value::real(std::isfinite(r) ? r : std::copysign(0.0, d));
}

Value bTuple(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 1);
  return makeTuple(args.empty() ? std::vector<Value>{} : iterate(c, args[0]));
}

Value bList(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 1);
  return makeList(args.empty() ? std::vector<Value>{} : iterate(c, args[0]));
}

Value bDict(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 1);
  Value d = makeDict();
  auto& obj = d.as<DictObj>();
  if (!args.empty()) {
    if (args[0].is(Kind::Dict)) {
      for (const auto& [k, v] : args[0].as<DictObj>().items) obj.set(k, v);
    } else {
      for (const Value& pair : iterate(c, args[0])) {
        std::vector<Value> kv = iterate(c, pair);
        if (kv.size() != 2) fail(c.loc, "dictionary update sequence element has length " + std::to_string(kv.size()) + "; 2 is required");
        if (!kv[0].is(Kind::Str)) fail(c.loc, std::string("dict keys must be str, not ") + typeName(kv[0]));
        obj.set(kv[0].asStr(), kv[1]);
      }
    }
  }
  c.markAllUsed();
  for (size_t i = 0; i < c.kwnames.size(); ++i) obj.set(c.kwnames[i], c.kwargs[i]);
  return d;
}

Value bSorted(CallContext& c, std::vector<Value>& args) {
  const Value* key = c.kw("key");
  const Value* rev = c.kw("reverse");
  checkArity(c, args, 1, 1);
  std::vector<Value> items = iterate(c, args[0]);
  std::vector<Value> keys;
  for (const Value& v : items) keys.push_back(key && !key->is(Kind::None) ? c.interp.call(*key, {v}, c.loc) : v);
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  bool reverse = rev && truthy(*rev);
  // Stable, and reverse keeps equal elements in their original order as Python does.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return reverse ? lessThan(keys[b], keys[a], c.loc) : lessThan(keys[a], keys[b], c.loc);
  });
  std::vector<Value> out;
  for (size_t i : order) out.push_back(items[i]);
  return makeList(std::move(out));
}

// map and filter give lists (the iterators Python returns are consumed once;
// a list answers every use).
Value bMap(CallContext& c, std::vector<Value>& args) {
  if (args.size() < 2) fail(c.loc, "map() must have at least two arguments.", ErrorClass::TypeError);
  std::vector<std::vector<Value>> columns;
  size_t n = SIZE_MAX;
  for (size_t i = 1; i < args.size(); ++i) {
    columns.push_back(iterate(c, args[i]));
    n = std::min(n, columns.back().size());
  }
  std::vector<Value> out;
  for (size_t k = 0; k < n; ++k) {
    std::vector<Value> row;
    for (const auto& col : columns) row.push_back(col[k]);
    out.push_back(c.interp.call(args[0], std::move(row), c.loc));
  }
  return makeList(std::move(out));
}

Value bFilter(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  std::vector<Value> out;
  for (Value& v : iterate(c, args[1])) {
    bool keep = args[0].is(Kind::None) ? truthy(v, c.loc) : truthy(c.interp.call(args[0], {v}, c.loc), c.loc);
    if (keep) out.push_back(std::move(v));
  }
  return makeList(std::move(out));
}

// exit(code=0): a SystemExit, which only BaseException catches; the driver
// ends with its status (a str is printed and ends with status 1).
Value bExit(CallContext& c, std::vector<Value>& args) {
  c.keywordsToPositions(args, 0, {{"code", Value::none()}});
  checkArity(c, args, 0, 1);
  Diagnostic d;
  d.loc = c.loc;
  d.errorClass = ErrorClass::SystemExit;
  d.exitStatus = 0;
  if (!args.empty() && args[0].isIntLike()) {
    d.exitStatus = static_cast<int>(args[0].asInt());
  } else if (!args.empty() && !args[0].is(Kind::None)) {
    d.message = str(args[0]);
    d.exitStatus = 1;
  }
  throw NnError(std::move(d));
}

// The displays with starred items ([*a, b], (*a, b)) call these with the
// items spread.
Value bListOf(CallContext&, std::vector<Value>& args) { return makeList(std::move(args)); }
Value bTupleOf(CallContext&, std::vector<Value>& args) { return makeTuple(std::move(args)); }

Value bReversed(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  // A dict reverses its keys, as in Python 3.8 (iterate gives them).
  std::vector<Value> items = iterate(c, args[0]);
  std::reverse(items.begin(), items.end());
  return makeList(std::move(items));
}

// slice(stop) / slice(start, stop[, step]): what x[start:stop:step] indexes
// by (its parts are checked when it indexes, as Python's are).
Value bSlice(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 3);
  if (args.size() == 1) return makeSlice(Value::none(), args[0], Value::none());
  return makeSlice(args[0], args[1], args.size() == 3 ? args[2] : Value::none());
}

Value bAny(CallContext& c, std::vector<Value>& args) {
  if (!args.empty() && args[0].is(Kind::Tensor)) return tensorReduction(c, args, ir::Op::Any);
  checkArity(c, args, 1, 1);
  for (const Value& v : iterate(c, args[0]))
    if (truthy(v)) return Value::boolean(true);
  return Value::boolean(false);
}

Value bAll(CallContext& c, std::vector<Value>& args) {
  if (!args.empty() && args[0].is(Kind::Tensor)) return tensorReduction(c, args, ir::Op::All);
  checkArity(c, args, 1, 1);
  for (const Value& v : iterate(c, args[0]))
    if (!truthy(v)) return Value::boolean(false);
  return Value::boolean(true);
}

// @jit / @eager: mark the function; the mark selects the execution mode.
Value markFunction(CallContext& c, std::vector<Value>& args, bool jit) {
  checkArity(c, args, 1, 1);
  if (!args[0].is(Kind::Function)) fail(c.loc, std::string("@") + c.name + " applies to functions, not " + typeName(args[0]));
  auto copy = std::make_shared<FunctionObj>(args[0].as<FunctionObj>());
  copy->forceJit = jit;
  copy->forceEager = !jit;
  return Value::object(Kind::Function, std::move(copy));
}
Value bJit(CallContext& c, std::vector<Value>& args) { return markFunction(c, args, true); }
Value bEager(CallContext& c, std::vector<Value>& args) { return markFunction(c, args, false); }

// Every builtin function by name: the implementations registered against
// builtins.def's declarations here and in io.cpp, and those of the tensor
// ops marked FUNC (builtins_tensor.cpp). Built once, read only.
const std::map<std::string, BuiltinFn>& table() {
  static const std::map<std::string, BuiltinFn> t = [] {
    using ir::Builtin;
    BuiltinTable m;
    for (auto [b, fn] : std::initializer_list<std::pair<Builtin, BuiltinFn>>{
             {Builtin::Print, bPrint}, {Builtin::Len, bLen}, {Builtin::Range, bRange},
             {Builtin::Enumerate, bEnumerate}, {Builtin::Zip, bZip}, {Builtin::Min, bMin}, {Builtin::Max, bMax},
             {Builtin::Abs, bAbs}, {Builtin::Sum, bSum}, {Builtin::Divmod, bDivmod}, {Builtin::Int, bInt},
             {Builtin::Float, bFloat}, {Builtin::Bool, bBool}, {Builtin::Str, bStr}, {Builtin::Repr, bRepr},
             {Builtin::Round, bRound}, {Builtin::Tuple, bTuple}, {Builtin::List, bList}, {Builtin::Dict, bDict},
             {Builtin::Sorted, bSorted}, {Builtin::Reversed, bReversed}, {Builtin::SliceOf, bSlice},
             {Builtin::Any, bAny}, {Builtin::All, bAll}, {Builtin::Jit, bJit}, {Builtin::Eager, bEager},
             {Builtin::Map, bMap}, {Builtin::Filter, bFilter}, {Builtin::Exit, bExit},
             {Builtin::ListOf, bListOf}, {Builtin::TupleOf, bTupleOf}})
      m[ir::builtinInfo(b).name] = fn;
    addTypeBuiltins(m);
    addTensorBuiltins(m);
    addGradBuiltins(m);
    addIoBuiltins(m);
    addProgressBuiltins(m);
    addDataBuiltins(m);
    addHelpBuiltins(m);
    addEinsumBuiltin(m);
    addTensorComposites(m);
    addTensorProducts(m);
    addTensorLinalg(m);
    addLuDecomposition(m);
    addTorchFunctions(m);
    addFiniteDifferences(m);
    addTensorArrangements(m);
    addIndexUpdates(m);
    addDiagonalEmbeddings(m);
    addTrapezoids(m);
    addTensorPredicates(m);
    addWindows(m);
    addTensorStatistics(m);
    addTensorMathComposites(m);
    addConvTranspose(m);
    addLossComposites(m);
    addPoolIndices(m);
    addTensorSearches(m);
    addTensorSampling(m);
    addTextBuiltins(m);
    addIteratorBuiltins(m);
    addTimeBuiltins(m);
    addLibmBuiltin(m);
    addAttributeBuiltins(m);
    addDeviceBuiltins(m);
    return m;
  }();
  return t;
}

}  // namespace

const std::set<std::string>& builtinNames() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s;
    for (const auto& kv : table()) s.insert(kv.first);
    s.insert("argv");
    s.insert("_stdout");
    s.insert("_stderr");
    for (const char* dtype : {"f32", "f64", "i32", "i64"}) s.insert(dtype);
    return s;
  }();
  return names;
}

const Value* findBuiltin(const std::string& name) {
  // One immutable function object per builtin, all made at once and only
  // read afterwards (states on several threads share them).
  static const std::map<std::string, Value> made = [] {
    std::map<std::string, Value> m;
    for (const auto& [n, fn] : table()) {
      auto b = std::make_shared<BuiltinObj>();
      b->name = n;
      b->fn = fn;
      // A tensor op's builtin matches its keywords against its signature.
      if (std::optional<ir::Builtin> declared = ir::builtinFromName(n))
        b->keywords = ir::builtinInfo(*declared).keywords;
      if (std::optional<ir::Op> op = ir::functionOp(n)) b->op = static_cast<int>(*op);
      m.emplace(n, Value::object(Kind::Builtin, std::move(b)));
    }
    return m;
  }();
  auto it = made.find(name);
  return it == made.end() ? nullptr : &it->second;
}

Value makeBuiltin(const std::string& name) {
  const Value* b = findBuiltin(name);
  return b ? *b : Value::none();
}

}  // namespace nn::stdlib
