// Reverse mode over a block's code, through `if` (see reverse_mode.h).
//
// Algorithm: a forward sweep marks the values that depend on a `wrt` value
// (active), descending into the branches of `if`s. Then, in reverse
// program order, each node whose result has an adjoint gets its rule
// applied with the adjoint and its operands' primal values; an operand's
// adjoint is wanted when the operand is active. Adjoints reaching one value
// from several uses are added. An `if` whose results have adjoints becomes
// a backward `if` on the same predicate: each branch seeds the values its
// forward branch yielded with the results' adjoints, runs this same sweep
// over the forward branch, and yields the adjoints of the values from
// outside the branch that it reached (zeros where the other branch reached
// them and this one did not); their sum with other adjoints follows.
//
// Invariants: the forward nodes are only read, except that a forward `if`
// gains results for the values its branches' backward reads (constants are
// copied instead); every node appended is typed by its rule and located at
// the forward node it differentiates.
#include "passes/reverse_mode.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/gradient.h"
#include "ir/type_rules.h"

namespace nn::passes {
namespace {

using ir::Block;
using ir::Node;
using ir::Op;
using ir::Value;

// The adjoints reached so far in one block of the backward, in the order
// they were first reached.
struct Adjoints {
  std::unordered_map<const Value*, Value*> of;
  std::vector<const Value*> order;
};

// Whether `b` is `outer` or lies inside one of its nodes' blocks.
bool within(const Block* b, const Block* outer) {
  for (; b; b = b->parentNode() ? b->parentNode()->parent() : nullptr)
    if (b == outer) return true;
  return false;
}

class Reverser {
 public:
  explicit Reverser(const ReverseRequest& r) : r_(r) {}

  std::vector<Value*> run(Block& into) {
    active_.insert(r_.wrt.begin(), r_.wrt.end());
    markActive(r_.nodes);
    Adjoints adj;
    if (active_.count(r_.output)) add(adj, r_.output, r_.seed, into, r_.nodes.empty() ? SourceLoc{} : r_.nodes.back()->loc());
    reverse(into, r_.nodes, adj);
    std::vector<Value*> out;
    for (const Value* v : r_.wrt) {
      auto it = adj.of.find(v);
      out.push_back(it == adj.of.end() ? nullptr : it->second);
    }
    return out;
  }

 private:
  static std::vector<const Node*> nodesOf(const Block& b) {
    std::vector<const Node*> out;
    for (const auto& n : b.nodes())
      if (!ir::hasTrait(n->op(), ir::TERM)) out.push_back(n.get());
    return out;
  }

  bool usesActive(const Node& n) const {
    for (const Value* v : n.operands())
      if (active_.count(v)) return true;
    for (size_t k = 0; k < n.numBlocks(); ++k)
      for (const auto& inner : n.block(k)->nodes())
        if (usesActive(*inner)) return true;
    return false;
  }

  void markActive(const std::vector<const Node*>& nodes) {
    for (const Node* n : nodes) {
      if (n->op() == Op::If) {
        markActive(nodesOf(*n->block(0)));
        markActive(nodesOf(*n->block(1)));
      }
      if (!usesActive(*n)) continue;
      for (size_t i = 0; i < n->numResults(); ++i) active_.insert(n->result(i));
    }
  }

  // Adds `g` to the adjoint of `v` in `adj`, emitting the sum in `into`.
  void add(Adjoints& adj, const Value* v, Value* g, Block& into, SourceLoc loc) {
    auto [slot, fresh] = adj.of.emplace(v, g);
    if (fresh) {
      adj.order.push_back(v);
      return;
    }
    Node* sum = ir::build(&into, Op::Add, loc, {slot->second, g}, 1);
    sum->setBackward();
    sum->result(0)->setType(ir::resultType(*sum, 0));
    slot->second = sum->result(0);
  }

  // `v` where the backward being built in `into` can read it.
  Value* primal(const Value* v, Block& into) {
    const Block* owner = v->owner();
    const Node* parent = owner ? owner->parentNode() : nullptr;
    if (!parent || !reversedIfs_.count(parent)) return r_.primal(v);
    const Node* def = v->def();
    if (def && def->op() == Op::Const) {  // cheaper copied than saved
      Node* c = ir::build(&into, Op::Const, def->loc(), {}, 1);
      c->setBackward();
      for (const auto& [name, value] : def->attrs()) c->setAttr(name, value);
      c->result(0)->setType(v->type());
      return c->result(0);
    }
    return primal(saved(*parent, owner == parent->block(0) ? 0 : 1, v), into);
  }

  // A result of forward `if` `n` holding `v`, which its branch `k` defines.
  Value* saved(const Node& cn, size_t k, const Value* v) {
    auto key = std::make_pair(&cn, v);
    if (auto it = saved_.find(key); it != saved_.end()) return it->second;
    Node& n = const_cast<Node&>(cn);  // the documented exception: saving adds results
    Value* result = n.addResult(v->type());
    for (size_t b = 0; b < 2; ++b) {
      Block& branch = *n.block(b);
      Value* yielded = const_cast<Value*>(v);
      if (b != k) {
        // Read only by the backward of branch k, so never when this runs.
        auto undef = std::make_unique<Node>(Op::Undef, n.loc());
        undef->setAttr("name", std::string("(saved)"));
        undef->setAttr("saved", true);
        Node* u = undef.get();
        auto& nodes = branch.mutableNodes();
        undef->setParent(&branch);
        nodes.insert(nodes.end() - 1, std::move(undef));
        yielded = u->addResult(ir::Type::any());
      }
      branch.terminator()->addOperand(yielded);
    }
    saved_.emplace(key, result);
    return result;
  }

  void reverse(Block& into, const std::vector<const Node*>& nodes, Adjoints& adj) {
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      const Node& n = **it;
      bool reached = false;
      for (size_t i = 0; i < n.numResults(); ++i) reached |= adj.of.count(n.result(i)) > 0;
      if (!reached) continue;  // does not reach the output
      if (n.op() == Op::If) {
        reverseIf(into, n, adj);
        continue;
      }
      if (n.op() == Op::Loop)
        throw NotDifferentiable("graph mode does not differentiate through loops yet", n.loc());
      if (n.op() == Op::Call)
        throw NotDifferentiable("graph mode does not differentiate through a call it did not inline", n.loc());
      if (n.numResults() != 1)
        throw NotDifferentiable(std::string("the gradient of '") + n.info().name + "' is not supported", n.loc());
      std::vector<Value*> operands;
      std::vector<bool> wanted;
      for (const Value* v : n.operands()) {
        operands.push_back(primal(v, into));
        wanted.push_back(active_.count(v) > 0);
      }
      ir::GradientBuilder b(into, n, operands, [&] { return primal(n.result(0), into); }, adj.of[n.result(0)],
                            wanted);
      try {
        n.info().gradient(b);
      } catch (const NotDifferentiable&) {
        throw;
      } catch (NnError& e) {
        throw NotDifferentiable(e.diag());
      }
      for (size_t i = 0; i < n.operands().size(); ++i)
        if (b.grads[i]) add(adj, n.operand(i), b.grads[i], into, n.loc());
    }
  }

  void reverseIf(Block& into, const Node& n, Adjoints& adj) {
    reversedIfs_.insert(&n);
    Node* back = ir::build(&into, Op::If, n.loc(), {primal(n.operand(0), into)}, 0);
    back->setBackward();
    back->setInlinedAt(n.inlinedAt());
    Adjoints branch[2];
    std::vector<const Value*> reached;  // from outside the forward if, in first-reached order
    for (size_t k = 0; k < 2; ++k) {
      Block& bk = *back->addBlock();
      const Block& fk = *n.block(k);
      const Node& yield = *fk.terminator();
      for (size_t i = 0; i < n.numResults(); ++i) {
        auto g = adj.of.find(n.result(i));
        if (g != adj.of.end() && active_.count(yield.operand(i)))
          add(branch[k], yield.operand(i), g->second, bk, n.loc());
      }
      reverse(bk, nodesOf(fk), branch[k]);
      for (const Value* v : branch[k].order)
        if (!within(v->owner(), &fk) && std::find(reached.begin(), reached.end(), v) == reached.end())
          reached.push_back(v);
    }
    for (size_t k = 0; k < 2; ++k) {
      Block& bk = *back->block(k);
      std::vector<Value*> yields;
      for (const Value* v : reached) {
        auto g = branch[k].of.find(v);
        yields.push_back(g != branch[k].of.end() ? g->second : zeros(v, bk, n));
      }
      ir::build(&bk, Op::Yield, n.loc(), yields, 0)->setBackward();
    }
    for (size_t i = 0; i < reached.size(); ++i) {
      Value* r = back->addResult(back->block(0)->terminator()->operand(i)->type());
      add(adj, reached[i], r, into, n.loc());
    }
  }

  // A zero adjoint for `v` in `into`.
  Value* zeros(const Value* v, Block& into, const Node& at) {
    if (!v->type().isTensor() && v->type().kind != ir::TypeKind::Float)
      throw NotDifferentiable("the gradient through this if of a value of type " + v->type().str() +
                                  " is not supported",
                              at.loc());
    return zeroAdjoint(into, at.loc(), primal(v, into));
  }

  const ReverseRequest& r_;
  std::unordered_set<const Value*> active_;
  std::unordered_set<const Node*> reversedIfs_;
  std::map<std::pair<const Node*, const Value*>, Value*> saved_;
};

}  // namespace

Value* zeroAdjoint(Block& into, SourceLoc loc, Value* like) {
  Node* z = nullptr;
  if (like->type().isTensor()) {
    z = ir::build(&into, Op::ZerosLike, loc, {like}, 1);
    z->setAttr("dtype", ir::NoneAttr{});
  } else {
    z = ir::build(&into, Op::Const, loc, {}, 1);
    z->setAttr("value", 0.0);
  }
  z->setBackward();
  z->result(0)->setType(ir::resultType(*z, 0));
  return z->result(0);
}

std::vector<Value*> reverseMode(Block& into, const ReverseRequest& request) { return Reverser(request).run(into); }

}  // namespace nn::passes
