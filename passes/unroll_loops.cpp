// unroll-loops: a counted loop whose trip count is known at compile time
// and small becomes that many copies of its body, so that what the body
// reads by the loop index (`params[i]`, the items of `for p in (a, b)`)
// has a constant index and forward-elements gives it its static type.
// This is what lets a loss written as a loop over its layers, such as
// nn.mlp, and a comprehension over a parameter list differentiate and
// fuse as IR in graph mode instead of running as `any`-typed dispatch.
//
// A loop is counted when one of its carried values is an int counter: it
// starts at a compile-time int, the cond block is `condition (lt counter,
// N)` (after constants, builtins and lengths of compile-time sequences
// only: the iterable's `iter_len`, `len(ps)`) with N known at compile
// time, and the body yields `add counter, 1` for it. That is how the
// front end lowers `for x in range(...)`, `for x in (a, b, c)` and
// comprehensions (the counter indexes an `iter` of the iterable), and how
// `while i < len(ps):` with `i += 1` reads. A loop with `break` (its cond
// is an `if`), a counter that moves otherwise, or a bound only known at
// run time is left alone.
//
// Compile-time ints: int constants, negation, +, - and * of them (no
// overflow), and lengths of compile-time sequences: a tuple the function
// builds, a list or dict (distinct str keys) it builds and only reads
// (iterates, indexes, measures, tests with `in`, passes to enumerate, zip
// or reversed, takes a dict view of; nothing appends to it, stores into
// it, captures it or passes it to another call), `range(...)` over
// compile-time ints, a dict's keys, values() and items(), and enumerate,
// zip, reversed and constant slices of compile-time sequences. Their
// items are known too: an operand of the building node, an int, or a
// tuple of items, which the copy reads as a make_tuple made before it
// (forward-elements then forwards its unpacking), located at the loop's
// item read.
//
// Algorithm: one walk in program order that rebuilds each block's node
// list; nested blocks first, so inner loops unroll before their outer
// loop is copied. A loop of T trips, T <= kMaxTrips and T times its node
// count <= kMaxCopiedNodes, is replaced by T copies of its body: copy k
// binds the counter to the constant start+k and the other carried values
// to copy k-1's yields (the loop's operands for k = 0); an `iter_item` of
// the loop's iterable at the counter becomes the item (see above); the
// loop's results become the last copy's yields (its operands when T = 0,
// the cond being free of effects). The nodes that made an unrolled
// loop's sequence (its iter, the enumerate or range call), which cannot
// raise, are removed once nothing reads them.
//
// Invariants: the copies run the same nodes in the same order as the
// loop did, each with its own source location, so effects, values and
// errors are unchanged; nodes a copy leaves unused (the counter's `add`)
// are left to fold-constants and dce. Replaced nodes are kept alive until
// the walk ends, so no stale value's address is reused while the
// replacement map still names it.
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/builtins.h"
#include "ir/clone.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Node;
using ir::Op;
using ir::Value;

constexpr int64_t kMaxTrips = 32;
constexpr int64_t kMaxCopiedNodes = 2000;

// Whether node n calls builtin `b` (ir/builtins.h: never by name).
bool calls(const Node& n, ir::Builtin b) { return n.op() == Op::Call && ir::calledFunction(n) == b; }

size_t countNodes(const ir::Block& b) {
  size_t n = 0;
  for (const auto& node : b.nodes()) {
    ++n;
    for (size_t k = 0; k < node->numBlocks(); ++k) n += countNodes(*node->block(k));
  }
  return n;
}

// An item of a sequence known at compile time: a value of the function,
// an int, or a tuple of items (what enumerate, zip and dict.items make).
struct Item {
  Value* value = nullptr;
  std::optional<int64_t> integer;
  std::vector<Item> parts;  // a tuple when neither of the above
};

// A sequence known at compile time: its length and how item k reads.
struct Sequence {
  enum class Form { Built, Range, Enumerate, Zip, DictKeys, DictValues, DictItems, Slice, Reversed };
  Form form = Form::Built;
  int64_t length = 0;
  const Node* built = nullptr;  // Built: make_tuple / make_list, items are its operands; Dict*: make_dict
  int64_t start = 0, step = 1;  // Range: start + k * step; Enumerate: start + k; Slice: inner[start + k * step]
  std::vector<Sequence> inner;  // Enumerate, Slice, Reversed: one; Zip: one per argument

  // Item k, 0 <= k < length; nullopt for a range item past int64.
  std::optional<Item> at(int64_t k) const {
    Item item;
    switch (form) {
      case Form::Built: item.value = built->operand(static_cast<size_t>(k)); return item;
      case Form::DictKeys: item.value = built->operand(static_cast<size_t>(2 * k)); return item;
      case Form::DictValues: item.value = built->operand(static_cast<size_t>(2 * k + 1)); return item;
      case Form::DictItems:
        item.parts.resize(2);
        item.parts[0].value = built->operand(static_cast<size_t>(2 * k));
        item.parts[1].value = built->operand(static_cast<size_t>(2 * k + 1));
        return item;
      case Form::Range: {
        int64_t value;  // always an int64 inside the range, but checked
        if (__builtin_mul_overflow(k, step, &value) || __builtin_add_overflow(start, value, &value))
          return std::nullopt;
        item.integer = value;
        return item;
      }
      case Form::Enumerate: {
        std::optional<Item> x = inner[0].at(k);
        int64_t index;
        if (!x || __builtin_add_overflow(start, k, &index)) return std::nullopt;
        item.parts.resize(1);
        item.parts[0].integer = index;
        item.parts.push_back(std::move(*x));
        return item;
      }
      case Form::Zip:
        for (const Sequence& s : inner) {
          std::optional<Item> x = s.at(k);
          if (!x) return std::nullopt;
          item.parts.push_back(std::move(*x));
        }
        return item;
      case Form::Slice: return inner[0].at(start + k * step);  // within inner's length
      case Form::Reversed: return inner[0].at(inner[0].length - 1 - k);
    }
    return std::nullopt;
  }
};

class Unroller {
 public:
  explicit Unroller(const ir::Function& f) { collectListWriters(*f.body()); }

  void block(ir::Block& b) {
    std::vector<std::unique_ptr<Node>> old = std::move(b.mutableNodes());
    b.mutableNodes().clear();
    for (std::unique_ptr<Node>& owned : old) {
      Node& n = *owned;
      ir::replaceOperands(n, replaced_);  // nested blocks: by the walk below
      for (size_t k = 0; k < n.numBlocks(); ++k) block(*n.block(k));
      if (n.op() == Op::Loop && unroll(b, n)) {
        graveyard_.push_back(std::move(owned));
        changed = true;
        continue;
      }
      b.append(std::move(owned));
    }
  }

  bool changed = false;

 private:
  // Values that something other than a read takes (a list or dict that
  // is appended to, passed to a call, put in a container or captured):
  // their length or items may change, so they are not compile-time
  // sequences. Reads: iterating, unpacking, indexing, `len`, `in`,
  // enumerate, zip and reversed, and a dict's keys, values and items views.
  // The copies of an unrolled loop's body write their own lists (a
  // comprehension's make_list and list_append, copied), so they are
  // collected as they are made.
  void collectListWriters(const ir::Block& b) {
    for (const auto& n : b.nodes()) collectListWriters(*n);
  }
  void collectListWriters(const Node& n) {
    for (size_t i = 0; i < n.operands().size(); ++i) {
      bool view = (n.op() == Op::GetAttr || n.op() == Op::CallMethod) && i == 0 && dictView(n);
      bool read = n.op() == Op::Iter || n.op() == Op::Unpack || (n.op() == Op::GetItem && i == 0) ||
                  (n.op() == Op::In && i == 1) || view;
      if (i >= 1 && (calls(n, ir::Builtin::Len) || calls(n, ir::Builtin::Enumerate) || calls(n, ir::Builtin::Zip) ||
                     calls(n, ir::Builtin::Reversed)))
        read = true;
      if (!read) written_.insert(n.operand(i));
    }
    for (size_t k = 0; k < n.numBlocks(); ++k) collectListWriters(*n.block(k));
  }

  // The view `d.NAME` (a getattr) or `d.NAME()` (a call_method) reads.
  static std::optional<Sequence::Form> dictView(const Node& n) {
    const std::string& name = n.strAttr("name");
    if (name == "keys") return Sequence::Form::DictKeys;
    if (name == "values") return Sequence::Form::DictValues;
    if (name == "items") return Sequence::Form::DictItems;
    return std::nullopt;
  }

  // A make_dict whose keys are distinct str constants (its items in order).
  bool plainDict(const Node& d) const {
    if (d.op() != Op::MakeDict || d.operands().size() % 2 || written_.count(d.result(0))) return false;
    std::unordered_set<std::string> keys;
    for (size_t i = 0; i < d.operands().size(); i += 2) {
      const Node* k = d.operand(i)->def();
      const auto* key = k && k->op() == Op::Const ? std::get_if<std::string>(k->attr("value")) : nullptr;
      if (!key || !keys.insert(*key).second) return false;
    }
    return true;
  }

  // The view `method` names of `dict`, when dict is a plain dict.
  std::optional<Sequence> dictSequence(const Node& method, const Node* dict) const {
    std::optional<Sequence::Form> view = dictView(method);
    if (!view || !dict || !plainDict(*dict)) return std::nullopt;
    Sequence s;
    s.form = *view;
    s.length = static_cast<int64_t>(dict->operands().size() / 2);
    s.built = dict;
    return s;
  }

  // A slice's bound: a constant int (or its negation) or None.
  std::optional<std::optional<int64_t>> bound(const Value* v) const {
    const Node* d = v->def();
    if (d && d->op() == Op::Const && std::holds_alternative<ir::NoneAttr>(*d->attr("value")))
      return std::optional<int64_t>();
    std::optional<int64_t> i = integer(v);
    if (!i) return std::nullopt;
    return i;
  }

  // `inner[a:b:c]` of constant bounds, as Python's slice.indices(len).
  std::optional<Sequence> slice(const Sequence& inner, const Node& make) const {
    std::optional<std::optional<int64_t>> a = bound(make.operand(0)), b = bound(make.operand(1)),
                                          c = bound(make.operand(2));
    if (!a || !b || !c) return std::nullopt;
    int64_t step = c->value_or(1), n = inner.length;
    if (step == 0 || step == INT64_MIN) return std::nullopt;  // raises at run time
    int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? n - 1 : n;
    auto adjust = [&](std::optional<int64_t> x, int64_t fallback) {
      if (!x) return fallback;
      int64_t v = *x;
      if (v < 0) v = v < -n ? lower : std::max(v + n, lower);
      else v = std::min(v, upper);
      return v;
    };
    int64_t start = adjust(*a, step < 0 ? upper : lower), stop = adjust(*b, step < 0 ? lower : upper);
    Sequence s;
    s.form = Sequence::Form::Slice;
    s.start = start;
    s.step = step;
    if (step > 0) s.length = start < stop ? (stop - start - 1) / step + 1 : 0;
    else s.length = start > stop ? (start - stop - 1) / -step + 1 : 0;
    s.inner.push_back(inner);
    return s;
  }

  void replaceDeep(Node& n) {
    if (replaced_.empty()) return;
    ir::replaceOperands(n, replaced_);
    for (size_t k = 0; k < n.numBlocks(); ++k)
      for (const auto& inner : n.block(k)->nodes()) replaceDeep(*inner);
  }

  Value* resolve(Value* v) const {
    auto it = replaced_.find(v);
    return it == replaced_.end() ? v : it->second;
  }

  std::optional<Sequence> sequence(const Value* v, int depth = 0) const {
    const Node* d = v->def();
    if (!d || depth > 8) return std::nullopt;
    if (d->op() == Op::Iter) return sequence(d->operand(0), depth + 1);
    if (d->op() == Op::MakeTuple || (d->op() == Op::MakeList && !written_.count(v))) {
      Sequence s;
      s.length = static_cast<int64_t>(d->operands().size());
      s.built = d;
      return s;
    }
    if (plainDict(*d)) {  // iterating a dict: its keys
      Sequence s;
      s.form = Sequence::Form::DictKeys;
      s.length = static_cast<int64_t>(d->operands().size() / 2);
      s.built = d;
      return s;
    }
    if (d->op() == Op::GetItem && !written_.count(v)) {
      const Node* make = d->operand(1)->def();
      std::optional<Sequence> inner = make && make->op() == Op::MakeSlice ? sequence(d->operand(0), depth + 1)
                                                                          : std::nullopt;
      // Lists, tuples and ranges slice (an enumerate or a dict view does not).
      bool sliceable = inner && (inner->form == Sequence::Form::Built || inner->form == Sequence::Form::Range ||
                                 inner->form == Sequence::Form::Slice);
      return sliceable ? slice(*inner, *make) : std::nullopt;
    }
    if (d->op() == Op::CallMethod && d->operands().size() == 1 && d->strListAttr("kw").empty())
      return dictSequence(*d, d->operand(0)->def());
    if (d->op() != Op::Call) return std::nullopt;
    // Keywords: only enumerate's start.
    if (const auto& kw = d->strListAttr("kw");
        !kw.empty() && !(calls(*d, ir::Builtin::Enumerate) && kw.size() == 1 && d->operands().size() == 3))
      return std::nullopt;
    // d.keys(), d.values(), d.items()
    if (const Node* get = d->operand(0)->def(); get && get->op() == Op::GetAttr && d->operands().size() == 1)
      return dictSequence(*get, get->operand(0)->def());
    if (calls(*d, ir::Builtin::Enumerate) || calls(*d, ir::Builtin::Zip) || calls(*d, ir::Builtin::Reversed)) {
      bool enumerate = calls(*d, ir::Builtin::Enumerate), zip = calls(*d, ir::Builtin::Zip);
      size_t args = d->operands().size() - 1;
      if (zip ? args == 0 : enumerate ? args > 2 : args != 1) return std::nullopt;
      Sequence s;
      s.form = enumerate ? Sequence::Form::Enumerate : zip ? Sequence::Form::Zip : Sequence::Form::Reversed;
      for (size_t i = 1; i <= (enumerate ? 1 : args); ++i) {
        std::optional<Sequence> inner = sequence(d->operand(i), depth + 1);
        if (!inner) return std::nullopt;
        s.length = s.inner.empty() ? inner->length : std::min(s.length, inner->length);
        s.inner.push_back(std::move(*inner));
      }
      if (enumerate && args == 2) {
        std::optional<int64_t> start = integer(d->operand(2));
        if (!start) return std::nullopt;
        s.start = *start;
      }
      return s;
    }
    if (!calls(*d, ir::Builtin::Range) || d->operands().size() < 2 || d->operands().size() > 4 ||
        !d->strListAttr("kw").empty())
      return std::nullopt;
    std::vector<int64_t> a;
    for (size_t i = 1; i < d->operands().size(); ++i) {
      std::optional<int64_t> x = integer(d->operand(i));
      if (!x) return std::nullopt;
      a.push_back(*x);
    }
    Sequence s;
    s.form = Sequence::Form::Range;
    int64_t stop = a[0];
    if (a.size() >= 2) s.start = a[0], stop = a[1];
    if (a.size() == 3) s.step = a[2];
    if (s.step == 0) return std::nullopt;  // range raises at run time
    // Python's len(range): ceil((stop - start) / step), at least 0.
    __int128 span = s.step > 0 ? __int128(stop) - s.start : __int128(s.start) - stop;
    __int128 step = s.step > 0 ? s.step : -__int128(s.step);
    s.length = span <= 0 ? 0 : static_cast<int64_t>((span + step - 1) / step);
    return s;
  }

  std::optional<int64_t> integer(const Value* v) const {
    const Node* d = v->def();
    if (!d) return std::nullopt;
    switch (d->op()) {
      case Op::Const:
        if (const auto* i = std::get_if<int64_t>(d->attr("value"))) return *i;
        return std::nullopt;
      case Op::Neg: {
        std::optional<int64_t> a = integer(d->operand(0));
        if (!a || *a == INT64_MIN) return std::nullopt;
        return -*a;
      }
      case Op::Add:
      case Op::Sub:
      case Op::Mul: {
        std::optional<int64_t> a = integer(d->operand(0)), b = integer(d->operand(1));
        if (!a || !b) return std::nullopt;
        int64_t r;
        bool overflow = d->op() == Op::Add   ? __builtin_add_overflow(*a, *b, &r)
                        : d->op() == Op::Sub ? __builtin_sub_overflow(*a, *b, &r)
                                             : __builtin_mul_overflow(*a, *b, &r);
        if (overflow) return std::nullopt;
        return r;
      }
      case Op::IterLen: {
        std::optional<Sequence> s = sequence(d->operand(0));
        if (!s) return std::nullopt;
        return s->length;
      }
      case Op::Call: {
        if (!calls(*d, ir::Builtin::Len) || d->operands().size() != 2 || !d->strListAttr("kw").empty())
          return std::nullopt;
        std::optional<Sequence> s = sequence(d->operand(1));
        if (!s) return std::nullopt;
        return s->length;
      }
      default: return std::nullopt;
    }
  }

  static bool isAddOne(const Value* v, const Value* counter) {
    const Node* d = v->def();
    if (!d || d->op() != Op::Add || d->operand(0) != counter) return false;
    const Node* one = d->operand(1)->def();
    if (!one || one->op() != Op::Const) return false;
    const auto* i = std::get_if<int64_t>(one->attr("value"));
    return i && *i == 1;
  }

  Value* constant(ir::Block& b, const Node& at, int64_t value) {
    auto c = std::make_unique<Node>(Op::Const, at.loc());
    c->setAttr("value", value);
    Value* v = c->addResult(ir::TypeKind::Int);
    b.append(std::move(c));
    v->setOwner(&b);
    return v;
  }

  // The value of `item`, made at the end of `b` where it is not one
  // already (an int constant, a make_tuple of its parts).
  Value* materialize(ir::Block& b, const Node& at, const Item& item) {
    if (item.value) return resolve(item.value);
    if (item.integer) return constant(b, at, *item.integer);
    auto tuple = std::make_unique<Node>(Op::MakeTuple, at.loc());
    for (const Item& part : item.parts) tuple->addOperand(materialize(b, at, part));
    Value* v = tuple->addResult(ir::TypeKind::Tuple);
    b.append(std::move(tuple));
    v->setOwner(&b);
    return v;
  }

  // A node of a loop's cond that gives the same value at every iteration
  // and cannot raise: a constant, a builtin, the length of a compile-time
  // sequence (`iter_len`, or `len(ps)` as `while i < len(ps):` reads it).
  bool fixedInCond(const Node& n) const {
    if (n.op() == Op::Const || n.op() == Op::IterLen || n.op() == Op::Builtin) return true;
    return calls(n, ir::Builtin::Len) && integer(n.result(0)).has_value();
  }

  bool unroll(ir::Block& b, Node& loop) {
    const ir::Block& cond = *loop.block(0);
    const ir::Block& body = *loop.block(1);
    // cond: constants and iter_len (which reads the length as each
    // iteration starts: a compile-time sequence's never changes), then
    // `condition (lt counter, N)`.
    size_t nc = cond.nodes().size();
    if (nc < 2 || body.nodes().empty()) return false;
    for (size_t i = 0; i + 2 < nc; ++i)
      if (!fixedInCond(*cond.nodes()[i])) return false;
    const Node& lt = *cond.nodes()[nc - 2];
    const Node& term = *cond.nodes()[nc - 1];
    if (lt.op() != Op::Lt || term.op() != Op::Condition || term.operand(0) != lt.result(0)) return false;
    // The counter: the carried value compared in cond.
    size_t j = 0;
    while (j < cond.numArgs() && cond.arg(j) != lt.operand(0)) ++j;
    if (j == cond.numArgs() || j >= loop.operands().size() || j >= body.numArgs()) return false;
    // The bound: a constant, or a value from outside the loop; not one the
    // loop carries (a block argument of cond, which has no defining node).
    const Node* boundDef = lt.operand(1)->def();
    if (lt.operand(1)->owner() == &cond && (!boundDef || !fixedInCond(*boundDef))) return false;
    const Node* yield = body.terminator();
    if (!yield || yield->op() != Op::Yield || j >= yield->operands().size() ||
        !isAddOne(yield->operand(j), body.arg(j)))
      return false;
    std::optional<int64_t> start = integer(loop.operand(j)), bound = integer(lt.operand(1));
    if (!start || !bound) return false;
    __int128 span = __int128(*bound) - *start;
    if (span > kMaxTrips) return false;
    int64_t trips = span > 0 ? static_cast<int64_t>(span) : 0;
    if (trips > kMaxTrips || trips * static_cast<int64_t>(countNodes(body)) > kMaxCopiedNodes) return false;

    // The loop's iterable, when the body reads its items at the counter.
    std::optional<Sequence> items;
    const Value* iterable = nullptr;
    const Node* read = nullptr;  // the first read: the items made are located at it
    for (const auto& n : body.nodes())
      if (n->op() == Op::IterItem && n->operand(1) == body.arg(j)) {
        iterable = n->operand(0);
        items = sequence(iterable);
        read = n.get();
        break;
      }

    if (items) derivation(iterable);
    std::vector<Value*> values;
    for (Value* v : loop.operands()) values.push_back(resolve(v));
    for (int64_t k = 0; k < trips; ++k) {
      int64_t at = *start + k;
      values[j] = constant(b, loop, at);
      // Item k of the iterable, for the copy's reads of it (made before
      // the copy, which uses it).
      Value* item = nullptr;
      if (items && at >= 0 && at < items->length)  // else the runtime reports it
        if (std::optional<Item> x = items->at(at)) item = materialize(b, *read, *x);
      size_t first = b.nodes().size();
      std::vector<Value*> yields = ir::appendBlockCopy(body, b, values);
      // The copy's reads of item k become the item (and go: they cannot
      // raise), its other nodes see earlier replacements.
      auto& nodes = b.mutableNodes();
      size_t kept = first;
      for (size_t i = first; i < nodes.size(); ++i) {
        Node& n = *nodes[i];
        replaceDeep(n);
        if (item && n.op() == Op::IterItem && n.operand(0) == iterable && n.operand(1) == values[j]) {
          replaced_[n.result(0)] = item;
          graveyard_.push_back(std::move(nodes[i]));
          continue;
        }
        if (kept != i) nodes[kept] = std::move(nodes[i]);
        ++kept;
      }
      nodes.resize(kept);
      for (size_t i = first; i < nodes.size(); ++i) collectListWriters(*nodes[i]);
      for (size_t i = 0; i < yields.size() && i < values.size(); ++i)
        if (i != j) values[i] = resolve(yields[i]);
    }
    if (trips > 0) values[j] = constant(b, loop, *start + trips);
    for (size_t i = 0; i < loop.numResults() && i < values.size(); ++i) replaced_[loop.result(i)] = values[i];
    return true;
  }

  // The nodes that made compile-time sequence `v` (its iter, the
  // enumerate, zip, reversed, range or dict view calls, the slices): none
  // can raise, so once the loops reading them are unrolled they go.
  void derivation(const Value* v) {
    const Node* d = v->def();
    if (!d) return;
    switch (d->op()) {
      case Op::Iter:
      case Op::GetItem:
        sequenceNodes_.insert(d);
        derivation(d->operand(0));
        return;
      case Op::CallMethod: sequenceNodes_.insert(d); return;
      case Op::Call: {
        sequenceNodes_.insert(d);
        const Node* callee = d->operand(0)->def();
        if (callee && callee->op() == Op::GetAttr) sequenceNodes_.insert(callee);
        size_t last = calls(*d, ir::Builtin::Enumerate) ? 1 : d->operands().size() - 1;
        if (calls(*d, ir::Builtin::Enumerate) || calls(*d, ir::Builtin::Zip) || calls(*d, ir::Builtin::Reversed))
          for (size_t i = 1; i <= last; ++i) derivation(d->operand(i));
        return;
      }
      default: return;
    }
  }

 public:
  // Removes the sequence nodes nothing reads any more (see derivation),
  // until none is left to remove.
  void removeUnusedSequences(ir::Block& body) {
    while (!sequenceNodes_.empty()) {
      std::unordered_set<const Value*> used;
      ir::collectUsedValues(body, used);
      if (!eraseUnused(body, used)) return;
    }
  }

 private:
  bool eraseUnused(ir::Block& b, const std::unordered_set<const Value*>& used) {
    bool erased = false;
    auto& nodes = b.mutableNodes();
    size_t kept = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node& n = *nodes[i];
      for (size_t k = 0; k < n.numBlocks(); ++k) erased |= eraseUnused(*n.block(k), used);
      if (sequenceNodes_.count(&n) && n.numResults() == 1 && !used.count(n.result(0))) {
        sequenceNodes_.erase(&n);
        graveyard_.push_back(std::move(nodes[i]));
        erased = true;
        continue;
      }
      if (kept != i) nodes[kept] = std::move(nodes[i]);
      ++kept;
    }
    nodes.resize(kept);
    return erased;
  }

  std::unordered_set<const Value*> written_;
  std::unordered_map<const Value*, Value*> replaced_;
  std::vector<std::unique_ptr<Node>> graveyard_;
  std::unordered_set<const Node*> sequenceNodes_;
};

}  // namespace

bool unrollLoops(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [&](ir::Function& f) {
    Unroller u(f);
    u.block(*f.body());
    if (u.changed) u.removeUnusedSequences(*f.body());
    return u.changed;
  });
}

}  // namespace nn::passes
