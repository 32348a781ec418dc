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
// N)` (after constants and the iterable's `iter_len` only) with N known at
// compile time, and the body yields `add counter, 1` for it. That is how
// the front end lowers `for x in range(...)`, `for x in (a, b, c)` and
// comprehensions (the counter indexes an `iter` of the iterable), and how
// `while i < 3:` with `i = i + 1` reads. A loop with `break` (its cond is an `if`), a counter
// that moves otherwise, or a bound only known at run time is left alone.
//
// Compile-time ints: int constants, +, -, * of them (no overflow), and
// lengths: `len(x)` or an `iter` of a tuple the function builds, of a
// list it builds and only reads (no append, setitem or other call takes
// it), or of `range(...)` over compile-time ints.
//
// Algorithm: one walk in program order that rebuilds each block's node
// list; nested blocks first, so inner loops unroll before their outer
// loop is copied. A loop of T trips, T <= kMaxTrips and T times its node
// count <= kMaxCopiedNodes, is replaced by T copies of its body: copy k
// binds the counter to the constant start+k and the other carried values
// to copy k-1's yields (the loop's operands for k = 0); an `iter_item` of
// the loop's iterable at the counter becomes the item (a range's value
// as a constant, a built tuple's or list's operand); the loop's results
// become the last copy's yields (its operands when T = 0, the cond being
// free of effects).
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

// A sequence known at compile time: its length and how its items read.
struct Sequence {
  int64_t length = 0;
  const Node* built = nullptr;  // make_tuple / make_list: items are its operands
  int64_t start = 0, step = 1;  // otherwise a range
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
  // Lists that something other than a read takes: their length or items
  // may change, so they are not compile-time sequences.
  void collectListWriters(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      for (size_t i = 0; i < n->operands().size(); ++i) {
        const Value* v = n->operand(i);
        const Node* d = v->def();
        if (!d || d->op() != Op::MakeList) continue;
        bool read = n->op() == Op::Iter || n->op() == Op::Unpack || (n->op() == Op::GetItem && i == 0);
        if (calls(*n, ir::Builtin::Len) && i == 1) read = true;
        if (!read) written_.insert(v);
      }
      for (size_t k = 0; k < n->numBlocks(); ++k) collectListWriters(*n->block(k));
    }
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

  std::optional<Sequence> sequence(const Value* v) const {
    const Node* d = v->def();
    if (!d) return std::nullopt;
    if (d->op() == Op::Iter) return sequence(d->operand(0));
    if (d->op() == Op::MakeTuple || (d->op() == Op::MakeList && !written_.count(v))) {
      Sequence s;
      s.length = static_cast<int64_t>(d->operands().size());
      s.built = d;
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

  bool unroll(ir::Block& b, Node& loop) {
    const ir::Block& cond = *loop.block(0);
    const ir::Block& body = *loop.block(1);
    // cond: constants and iter_len (which reads the length as each
    // iteration starts: a compile-time sequence's never changes), then
    // `condition (lt counter, N)`.
    size_t nc = cond.nodes().size();
    if (nc < 2 || body.nodes().empty()) return false;
    for (size_t i = 0; i + 2 < nc; ++i)
      if (cond.nodes()[i]->op() != Op::Const && cond.nodes()[i]->op() != Op::IterLen) return false;
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
    if (lt.operand(1)->owner() == &cond && (!boundDef || (boundDef->op() != Op::Const && boundDef->op() != Op::IterLen)))
      return false;
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
    for (const auto& n : body.nodes())
      if (n->op() == Op::IterItem && n->operand(1) == body.arg(j)) {
        iterable = n->operand(0);
        items = sequence(iterable);
        break;
      }

    std::vector<Value*> values;
    for (Value* v : loop.operands()) values.push_back(resolve(v));
    for (int64_t k = 0; k < trips; ++k) {
      int64_t at = *start + k;
      values[j] = constant(b, loop, at);
      // Item k of the iterable, for the copy's reads of it (made before
      // the copy, which uses it).
      Value* item = nullptr;
      if (items && at >= 0 && at < items->length) {  // else the runtime reports it
        int64_t value;  // a range's item: start + at * step, always an int64 inside the range
        if (items->built) item = items->built->operand(static_cast<size_t>(at));
        else if (!__builtin_mul_overflow(at, items->step, &value) && !__builtin_add_overflow(items->start, value, &value))
          item = constant(b, loop, value);
      }
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
      for (size_t i = 0; i < yields.size() && i < values.size(); ++i)
        if (i != j) values[i] = resolve(yields[i]);
    }
    if (trips > 0) values[j] = constant(b, loop, *start + trips);
    for (size_t i = 0; i < loop.numResults() && i < values.size(); ++i) replaced_[loop.result(i)] = values[i];
    return true;
  }

  std::unordered_set<const Value*> written_;
  std::unordered_map<const Value*, Value*> replaced_;
  std::vector<std::unique_ptr<Node>> graveyard_;
};

}  // namespace

bool unrollLoops(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [&](ir::Function& f) {
    Unroller u(f);
    u.block(*f.body());
    return u.changed;
  });
}

}  // namespace nn::passes
