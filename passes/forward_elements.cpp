// forward-elements: an element read out of a container the function built
// itself becomes the value it was built from, so it keeps its static type.
//
// Algorithm: one walk in program order (nested blocks included). `c[k]`
// with `c` a make_tuple, make_list or make_dict of this function and `k` a
// constant index or key present in it, and `a, b = c` with as many
// elements, take the element values: their uses are rewired and the
// reading node removed. Reads of containers forwarded earlier in the walk
// forward again, so `p[0]["w"]` of a nested literal reaches the tensor.
// This is what gives a differentiated parameter structure (passes/autodiff)
// and an inlined callee's tuple arguments their types.
//
// First, a list that is only appended to right after it is made (what an
// unrolled comprehension leaves: `make_list` then `list_append`s in the
// same block, nothing else reading it before the last append) becomes one
// `make_list` of all its items, placed at the last append; so does a dict
// only stored into at str constant keys by stores whose result nothing
// reads (an unrolled dict comprehension; a statement `d["w"] = w` makes
// its result the next `d`): a make_dict's later keys replace earlier
// values in place, as the stores did.
//
// `d.get(k)` and `d.get(k, default)` of such a dict forward alike (to the
// default when the constant key is absent).
//
// Then `sum(c)` of such a container whose items are typed numbers or
// tensors becomes its adds (see expandSums), which type inference types.
//
// Never forwarded: a list or dict in a function that may mutate one (a
// setitem, a list_append, a call_method of a mutating method such as
// append, or a call of anything but a builtin or a tensor method, which
// might be such a method); an index out of range or a key not present (the
// read raises at run time, at its own location); non-constant keys.
//
// Invariants: only reads that cannot raise are removed; SSA dominance
// holds because the element is defined before its container.
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/builtins.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Node;
using ir::Op;
using ir::Value;

// The list and dict methods that change their receiver.
bool mutatorName(const std::string& name) {
  static const char* const mutators[] = {"append", "extend", "insert", "pop", "remove", "clear",
                                         "sort", "reverse", "update", "setdefault", "popitem"};
  for (const char* m : mutators)
    if (name == m) return true;
  return false;
}

// The value `v` holds when a `const` node makes it, else null.
const ir::Attr* constant(const Value* v) {
  const Node* d = v->def();
  return d && d->op() == Op::Const ? d->attr("value") : nullptr;
}

// The element of `c` at constant `index`, or null.
Value* element(const Node& c, const Value* index) {
  const ir::Attr* key = constant(index);
  if (!key) return nullptr;
  if (c.op() == Op::MakeDict) {
    // String keys only: 1 and 1.0 are one key to Python, not to Attr.
    if (!std::holds_alternative<std::string>(*key)) return nullptr;
    Value* found = nullptr;  // the last equal key wins
    for (size_t i = 0; i + 1 < c.operands().size(); i += 2) {
      const ir::Attr* k = constant(c.operand(i));
      if (!k || !std::holds_alternative<std::string>(*k)) return nullptr;
      if (*k == *key) found = c.operand(i + 1);
    }
    return found;
  }
  const int64_t* at = std::get_if<int64_t>(key);
  if (!at) return nullptr;
  int64_t n = static_cast<int64_t>(c.operands().size()), i = *at < 0 ? *at + n : *at;
  return i >= 0 && i < n ? c.operand(static_cast<size_t>(i)) : nullptr;
}

// The make_tuple, make_list or make_dict that `v` is, or that an element
// read of one at a constant index or key gives: its methods are the
// container's (never a module's function of the same name).
const Node* builtContainer(const Value* v, int depth = 0) {
  const Node* d = v->def();
  if (!d || depth > 16) return nullptr;
  if (d->op() == Op::MakeTuple || d->op() == Op::MakeList || d->op() == Op::MakeDict) return d;
  if (d->op() != Op::GetItem) return nullptr;
  const Node* c = builtContainer(d->operand(0), depth + 1);
  Value* e = c ? element(*c, d->operand(1)) : nullptr;
  return e ? builtContainer(e, depth + 1) : nullptr;
}

// A call that cannot mutate a container: of a builtin, of a tensor
// method (tensors are values; no tensor method is also a list or dict
// method that mutates), or of a method of a container the function built
// that does not change it (`d.get(k)`: its methods call no user code).
bool harmlessCall(const Node& call) {
  const Node* callee = call.operand(0)->def();
  if (!callee) return false;
  if (callee->op() == Op::Builtin) return true;
  if (callee->op() != Op::GetAttr) return false;
  const std::string& name = callee->strAttr("name");
  return !mutatorName(name) && (ir::methodOp(name).has_value() || builtContainer(callee->operand(0)));
}

bool mayMutate(const ir::Block& b) {
  for (const auto& n : b.nodes()) {
    if (n->op() == Op::SetItem || n->op() == Op::DelItem || n->op() == Op::ListAppend) return true;
    if (n->op() == Op::Call && !harmlessCall(*n)) return true;
    // A method of a list, dict, str or tuple (bind-methods) calls no user
    // code, so only its receiver can change; a receiver of unknown type
    // may be a module, whose function may change anything, unless it is
    // (an element of) a container the function built.
    if (n->op() == Op::CallMethod && (mutatorName(n->strAttr("name")) ||
                                      (!ir::hasHostMethods(n->operand(0)->type()) && !builtContainer(n->operand(0)))))
      return true;
    for (size_t k = 0; k < n->numBlocks(); ++k)
      if (mayMutate(*n->block(k))) return true;
  }
  return false;
}

// Whether `n` adds to `container` the way the make_list or make_dict
// could have: `list_append v, x`, or `setitem v, "key", x` of a str
// constant key whose result nothing reads (a dict comprehension's store).
bool addsTo(const Node& n, const Node& container, const std::unordered_set<const Value*>& used) {
  const Value* v = container.result(0);
  if (n.operands().empty() || n.operand(0) != v) return false;
  if (n.op() == Op::ListAppend) return container.op() == Op::MakeList && n.operands().size() == 2 && n.operand(1) != v;
  if (n.op() != Op::SetItem || container.op() != Op::MakeDict || n.operands().size() != 3 || n.operand(2) == v ||
      used.count(n.result(0)))
    return false;
  const Node* key = n.operand(1)->def();
  return key && key->op() == Op::Const && std::holds_alternative<std::string>(*key->attr("value"));
}

// The collapse of appends into their make_list (see the header), and of a
// dict comprehension's stores into its make_dict, in one walk per block: a
// container's additions are counted until anything else uses it; each
// collapsible container then moves to its last addition. Returns whether
// any did.
bool collapseAppends(ir::Block& b, const std::unordered_set<const Value*>& used) {
  bool collapsed = false;
  constexpr size_t kNone = SIZE_MAX;
  struct Pending {
    Node* list;
    size_t lastAppend;  // index in b of the last append so far (kNone: none)
    bool open = true;   // nothing but appends has used it yet
  };
  std::unordered_map<const Value*, Pending> lists;
  size_t open = 0;  // lists still open: with none, nested uses need no walk
  auto& nodes = b.mutableNodes();
  auto close = [&](const Value* v) {
    auto it = lists.find(v);
    if (it != lists.end() && it->second.open) {
      it->second.open = false;
      --open;
    }
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& n = *nodes[i];
    for (size_t k = 0; k < n.numBlocks(); ++k) collapsed |= collapseAppends(*n.block(k), used);
    // (A list appended to itself is a use: its make_list cannot take it.)
    if (!n.operands().empty()) {
      auto it = lists.find(n.operand(0));
      if (it != lists.end() && it->second.open && addsTo(n, *it->second.list, used)) {
        it->second.lastAppend = i;
        close(n.operands().back());
        continue;
      }
    }
    std::function<void(const Node&)> closeUses = [&](const Node& m) {
      for (const Value* v : m.operands()) close(v);
      for (size_t k = 0; k < m.numBlocks(); ++k)
        for (const auto& inner : m.block(k)->nodes()) closeUses(*inner);
    };
    if (open > 0) closeUses(n);
    if (n.op() == Op::MakeList || n.op() == Op::MakeDict) {
      lists[n.result(0)] = Pending{&n, kNone};
      ++open;
    }
  }
  // The appends that build a list: their indices, and the list's new place.
  std::unordered_map<size_t, Node*> moveTo;  // last append -> list
  for (auto& [value, p] : lists) {
    if (p.lastAppend == kNone) continue;
    moveTo[p.lastAppend] = p.list;
  }
  if (moveTo.empty()) return collapsed;
  std::unordered_map<const Node*, Node*> appendOf;  // append -> its list, for those collapsed
  std::unordered_set<const Node*> collapsing;
  for (auto& [at, list] : moveTo) collapsing.insert(list);
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& n = *nodes[i];
    if ((n.op() != Op::ListAppend && n.op() != Op::SetItem) || n.operands().empty()) continue;
    const Node* list = n.operand(0)->def();
    auto it = lists.find(n.operand(0));
    if (list && collapsing.count(list) && it != lists.end() && i <= it->second.lastAppend)
      appendOf[&n] = const_cast<Node*>(list);
  }
  std::vector<std::unique_ptr<Node>> out;
  std::unordered_map<const Node*, std::unique_ptr<Node>> lifted;
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::unique_ptr<Node>& owned = nodes[i];
    if (collapsing.count(owned.get())) {
      lifted[owned.get()] = std::move(owned);
      continue;
    }
    if (auto it = appendOf.find(owned.get()); it != appendOf.end()) {
      for (size_t k = 1; k < owned->operands().size(); ++k) it->second->addOperand(owned->operand(k));
      if (auto m = moveTo.find(i); m != moveTo.end()) out.push_back(std::move(lifted[m->second]));
      continue;  // the append itself is gone
    }
    out.push_back(std::move(owned));
  }
  nodes = std::move(out);
  return true;
}

// `sum(c)` of a make_list or make_tuple `c` whose items are typed
// numbers or tensors becomes the adds the builtin would run, `0 + c[0] +
// c[1] ...` left to right, each located at the call (a start argument, a
// keyword or an item of another or unknown type keeps the call: a str
// start raises, and an item's add could otherwise fail at compile time
// where the call failed as it ran). Nodes are rebuilt in one walk per
// block; the last add takes over the call's result.
bool expandSums(ir::Block& b, bool listsStay) {
  bool changed = false;
  std::vector<std::unique_ptr<Node>> old = std::move(b.mutableNodes());
  b.mutableNodes().clear();
  for (std::unique_ptr<Node>& owned : old) {
    Node& n = *owned;
    for (size_t k = 0; k < n.numBlocks(); ++k) changed |= expandSums(*n.block(k), listsStay);
    const Node* c = n.op() == Op::Call && ir::calledFunction(n) == ir::Builtin::Sum && n.operands().size() == 2 &&
                            n.strListAttr("kw").empty()
                        ? n.operand(1)->def()
                        : nullptr;
    bool built = c && (c->op() == Op::MakeTuple || (c->op() == Op::MakeList && !listsStay));
    for (size_t i = 0; built && i < c->operands().size(); ++i) {
      ir::TypeKind k = c->operand(i)->type().kind;
      built = k == ir::TypeKind::Int || k == ir::TypeKind::Float || k == ir::TypeKind::Bool ||
              k == ir::TypeKind::Tensor;
    }
    if (!built) {
      b.append(std::move(owned));
      continue;
    }
    auto zero = std::make_unique<Node>(Op::Const, n.loc());
    zero->setInlinedAt(n.inlinedAt());
    zero->setAttr("value", int64_t{0});
    if (c->operands().empty()) {  // sum([]) is 0
      zero->adoptResults(n);
      zero->result(0)->setType(ir::TypeKind::Int);
      b.append(std::move(zero));
      changed = true;
      continue;
    }
    Value* sum = zero->addResult(ir::TypeKind::Int);
    b.append(std::move(zero));
    sum->setOwner(&b);
    for (size_t i = 0; i < c->operands().size(); ++i) {
      auto add = std::make_unique<Node>(Op::Add, n.loc());
      add->setInlinedAt(n.inlinedAt());
      add->addOperand(sum);
      add->addOperand(c->operand(i));
      if (i + 1 == c->operands().size()) {
        add->adoptResults(n);  // its uses stay
        b.append(std::move(add));
        break;
      }
      sum = add->addResult(ir::Type::any());
      b.append(std::move(add));
      sum->setOwner(&b);
    }
    changed = true;
  }
  return changed;
}

class Forwarder {
 public:
  explicit Forwarder(bool listsStay) : listsStay_(listsStay) {}

  bool block(ir::Block& b) {
    bool changed = false;
    auto& nodes = b.mutableNodes();
    size_t kept = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node& n = *nodes[i];
      ir::replaceOperands(n, forwarded_);
      for (size_t k = 0; k < n.numBlocks(); ++k) changed |= block(*n.block(k));
      if (forward(n)) {
        changed = true;
        continue;  // dropped
      }
      if (kept != i) nodes[kept] = std::move(nodes[i]);
      ++kept;
    }
    nodes.resize(kept);
    return changed;
  }

 private:
  // The node building `v`, when reads of it may be forwarded.
  const Node* container(const Value* v) const {
    const Node* d = v->def();
    if (!d) return nullptr;
    if (d->op() == Op::MakeTuple) return d;
    if ((d->op() == Op::MakeList || d->op() == Op::MakeDict) && !listsStay_) return d;
    return nullptr;
  }

  bool forward(Node& n) {
    if (n.op() == Op::CallMethod || n.op() == Op::Call) return forwardGet(n);
    if (n.op() != Op::GetItem && n.op() != Op::Unpack) return false;
    const Node* c = container(n.operand(0));
    if (!c) return false;
    if (n.op() == Op::GetItem) {
      Value* e = element(*c, n.operand(1));
      if (!e) return false;
      forwarded_[n.result(0)] = e;
      return true;
    }
    if (c->op() == Op::MakeDict || c->operands().size() != n.numResults() || n.attr("star")) return false;
    for (size_t i = 0; i < n.numResults(); ++i) forwarded_[n.result(i)] = c->operand(i);
    return true;
  }

  // `d.get(k)` / `d.get(k, default)` of a dict the function built: the
  // value at k, or the default where every key is a constant and k is
  // none of them.
  // (A call_method, or a call of the getattr: `call_method %d, k {name}`
  // is `call (getattr %d {name}), k`.)
  bool forwardGet(Node& n) {
    const Node* get = n.op() == Op::Call ? n.operand(0)->def() : &n;
    if (!get || (n.op() == Op::Call && get->op() != Op::GetAttr) || get->strAttr("name") != "get" ||
        n.operands().size() < 2 || n.operands().size() > 3 || !n.strListAttr("kw").empty())
      return false;
    const Node* c = container(get->operand(0));
    if (!c || c->op() != Op::MakeDict) return false;
    Value* e = element(*c, n.operand(1));
    if (!e && n.operands().size() == 3 && absent(*c, n.operand(1))) e = n.operand(2);
    if (!e) return false;
    forwarded_[n.result(0)] = e;
    return true;
  }

  // Whether constant str `key` is none of dict c's keys, all constants.
  static bool absent(const Node& c, const Value* key) {
    const ir::Attr* k = constant(key);
    if (!k || !std::holds_alternative<std::string>(*k)) return false;
    for (size_t i = 0; i + 1 < c.operands().size(); i += 2) {
      const ir::Attr* other = constant(c.operand(i));
      if (!other || !std::holds_alternative<std::string>(*other) || *other == *k) return false;
    }
    return true;
  }

  bool listsStay_;
  std::unordered_map<const Value*, Value*> forwarded_;
};

}  // namespace

bool forwardElements(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [&](ir::Function& f) {
    // Forwarding can make a store's key a constant (an unrolled dict
    // comprehension's key is unpacked from its item), which lets its dict
    // collapse and be forwarded in turn: a few rounds, while either moves.
    bool changed = false, listsStay = true;
    for (int round = 0; round < 4; ++round) {
      std::unordered_set<const Value*> used;
      ir::collectUsedValues(*f.body(), used);
      bool collapsed = collapseAppends(*f.body(), used);
      listsStay = mayMutate(*f.body());
      bool forwarded = Forwarder(listsStay).block(*f.body());
      changed |= collapsed || forwarded;
      if (!forwarded) break;
    }
    return expandSums(*f.body(), listsStay) || changed;
  });
}

}  // namespace nn::passes
