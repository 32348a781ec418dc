// Runtime value helpers: construction, truthiness, equality and the str()
// and repr() text of every kind, following Python.
#include "runtime/value.h"

#include <algorithm>
#include <cstdio>
#include <new>

#include "ir/ir.h"
#include "runtime/cycle_collector.h"
#include "runtime/device.h"
#include "runtime/module.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "runtime/tensor_print.h"
#include "runtime/unicode.h"
#include "support/diagnostics.h"
#include "support/float_repr.h"

namespace nn::rt {

Value Value::str(std::string s) { return object(Kind::Str, std::make_shared<StrObj>(std::move(s))); }

Value Value::undef(const std::string& name) {
  Value v(Kind::Undef);
  v.obj_ = std::make_shared<StrObj>(name);
  return v;
}

const std::string& Value::asStr() const { return static_cast<StrObj*>(obj_.get())->s; }

namespace {

bool isContainer(const Value& v) { return v.is(Kind::List) || v.is(Kind::Tuple) || v.is(Kind::Dict); }

// Freeing a container frees the containers only it holds, inside its own
// destructor, down to kFreeDepth levels; deeper ones are set aside and
// freed by the outermost destructor one after the other (CPython's
// "trashcan"). So a million-deep nesting ends without exhausting the
// native stack, and the common shallow case is plain recursion with no
// list of pending containers to build.
constexpr int kFreeDepth = 50;
thread_local int tFreeDepth = 0;
thread_local std::vector<Value>* tSetAside = nullptr;  // the outermost destructor's

template <class Items, class ValueOf>
void freeItems(Items& items, ValueOf valueOf) {
  if (tFreeDepth >= kFreeDepth) {
    for (auto& item : items) {
      Value& v = valueOf(item);
      if (isContainer(v) && v.useCount() == 1) tSetAside->push_back(std::move(v));
    }
    items.clear();
    return;
  }
  std::vector<Value> setAside;
  bool outermost = tFreeDepth == 0;
  if (outermost) tSetAside = &setAside;
  ++tFreeDepth;
  items.clear();
  // Each set-aside container dies at depth 1 and may set aside more.
  while (outermost && !setAside.empty()) {
    Value v = std::move(setAside.back());
    setAside.pop_back();
  }
  --tFreeDepth;
  if (outermost) tSetAside = nullptr;
}

}  // namespace

static size_t seqBytes(const SeqObj& s) {
  size_t bytes = sizeof(SeqObj) + kSharedBlockBytes + s.items.capacity() * sizeof(Value);
  for (const std::string& f : s.fields) bytes += sizeof(std::string) + heapBytes(f);
  return bytes;
}

void SeqObj::chargeMade() { charge.set(seqBytes(*this)); }

void SeqObj::settle() { charge.settle(seqBytes(*this)); }

void SeqObj::grow(size_t need) {
  // The growth std::vector would choose, so that appends stay amortised.
  size_t capacity = std::max(need, items.capacity() * 2);
  checkHostAllocation(capacity, sizeof(Value));
  size_t before = charge.bytes();
  charge.set(before + (capacity - items.capacity()) * sizeof(Value));
  try {
    items.reserve(capacity);
  } catch (...) {
    charge.set(before);
    throw;
  }
}

SeqObj::~SeqObj() {
  freeItems(items, [](Value& v) -> Value& { return v; });
}

DictObj::~DictObj() {
  freeItems(items, [](std::pair<std::string, Value>& kv) -> Value& { return kv.second; });
}

// A dict's positions live in a table at most 2/3 full, probed linearly:
// short probe runs, and erasing needs no tombstones (the run after the
// hole shifts back). Positions are 32-bit, as CPython's are for dicts
// under 2**32 items; a dict that large passes any host's memory first,
// but is refused with a clear error rather than wrapping.
constexpr size_t kMaxDictItems = UINT32_MAX - 1;

// The table size for n items: a power of two, at least 8, with n <= 2/3 of it.
static size_t slotsFor(size_t n) {
  size_t size = 8;
  while (size * 2 < n * 3) size *= 2;
  return size;
}

size_t DictObj::slotOf(const std::string& key, size_t hash) const {
  size_t mask = slots_.size() - 1;
  for (size_t s = hash & mask;; s = (s + 1) & mask) {
    uint32_t at = slots_[s];
    if (!at || (hashes_[at - 1] == hash && items[at - 1].first == key)) return s;
  }
}

void DictObj::rebuildTable(size_t slotCount) {
  std::vector<uint32_t> table(slotCount, 0);
  size_t mask = slotCount - 1;
  for (size_t i = 0; i < hashes_.size(); ++i) {
    size_t s = hashes_[i] & mask;
    while (table[s]) s = (s + 1) & mask;
    table[s] = static_cast<uint32_t>(i + 1);
  }
  slots_ = std::move(table);
}

Value* DictObj::find(const std::string& key, size_t hash) {
  if (items.empty()) return nullptr;
  uint32_t at = slots_[slotOf(key, hash)];
  return at ? &items[at - 1].second : nullptr;
}

// An estimate of a dict's bytes: its item vector and table, the keys' text.
static size_t dictBytes(const DictObj& d) {
  return sizeof(DictObj) + kSharedBlockBytes + d.items.capacity() * sizeof(d.items[0]) + d.tableBytes() + d.keyBytes;
}

// The keys' text is counted again from scratch: callers replaced items
// wholesale (a copy).
static void countKeys(DictObj& d) {
  d.keyBytes = 0;
  for (const auto& kv : d.items) d.keyBytes += heapBytes(kv.first);
}

void DictObj::chargeMade() {
  countKeys(*this);
  charge.set(dictBytes(*this));
}

void DictObj::settle() {
  countKeys(*this);
  charge.settle(dictBytes(*this));
}

void DictObj::set(const std::string& key, Value v, size_t hash) {
  size_t slot = 0;
  if (!slots_.empty()) {
    slot = slotOf(key, hash);
    if (uint32_t at = slots_[slot]) {
      items[at - 1].second = std::move(v);
      return;
    }
  }
  if (items.size() >= kMaxDictItems) throw std::bad_alloc();
  // Counted, and every allocation made, before the dict changes: a dict
  // that would pass the limit, or that the allocator refuses, stays as it
  // was.
  size_t n = items.size() + 1;
  size_t itemRoom = n <= items.capacity() ? items.capacity() : std::max<size_t>(4, 2 * items.capacity());
  size_t slotCount = n * 3 > slots_.size() * 2 ? slotsFor(n) : slots_.size();
  size_t before = charge.bytes();
  charge.set(before + (itemRoom - items.capacity()) * (sizeof(items[0]) + sizeof(size_t)) +
             (slotCount - slots_.size()) * sizeof(uint32_t) + heapBytes(key));
  try {
    items.reserve(itemRoom);
    hashes_.reserve(itemRoom);
    if (slotCount != slots_.size()) {
      rebuildTable(slotCount);
      slot = slotOf(key, hash);
    }
    items.emplace_back(key, std::move(v));
  } catch (...) {
    charge.set(before);
    throw;
  }
  hashes_.push_back(hash);
  slots_[slot] = static_cast<uint32_t>(n);
  keyBytes += heapBytes(key);
  ++keyVersion;
  charge.settle(dictBytes(*this));
}

bool DictObj::erase(const std::string& key) {
  if (items.empty()) return false;
  size_t hole = slotOf(key, strKeyHash(key));
  uint32_t at = slots_[hole];
  if (!at) return false;
  // Backward-shift deletion: each later entry of the probe run moves into
  // the hole when the hole lies between its home slot and where it is.
  size_t mask = slots_.size() - 1;
  for (size_t s = (hole + 1) & mask; slots_[s]; s = (s + 1) & mask) {
    size_t home = hashes_[slots_[s] - 1] & mask;
    if (((s - home) & mask) >= ((s - hole) & mask)) {
      slots_[hole] = slots_[s];
      hole = s;
    }
  }
  slots_[hole] = 0;
  size_t i = at - 1;
  keyBytes -= heapBytes(items[i].first);
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
  hashes_.erase(hashes_.begin() + static_cast<std::ptrdiff_t>(i));
  // The items after the erased one moved down by one (the last one, as
  // popitem takes, moves nothing).
  if (i < items.size())
    for (uint32_t& p : slots_)
      if (p > at) --p;
  ++keyVersion;
  charge.settle(dictBytes(*this));
  return true;
}

void DictObj::clear() {
  if (!items.empty()) ++keyVersion;
  items.clear();
  hashes_.clear();
  slots_.clear();
  keyBytes = 0;
  charge.settle(dictBytes(*this));
}

void DictObj::copyFrom(const DictObj& other) {
  if (!other.items.empty()) ++keyVersion;
  items = other.items;
  hashes_ = other.hashes_;
  slots_ = other.slots_;
  chargeMade();
}

int64_t RangeObj::length() const {
  // In 128 bits: stop - start alone can overflow (range(-2**63, 2**63 - 1)).
  __int128 n = 0;
  if (step > 0 && start < stop) n = (static_cast<__int128>(stop) - start + step - 1) / step;
  if (step < 0 && start > stop) n = (static_cast<__int128>(start) - stop - step - 1) / (-static_cast<__int128>(step));
  if (n > INT64_MAX) fail(SourceLoc{}, "range has more than 2**63 - 1 items", ErrorClass::OverflowError);
  return static_cast<int64_t>(n);
}

Value makeException(ErrorClass c, std::string message) {
  auto e = std::make_shared<ExceptionObj>();
  e->errorClass = c;
  e->message = std::move(message);
  return Value::object(Kind::Exception, std::move(e));
}

// What a tuple made of `items` says when stored (SeqObj::mayReachContainers).
static bool itemsMayReachContainers(const std::vector<Value>& items) {
  return std::any_of(items.begin(), items.end(), [](const Value& v) { return CycleCollector::mayReachContainers(v); });
}

Value makeTuple(std::vector<Value> items) {
  auto o = std::make_shared<SeqObj>();
  o->items = std::move(items);
  o->mayReachContainers = itemsMayReachContainers(o->items);
  o->chargeMade();
  return Value::object(Kind::Tuple, std::move(o));
}

Value makeNamedTuple(std::vector<Value> items, std::vector<std::string> fields) {
  auto o = std::make_shared<SeqObj>();
  o->items = std::move(items);
  o->fields = std::move(fields);
  o->mayReachContainers = itemsMayReachContainers(o->items);
  o->chargeMade();
  return Value::object(Kind::Tuple, std::move(o));
}

Value makeList(std::vector<Value> items) {
  auto o = std::make_shared<SeqObj>();
  o->items = std::move(items);
  o->chargeMade();
  return Value::object(Kind::List, std::move(o));
}

Value makeDict() {
  auto d = std::make_shared<DictObj>();
  d->chargeMade();
  return Value::object(Kind::Dict, std::move(d));
}

Value makeSlice(Value start, Value stop, Value step) {
  auto s = std::make_shared<SliceObj>();
  s->start = std::move(start);
  s->stop = std::move(stop);
  s->step = std::move(step);
  return Value::object(Kind::Slice, std::move(s));
}

static size_t utf8SeqLen(unsigned char b) { return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4; }

std::vector<std::string> utf8Chars(const std::string& s) {
  std::vector<std::string> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = std::min(utf8SeqLen(static_cast<unsigned char>(s[i])), s.size() - i);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::vector<Value> charValues(const std::string& s) {
  // Checked first: a str of one byte per character becomes as many strs.
  checkHostAllocation(s.size(), sizeof(Value) + sizeof(std::string));
  std::vector<Value> out;
  for (std::string& c : utf8Chars(s)) out.push_back(Value::str(std::move(c)));
  return out;
}

size_t utf8Length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

const char* typeName(const Value& v) {
  switch (v.kind()) {
    case Kind::Undef: return "undefined";
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Function: return "function";
    case Kind::Builtin: return "builtin_function_or_method";
    case Kind::Method: return "builtin_function_or_method";
    case Kind::Range: return "range";
    case Kind::Module: return "module";
    case Kind::Slice: return "slice";
    case Kind::Ellipsis: return "ellipsis";
    case Kind::Exception: return errorClassName(v.as<ExceptionObj>().errorClass);
    case Kind::Tensor: return "Tensor";
    case Kind::DType: return "dtype";
    case Kind::Stream: return "TextIOWrapper";
    case Kind::Lazy: return v.as<LazySeqObj>().typeName();
  }
  return "?";
}

bool truthy(const Value& v, SourceLoc loc) {
  switch (v.kind()) {
    case Kind::Tensor: {
      const Tensor& t = tensorOf(v);
      if (t.numel() != 1)
        throw NnError("the truth value of a tensor with " + std::to_string(t.numel()) +
                          " elements is ambiguous; use any() or all()",
                      loc);
      return (t.device().hostMemory() ? t.flatAsDouble(0) : readableOnHost(t, loc).flatAsDouble(0)) != 0.0;
    }
    case Kind::None: return false;
    case Kind::Bool: return v.asBool();
    case Kind::Int: return v.asInt() != 0;
    case Kind::Float: return v.asFloat() != 0.0;
    case Kind::Str: return !v.asStr().empty();
    case Kind::Tuple:
    case Kind::List: return !v.as<SeqObj>().items.empty();
    case Kind::Dict: return !v.as<DictObj>().items.empty();
    case Kind::Range: return v.as<RangeObj>().length() != 0;
    case Kind::Lazy: return v.as<LazySeqObj>().length() != 0;
    default: return true;
  }
}

// Python's repr of a str: quoted, and escaped where a character is not
// printable (str.isprintable) as \xNN, \uNNNN or \UNNNNNNNN. A malformed
// byte is shown as \xNN too.
static std::string quoteStr(const std::string& s) {
  bool hasSingle = s.find('\'') != std::string::npos;
  bool hasDouble = s.find('"') != std::string::npos;
  char q = hasSingle && !hasDouble ? '"' : '\'';
  std::string out(1, q);
  for (size_t i = 0; i < s.size();) {
    CodePoint p = decodeUtf8(s, i);
    char32_t c = p.malformed ? static_cast<unsigned char>(s[i]) : p.cp;
    if (c == '\\') out += "\\\\";
    else if (c == static_cast<unsigned char>(q)) out += std::string("\\") + q;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (p.malformed || !isPrintable(c)) {
      char buf[16];
      const char* form = c < 0x100 ? "\\x%02x" : c < 0x10000 ? "\\u%04x" : "\\U%08x";
      std::snprintf(buf, sizeof buf, form, static_cast<unsigned>(c));
      out += buf;
    } else {
      out.append(s, i, p.len);
    }
    i += p.len;
  }
  return out + q;
}

namespace {

// Python's limit on nesting for repr and comparison (its recursion limit).
constexpr size_t kMaxNesting = 1000;

[[noreturn]] void tooDeep(const char* what) {
  fail(SourceLoc{}, std::string("maximum recursion depth exceeded ") + what, ErrorClass::RecursionError);
}

// The containers being printed, outermost first: one met again inside
// itself prints as [...] or {...} (a dict view as ...), as in Python.
std::string reprIn(const Value& v, std::vector<const Object*>& open) {
  if (v.is(Kind::Lazy)) {
    if (std::find(open.begin(), open.end(), v.ptr()) != open.end()) return "...";
    if (open.size() >= kMaxNesting) tooDeep("while getting the repr of an object");
    open.push_back(v.ptr());
    std::string s = v.as<LazySeqObj>().show([&](const Value& item) { return reprIn(item, open); });
    open.pop_back();
    return s;
  }
  bool seq = v.is(Kind::List) || v.is(Kind::Tuple);
  if (!seq && !v.is(Kind::Dict)) return repr(v);
  if (std::find(open.begin(), open.end(), v.ptr()) != open.end()) return v.is(Kind::Dict) ? "{...}" : "[...]";
  if (open.size() >= kMaxNesting) tooDeep("while getting the repr of an object");
  open.push_back(v.ptr());
  std::string s;
  if (seq) {
    const auto& items = v.as<SeqObj>().items;
    s.push_back(v.is(Kind::List) ? '[' : '(');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) s += ", ";
      s += reprIn(items[i], open);
      // A list holding one large str many times prints much larger
      // than the memory it holds.
      checkHostAllocation(s.size(), 1);
    }
    s += v.is(Kind::List) ? "]" : items.size() == 1 ? ",)" : ")";
  } else {
    s.push_back('{');
    bool first = true;
    for (const auto& [k, x] : v.as<DictObj>().items) {
      s += (first ? "" : ", ") + quoteStr(k) + ": " + reprIn(x, open);
      checkHostAllocation(s.size(), 1);
      first = false;
    }
    s += "}";
  }
  open.pop_back();
  return s;
}

}  // namespace

std::string repr(const Value& v) {
  switch (v.kind()) {
    case Kind::Str: return quoteStr(v.asStr());
    case Kind::Tuple:
    case Kind::List:
    case Kind::Dict:
    case Kind::Lazy: {
      std::vector<const Object*> open;
      return reprIn(v, open);
    }
    case Kind::Exception: {
      const auto& e = v.as<ExceptionObj>();
      return std::string(errorClassName(e.errorClass)) + "(" + (e.message.empty() ? "" : quoteStr(e.message)) + ")";
    }
    case Kind::Tensor: return tensorRepr(tensorOf(v));
    default: return str(v);
  }
}

std::string LazySeqObj::show(const std::function<std::string(const Value&)>&) const {
  return std::string("<") + typeName() + " object of " + std::to_string(length()) + " items>";
}

std::string str(const Value& v) {
  switch (v.kind()) {
    case Kind::Undef: return "<undefined>";
    case Kind::None: return "None";
    case Kind::Bool: return v.asBool() ? "True" : "False";
    case Kind::Int: return std::to_string(v.asInt());
    case Kind::Float: return floatRepr(v.asFloat());
    case Kind::Str: return v.asStr();
    case Kind::Function: return "<function " + v.as<FunctionObj>().name + ">";
    case Kind::Builtin: return "<built-in function " + v.as<BuiltinObj>().name + ">";
    case Kind::Method: {
      const auto& m = v.as<MethodObj>();
      if (m.self.is(Kind::Builtin))  // a type's own (str.lower)
        return "<method '" + m.name + "' of '" + m.self.as<BuiltinObj>().name + "' objects>";
      return "<built-in method " + m.name + " of " + typeName(m.self) + " object>";
    }
    case Kind::Range: {
      const auto& r = v.as<RangeObj>();
      std::string s = "range(" + std::to_string(r.start) + ", " + std::to_string(r.stop);
      if (r.step != 1) s += ", " + std::to_string(r.step);
      return s + ")";
    }
    case Kind::Module: return "<module '" + v.as<ModuleObj>().module->name() + "'>";
    case Kind::Slice: {
      const auto& s = v.as<SliceObj>();
      return "slice(" + repr(s.start) + ", " + repr(s.stop) + ", " + repr(s.step) + ")";
    }
    case Kind::Ellipsis: return "Ellipsis";
    case Kind::Exception: {
      // Python's KeyError shows its argument's repr: print(e) is 'missing'.
      const auto& e = v.as<ExceptionObj>();
      return e.errorClass == ErrorClass::KeyError && !e.message.empty() ? quoteStr(e.message) : e.message;
    }
    case Kind::Tensor: return tensorStr(tensorOf(v));
    case Kind::DType: return dtypeName(static_cast<DType>(v.asInt()));
    case Kind::Stream:
      return std::string("<_io.TextIOWrapper name='<") + (v.asInt() == 2 ? "stderr" : "stdout") +
             ">' mode='w' encoding='utf-8'>";
    default: return repr(v);
  }
}

namespace {

// A container compared with itself is equal without looking inside (as
// Python's identity shortcut), so a self-referential list equals itself.
// The builtin `bool`, which names the bool dtype too (zeros(2, dtype=bool)),
// so that x.dtype == bool holds for a bool tensor as x.dtype == f32 does
// for an f32 one.
bool isBoolBuiltin(const Value& v) { return v.is(Kind::Builtin) && v.as<BuiltinObj>().name == "bool"; }

bool equalAt(const Value& a, const Value& b, size_t depth) {
  if (a.isNumber() && b.isNumber()) {
    if (a.isIntLike() && b.isIntLike()) return a.asInt() == b.asInt();
    return a.asFloat() == b.asFloat();
  }
  if (a.kind() != b.kind()) {
    if (a.is(Kind::DType) && isBoolBuiltin(b)) return static_cast<DType>(a.asInt()) == DType::Bool;
    if (b.is(Kind::DType) && isBoolBuiltin(a)) return static_cast<DType>(b.asInt()) == DType::Bool;
    return false;
  }
  switch (a.kind()) {
    case Kind::None:
    case Kind::Ellipsis: return true;
    case Kind::DType:
    case Kind::Stream: return a.asInt() == b.asInt();
    case Kind::Str: return a.asStr() == b.asStr();
    case Kind::Tuple:
    case Kind::List: {
      if (a.ptr() == b.ptr()) return true;
      if (depth >= kMaxNesting) tooDeep("in comparison");
      const auto& x = a.as<SeqObj>().items;
      const auto& y = b.as<SeqObj>().items;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!equalAt(x[i], y[i], depth + 1)) return false;
      return true;
    }
    case Kind::Dict: {
      if (a.ptr() == b.ptr()) return true;
      if (depth >= kMaxNesting) tooDeep("in comparison");
      auto& x = a.as<DictObj>();
      auto& y = b.as<DictObj>();
      if (x.items.size() != y.items.size()) return false;
      for (const auto& [k, v] : x.items) {
        Value* other = y.find(k);
        if (!other || !equalAt(v, *other, depth + 1)) return false;
      }
      return true;
    }
    case Kind::Range: {
      const auto& x = a.as<RangeObj>();
      const auto& y = b.as<RangeObj>();
      // As sequences, as Python compares ranges: range(0) == range(2, 2),
      // range(0, 3, 5) == range(0, 1).
      int64_t n = x.length();
      if (n != y.length()) return false;
      return n == 0 || (x.start == y.start && (n == 1 || x.step == y.step));
    }
    case Kind::Slice: {
      const auto& x = a.as<SliceObj>();
      const auto& y = b.as<SliceObj>();
      return equalAt(x.start, y.start, depth + 1) && equalAt(x.stop, y.stop, depth + 1) &&
             equalAt(x.step, y.step, depth + 1);
    }
    default: return a.ptr() == b.ptr();
  }
}

}  // namespace

bool equal(const Value& a, const Value& b) { return equalAt(a, b, 0); }

}  // namespace nn::rt
