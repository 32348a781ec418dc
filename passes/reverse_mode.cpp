// Reverse mode over a block's code, through `if` and loops (see reverse_mode.h).
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
// A loop whose results have adjoints becomes a backward loop that runs its
// iterations in reverse: the forward loop gains a carried iteration count,
// and each body value the backward reads is appended, every iteration, to
// a list made before the loop (`saved_item list, i` reads it back). The
// backward loop carries the adjoints of the forward's carried values
// (seeded with its results' adjoints, zeros where a result has none), the
// index counting down from the iteration count, and one sum per value from
// outside the loop that the body's backward reaches (starting at zero); in
// its body the forward body's yields are seeded with the carried adjoints,
// this same sweep runs over the forward body, and the adjoints of the body
// arguments become the next carried adjoints. A carried value is active
// when its initial or its yielded value is (a fixpoint); ints, bools and
// integer tensors carry none.
//
// Invariants: the forward nodes are only read, except that a forward `if`
// gains results for the values its branches' backward reads and a forward
// loop gains its count and the appends of what its body's backward reads
// (constants are copied instead); every node appended is typed by its rule
// and located at the forward node it differentiates.
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

// Whether a carried value of type `t` cannot carry a gradient.
bool carriesNoGradient(const ir::Type& t) {
  switch (t.kind) {
    case ir::TypeKind::Int: case ir::TypeKind::Bool: case ir::TypeKind::Str: case ir::TypeKind::None:
    case ir::TypeKind::Func: case ir::TypeKind::Module: case ir::TypeKind::Token:
      return true;
    case ir::TypeKind::Tensor: return t.dtype && !isFloating(*t.dtype);
    default: return false;
  }
}

// Puts `node` into `b` just before `anchor`; returns it.
Node* insertBefore(Block& b, const Node* anchor, std::unique_ptr<Node> node) {
  node->setParent(&b);
  auto& nodes = b.mutableNodes();
  auto at = std::find_if(nodes.begin(), nodes.end(), [&](const auto& p) { return p.get() == anchor; });
  return nodes.insert(at, std::move(node))->get();
}

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
      if (n->op() == Op::Loop) {
        markLoop(*n);
        continue;
      }
      if (!usesActive(*n)) continue;
      for (size_t i = 0; i < n->numResults(); ++i) active_.insert(n->result(i));
    }
  }

  // A carried value is active when its initial value or, in some
  // iteration, its yielded value is; the body is marked until that settles.
  void markLoop(const Node& n) {
    const Block& body = *n.block(1);
    const Node& yield = *body.terminator();
    auto activate = [&](size_t i) {
      if (active_.count(body.arg(i)) || carriesNoGradient(n.result(i)->type())) return false;
      active_.insert(body.arg(i));
      active_.insert(n.result(i));
      return true;
    };
    for (size_t i = 0; i < n.numResults(); ++i)
      if (active_.count(n.operand(i))) activate(i);
    for (bool changed = true; changed;) {
      markActive(nodesOf(body));
      changed = false;
      for (size_t i = 0; i < n.numResults(); ++i)
        if (active_.count(yield.operand(i))) changed |= activate(i);
    }
  }

  // Adds `g` to the adjoint of `v` in `adj`, emitting the sum in `into`.
  void add(Adjoints& adj, const Value* v, Value* g, Block& into, SourceLoc loc) {
    auto [slot, fresh] = adj.of.emplace(v, g);
    if (fresh) {
      adj.order.push_back(v);
      return;
    }
    slot->second = accumulate(into, slot->second, g, loc);
  }

  // acc + g, emitted in `into`. A g that is an index_grad of `into` read
  // by nothing yet (the adjoint of one x[index]: zeros but at the
  // selection) is added at the selection instead (index_grad_add, and the
  // index_grad dropped), so that x[t] read in each of T steps costs T
  // selections rather than T whole tensors.
  static Value* accumulate(Block& into, Value* acc, Value* g, SourceLoc loc) {
    Node* spread = g->def();
    bool selection = spread && spread->op() == Op::IndexGrad && spread->parent() == &into && acc->type() == g->type() &&
                     !reads(into, g);
    Node* sum = selection ? ir::build(&into, Op::IndexGradAdd, loc, {acc, spread->operand(0), spread->operand(2)}, 1)
                          : ir::build(&into, Op::Add, loc, {acc, g}, 1);
    if (selection) {
      auto& nodes = into.mutableNodes();
      nodes.erase(std::find_if(nodes.begin(), nodes.end(), [&](const auto& p) { return p.get() == spread; }));
    }
    sum->setBackward();
    sum->result(0)->setType(ir::resultType(*sum, 0));
    return sum->result(0);
  }

  // `v` where the backward being built in `into` can read it.
  Value* primal(const Value* v, Block& into) {
    const Block* owner = v->owner();
    const Node* parent = owner ? owner->parentNode() : nullptr;
    auto index = parent ? iterationIndex_.find(parent) : iterationIndex_.end();
    if (!parent || (!reversedIfs_.count(parent) && index == iterationIndex_.end())) return r_.primal(v);
    const Node* def = v->def();
    if (def && def->op() == Op::Const) {  // cheaper copied than saved
      Node* c = ir::build(&into, Op::Const, def->loc(), {}, 1);
      c->setBackward();
      for (const auto& [name, value] : def->attrs()) c->setAttr(name, value);
      c->result(0)->setType(v->type());
      return c->result(0);
    }
    if (parent->op() == Op::If) return primal(saved(*parent, owner == parent->block(0) ? 0 : 1, v), into);
    if (owner != parent->block(1))  // a loop condition's value: no adjoint path reads one
      throw NotDifferentiable("the gradient through a loop condition's value is not supported", parent->loc());
    // A loop body's value: this iteration's, from the list the forward
    // loop appended it to.
    Node* item = ir::build(&into, Op::SavedItem, def ? def->loc() : parent->loc(),
                           {primal(savedPerIteration(*parent, v), into), index->second}, 1);
    item->setBackward();
    item->setAttr("type", v->type().str());
    item->result(0)->setType(v->type());
    return item->result(0);
  }

  // A list, made before forward loop `cn`, to which its body appends `v`
  // every iteration.
  Value* savedPerIteration(const Node& cn, const Value* v) {
    auto key = std::make_pair(&cn, v);
    if (auto it = saved_.find(key); it != saved_.end()) return it->second;
    Node& n = const_cast<Node&>(cn);  // the documented exception: saving appends
    Node* list = insertBefore(*n.parent(), &n, std::make_unique<Node>(Op::MakeList, n.loc()));
    list->setBackward();
    Value* result = list->addResult(ir::Type(ir::TypeKind::List));
    Block& body = *n.block(1);
    Node* append = insertBefore(body, body.terminator(), std::make_unique<Node>(Op::ListAppend, n.loc()));
    append->setBackward();
    append->setAttr("saved", true);
    append->addOperand(result);
    append->addOperand(const_cast<Value*>(v));
    saved_.emplace(key, result);
    return result;
  }

  // The number of iterations forward loop `cn` ran: a carried count it gains.
  Value* iterationCount(const Node& cn) {
    if (auto it = counts_.find(&cn); it != counts_.end()) return it->second;
    Node& n = const_cast<Node&>(cn);
    auto intConst = [&](Block& b, const Node* anchor, int64_t value) {
      Node* c = insertBefore(b, anchor, std::make_unique<Node>(Op::Const, n.loc()));
      c->setBackward();
      c->setAttr("value", value);
      return c->addResult(ir::Type(ir::TypeKind::Int));
    };
    n.addOperand(intConst(*n.parent(), &n, 0));
    n.block(0)->addArg(ir::Type(ir::TypeKind::Int));
    Block& body = *n.block(1);
    Value* k = body.addArg(ir::Type(ir::TypeKind::Int));
    Node* next = insertBefore(body, body.terminator(), std::make_unique<Node>(Op::Add, n.loc()));
    next->setBackward();
    next->addOperand(k);
    next->addOperand(intConst(body, next, 1));
    body.terminator()->addOperand(next->addResult(ir::Type(ir::TypeKind::Int)));
    Value* count = n.addResult(ir::Type(ir::TypeKind::Int));
    counts_.emplace(&cn, count);
    return count;
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
      if (n.op() == Op::Loop) {
        reverseLoop(into, n, adj);
        continue;
      }
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

  void reverseLoop(Block& into, const Node& n, Adjoints& adj) {
    const Block& fbody = *n.block(1);
    const Node& fyield = *fbody.terminator();
    SourceLoc loc = n.loc();
    std::vector<size_t> slots;  // the active carried values
    for (size_t i = 0; i < n.numResults(); ++i) {
      // A value each iteration overwrites before reading (a for loop's
      // variable) carries no adjoint back unless the code after reads it.
      if (!active_.count(n.result(i)) || (!adj.of.count(n.result(i)) && !reads(fbody, fbody.arg(i)))) continue;
      const ir::Type& t = n.result(i)->type();
      if (!t.isTensor() && t.kind != ir::TypeKind::Float)
        throw NotDifferentiable("graph mode cannot differentiate through a loop carrying a value of type " + t.str(),
                                loc);
      slots.push_back(i);
    }
    std::vector<Value*> init;
    for (size_t i : slots) {
      auto g = adj.of.find(n.result(i));
      init.push_back(g != adj.of.end() ? g->second : zeroAdjoint(into, loc, primal(n.result(i), into)));
    }
    init.push_back(primal(iterationCount(n), into));
    Node* back = ir::build(&into, Op::Loop, loc, init, 0);
    back->setBackward();
    back->setInlinedAt(n.inlinedAt());
    Block& cond = *back->addBlock();
    Block& body = *back->addBlock();
    for (size_t k = 0; k < init.size(); ++k) {
      cond.addArg(init[k]->type());
      body.addArg(init[k]->type());
    }
    auto emit = [&](Block& b, Op op, std::vector<Value*> operands) {
      Node* x = ir::build(&b, op, loc, std::move(operands), op == Op::Condition || op == Op::Yield ? 0 : 1);
      x->setBackward();
      if (x->numResults()) x->result(0)->setType(ir::resultType(*x, 0));
      return x;
    };
    auto intConst = [&](Block& b, int64_t value) {
      Node* c = emit(b, Op::Const, {});
      c->setAttr("value", value);
      c->result(0)->setType(ir::Type(ir::TypeKind::Int));
      return c->result(0);
    };
    // Runs while iterations remain; the body replays iteration index - 1.
    Value* left = cond.arg(slots.size());
    emit(cond, Op::Condition, {emit(cond, Op::Gt, {left, intConst(cond, 0)})->result(0)});
    Value* index = emit(body, Op::Sub, {body.arg(slots.size()), intConst(body, 1)})->result(0);
    iterationIndex_[&n] = index;
    Adjoints badj;
    for (size_t k = 0; k < slots.size(); ++k)
      if (active_.count(fyield.operand(slots[k]))) add(badj, fyield.operand(slots[k]), body.arg(k), body, loc);
    reverse(body, nodesOf(fbody), badj);
    iterationIndex_.erase(&n);
    std::vector<Value*> yields;
    for (size_t k = 0; k < slots.size(); ++k) {
      auto g = badj.of.find(fbody.arg(slots[k]));
      yields.push_back(g != badj.of.end() ? g->second : zeroAdjoint(body, loc, body.arg(k)));
    }
    yields.push_back(index);
    // Adjoints of values from outside the loop, summed over the iterations.
    std::vector<const Value*> outer;
    std::vector<Value*> sums;  // their results
    for (const Value* v : badj.order)
      if (!within(v->owner(), &fbody)) outer.push_back(v);
    for (const Value* v : outer) {
      if (!v->type().isTensor() && v->type().kind != ir::TypeKind::Float)
        throw NotDifferentiable("graph mode cannot differentiate a loop's use of a value of type " +
                                    v->type().str(),
                                loc);
      size_t mark = into.nodes().size();
      Value* zero = zeroAdjoint(into, loc, primal(v, into));
      auto& nodes = into.mutableNodes();
      auto at = std::find_if(nodes.begin(), nodes.end(), [&](const auto& p) { return p.get() == back; });
      std::rotate(at, nodes.begin() + static_cast<std::ptrdiff_t>(mark), nodes.end());  // the zeros go first
      back->addOperand(zero);
      sums.push_back(zero);
      cond.addArg(zero->type());
      Value* sum = body.addArg(zero->type());
      yields.push_back(accumulate(body, sum, badj.of[v], loc));
    }
    emit(body, Op::Yield, yields);
    for (size_t k = 0; k < slots.size(); ++k) {
      Value* r = back->addResult(init[k]->type());
      if (active_.count(n.operand(slots[k]))) add(adj, n.operand(slots[k]), r, into, loc);
    }
    back->addResult(ir::Type(ir::TypeKind::Int));
    for (size_t j = 0; j < outer.size(); ++j) add(adj, outer[j], back->addResult(sums[j]->type()), into, loc);
  }

  static bool reads(const Block& b, const Value* v) {
    for (const auto& n : b.nodes()) {
      if (std::find(n->operands().begin(), n->operands().end(), v) != n->operands().end()) return true;
      for (size_t k = 0; k < n->numBlocks(); ++k)
        if (reads(*n->block(k), v)) return true;
    }
    return false;
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
  // Forward if or loop, value: the if's result or the loop's list holding it.
  std::map<std::pair<const Node*, const Value*>, Value*> saved_;
  std::unordered_map<const Node*, Value*> counts_;  // forward loop: its iteration count
  // Forward loop whose body is being reversed: the iteration its backward replays.
  std::unordered_map<const Node*, Value*> iterationIndex_;
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
