// Runtime values of the interpreter. A Value is a small tagged union: the
// scalar kinds (None, bool, int, float) are stored inline, everything else
// points to a reference-counted heap object. Strings, tuples, functions and
// ranges are immutable; lists and dicts are mutable and shared by reference,
// as in Python.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/host_memory.h"
#include "support/diagnostics.h"
#include "support/source.h"

namespace nn::ir {
class Function;
}

namespace nn::rt {

enum class Kind : uint8_t {
  Undef,  // a variable read before assignment; an error wherever it is used
  None, Bool, Int, Float, Str, Tuple, List, Dict,
  Function, Builtin, Method, Range, Module, Slice, Ellipsis, Exception, Tensor, DType,
  Lazy,    // a sequence whose items are made as a for loop reaches them (LazySeqObj)
  Stream,  // sys.stdout or sys.stderr: the host's output stream 1 or 2 (Value::stream)
};

struct Object {
  virtual ~Object() = default;
};

class Value {
 public:
  Value() : kind_(Kind::None), i_(0) {}
  static Value none() { return Value(); }
  static Value boolean(bool b) { Value v(Kind::Bool); v.i_ = b; return v; }
  static Value integer(int64_t i) { Value v(Kind::Int); v.i_ = i; return v; }
  static Value real(double f) { Value v(Kind::Float); v.f_ = f; return v; }
  static Value str(std::string s);
  static Value object(Kind k, std::shared_ptr<Object> o) { Value v(k); v.obj_ = std::move(o); return v; }
  static Value undef(const std::string& name);
  static Value ellipsis() { return Value(Kind::Ellipsis); }
  // A tensor element type (f32, i64, ...), stored as its DType number.
  static Value dtype(int code) { Value v(Kind::DType); v.i_ = code; return v; }
  // The host's output stream `number` (1: print's, 2: warnings'), as
  // sys.stdout and sys.stderr.
  static Value stream(int number) { Value v(Kind::Stream); v.i_ = number; return v; }

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool isNumber() const { return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool; }
  bool isIntLike() const { return kind_ == Kind::Int || kind_ == Kind::Bool; }

  bool asBool() const { return i_ != 0; }
  // int value of an int or bool
  int64_t asInt() const { return i_; }
  // float value of any number
  double asFloat() const { return kind_ == Kind::Float ? f_ : static_cast<double>(asInt()); }
  const std::string& asStr() const;
  template <class T>
  T& as() const { return *static_cast<T*>(obj_.get()); }
  const Object* ptr() const { return obj_.get(); }
  // How many Values share the object (for reuse of uniquely held tensors).
  long useCount() const { return obj_.use_count(); }
  // A reference that does not keep the object alive (the cycle collector's).
  std::weak_ptr<Object> weak() const { return obj_; }
  // Drops what the value holds (the interpreter's last use of a slot): the
  // slot becomes None, except that a number or bool is left as it is, as
  // nothing reads the slot again before it is written (and it holds no
  // object). A value moved from keeps its kind without its object, so the
  // kind decides.
  void release() {
    static_assert(Kind::None < Kind::Bool && Kind::Bool < Kind::Int && Kind::Int < Kind::Float);
    if (obj_ || kind_ > Kind::Float) *this = Value();
  }
  // Makes the value None (a frame's slot going back to rest): a number
  // only changes its kind.
  void clear() {
    if (obj_) obj_.reset();
    kind_ = Kind::None;
  }

 private:
  explicit Value(Kind k) : kind_(k), i_(0) {}
  Kind kind_;
  // A bool is its int, 0 or 1: a whole word written at once (a byte
  // stored into a word read back at once stalls the load) and read as an
  // int with no test.
  union {
    int64_t i_;
    double f_;
  };
  std::shared_ptr<Object> obj_;
};

// Strs, tuples, lists and dicts count what they hold against the memory
// limit (host_memory.h); a make_shared block has this much besides the
// object.
constexpr size_t kSharedBlockBytes = 16;

// A dict key's hash (DictObj's table): of the key's text.
inline size_t strKeyHash(const std::string& s) { return std::hash<std::string>{}(s); }

struct StrObj : Object {
  explicit StrObj(std::string v) : s(std::move(v)) { charge.set(sizeof(StrObj) + kSharedBlockBytes + heapBytes(s)); }
  std::string s;
  HostCharge charge;
  // strKeyHash(s), found on the first lookup with this str as a dict key
  // and kept (a str never changes), as CPython keeps a str's hash: a loop
  // that looks up the same keys hashes each once. 0: not found yet. An
  // atomic, as two threads may look up one str at once; both store the
  // same value.
  size_t keyHash() const {
    size_t h = hash_.load(std::memory_order_relaxed);
    if (h == 0) [[unlikely]] {
      h = strKeyHash(s);
      hash_.store(h, std::memory_order_relaxed);
    }
    return h;
  }

 private:
  mutable std::atomic<size_t> hash_{0};
};

// Tuples and lists share a representation; lists are mutated in place.
// Destroying a container frees the containers nested in it at most 50
// levels deep inside it, and those below one after the other, so a
// million-deep nesting ends without exhausting the native stack (CPython's
// "trashcan", value.cpp).
struct SeqObj : Object {
  ~SeqObj() override;
  std::vector<Value> items;
  // A named tuple's field names, one per item (PyTorch's (values,
  // indices) of sort and topk); empty for every other tuple and list.
  std::vector<std::string> fields;
  HostCharge charge;
  // A tuple's: whether an item, at any depth, may refer to a list or dict
  // (CycleCollector::mayReachContainers). A tuple never changes, so
  // makeTuple finds it once, while the items are at hand, and storing the
  // tuple later reads this instead of the items; true (the safe answer)
  // for a list and any tuple made otherwise.
  bool mayReachContainers = true;

  // Counts a new object's items, throwing MemoryLimitExceeded past the
  // limit.
  void chargeMade();
  // Counts what the object holds after its items were replaced: the change
  // is made, so this never throws.
  void settle();
  // Makes room for `more` items, counted before it is taken, so that an
  // append or insert past the limit fails with the list as it was.
  void reserveMore(size_t more) {
    if (items.size() + more > items.capacity()) grow(items.size() + more);
  }
  void append(Value v) {
    reserveMore(1);
    items.push_back(std::move(v));
  }

 private:
  // Room for `need` items, with the growth std::vector would choose.
  void grow(size_t need);
};

// Insertion-ordered dict with str keys (language.md §2), laid out as
// CPython's: the items in insertion order, and an open-addressing table of
// their positions, so that a key costs no allocation besides its text.
struct DictObj : Object {
  ~DictObj() override;
  // Read freely; change only through the members below, which keep the
  // table in step.
  std::vector<std::pair<std::string, Value>> items;
  HostCharge charge;
  size_t keyBytes = 0;  // the keys' text
  // Counts the changes of the key set (a key added or removed; not a value
  // replaced): a loop over the dict fails once it moves (dict_views.h).
  uint64_t keyVersion = 0;

  // Counts a dict just made or copied into, throwing MemoryLimitExceeded
  // past the limit.
  void chargeMade();
  // Counts what the dict holds after a change that is made: never throws.
  void settle();

  Value* find(const std::string& key) { return find(key, strKeyHash(key)); }
  Value* find(const std::string& key, size_t hash);
  // The value at str value `key`, with the str's kept hash.
  Value* find(const Value& key) { return find(key.asStr(), key.as<StrObj>().keyHash()); }
  void set(const std::string& key, Value v) { set(key, std::move(v), strKeyHash(key)); }
  void set(const std::string& key, Value v, size_t hash);
  void set(const Value& key, Value v) { set(key.asStr(), std::move(v), key.as<StrObj>().keyHash()); }
  bool erase(const std::string& key);
  // Empties the dict and settles its count.
  void clear();
  // Makes this (empty) dict a copy of `other`, counted as made.
  void copyFrom(const DictObj& other);
  size_t tableBytes() const { return hashes_.capacity() * sizeof(size_t) + slots_.capacity() * sizeof(uint32_t); }

 private:
  // The slot of `key`: where it is, or the empty slot where it would go.
  // The table must not be empty.
  size_t slotOf(const std::string& key, size_t hash) const;
  void rebuildTable(size_t slotCount);
  std::vector<size_t> hashes_;   // items[i]'s key hash
  std::vector<uint32_t> slots_;  // a power of two in size; 0 = empty, else a position in items + 1
};

class ModuleInstance;

struct FunctionObj : Object {
  const ir::Function* fn = nullptr;
  ModuleInstance* module = nullptr;  // owned by the interpreter state
  std::string name;
  std::vector<Value> captures;
  std::vector<Value> defaults;       // for the last defaults.size() positional parameters
  std::vector<std::pair<std::string, Value>> kwDefaults;  // keyword-only parameters'
  bool forceEager = false, forceJit = false;  // @eager / @jit
};

struct CallContext;
using BuiltinFn = Value (*)(CallContext& ctx, std::vector<Value>& args);

// `keywords`: the keyword arguments a builtin function or method takes,
// in ir/builtins.def's form (names separated by spaces, "" none, "*" those
// fn matches itself); a call with another is refused before fn runs.
struct BuiltinObj : Object {
  std::string name;
  BuiltinFn fn = nullptr;
  const char* keywords = "*";
  // The op the builtin's name names (ir::functionOp, as a number; -1 where
  // it names none), found with the builtin rather than by name on every
  // call of a tensor op's builtin.
  int op = -1;
};

// A method bound to its receiver: xs.append
struct MethodObj : Object {
  Value self;
  std::string name;
  BuiltinFn fn = nullptr;
  const char* keywords = "*";
};

struct RangeObj : Object {
  int64_t start = 0, stop = 0, step = 1;
  int64_t length() const;
  // Item i < length(): it lies between start and stop, but i * step alone
  // may pass int64 (range(-2**63, 2**63 - 1, 2**63 - 1)), so the sum is
  // made modulo 2**64, where its exact value is the item.
  int64_t at(int64_t i) const {
    return static_cast<int64_t>(static_cast<uint64_t>(start) + static_cast<uint64_t>(i) * static_cast<uint64_t>(step));
  }
};

// A sequence of known length whose items are made when asked for, in
// order, by a for loop: data.batches (which prepares the next item on a
// background thread), progress, and enumerate/zip over them. at() may be
// called from a graph executor's worker, once per index, normally in
// increasing order; an error it raises is located at `loc`.
struct LazySeqObj : Object {
  virtual const char* typeName() const = 0;
  virtual int64_t length() const = 0;
  virtual Value at(int64_t i, SourceLoc loc) = 0;
  // Item i as at() gives it, where the sequence can tell at no risk: no
  // error to raise, no effect, nothing but an allocation that may fail
  // (the caller then runs at(), which raises where it was reached). False
  // where at() must run. For native loops, which read items without a way
  // to raise.
  virtual bool quickAt(int64_t /*i*/, Value& /*out*/) { return false; }
  // What print and repr show: `<enumerate object of 3 items>` unless
  // overridden; `reprOf` gives an item's repr (a cycle back to an object
  // being shown prints as `...`, as in Python).
  virtual std::string show(const std::function<std::string(const Value&)>& reprOf) const;
  // What a for loop over `self` (this object) reads: itself, unless a loop
  // needs state of its own (a dict view's loop fails once the dict changes).
  virtual Value loopView(const Value& self) const { return self; }
  // Calls f on every value this object holds that may hold other values
  // (a view's dict, enumerate's input): the cycle collector follows them,
  // and may replace them with None once the object is unreachable garbage.
  virtual void forEachHeldValue(const std::function<void(Value&)>& f) { (void)f; }
  // Every item, in order (list(), unpacking).
  std::vector<Value> items(SourceLoc loc) {
    std::vector<Value> out;
    for (int64_t i = 0, n = length(); i < n; ++i) out.push_back(at(i, loc));
    return out;
  }
};

struct SliceObj : Object {
  Value start, stop, step;
};

struct ModuleObj : Object {
  ModuleInstance* module = nullptr;
};

// An exception: its class, its message, and, once raised, the error as
// reported (location and call trace), which `raise e` reports again.
struct ExceptionObj : Object {
  ErrorClass errorClass = ErrorClass::Error;
  std::string message;
  std::optional<Diagnostic> raised;
};
Value makeException(ErrorClass c, std::string message);

// Constructors for the common heap values.
Value makeTuple(std::vector<Value> items);
// A tuple whose items are also its attributes `fields` (r.values, r.indices).
Value makeNamedTuple(std::vector<Value> items, std::vector<std::string> fields);
Value makeList(std::vector<Value> items);
Value makeDict();
Value makeSlice(Value start, Value stop, Value step);

// Python's str semantics over UTF-8 text: lengths, indices and iteration
// count code points, not bytes.
std::vector<std::string> utf8Chars(const std::string& s);
// The one-character strs that iterating `s` gives.
std::vector<Value> charValues(const std::string& s);
size_t utf8Length(const std::string& s);

// Python's type name of a value: "int", "list", "NoneType", ...
const char* typeName(const Value& v);
// Python truthiness; a tensor must have exactly one element (an error at
// `loc` otherwise).
bool truthy(const Value& v, SourceLoc loc = {});
std::string str(const Value& v);
std::string repr(const Value& v);
// Structural equality as Python's ==.
bool equal(const Value& a, const Value& b);

}  // namespace nn::rt
