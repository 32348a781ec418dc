// promote-globals: a loop's reads of module globals become SSA values.
//
// Module-level code keeps its variables in the module's globals
// (load_global / store_global, typed `any`), so a loop over them ran
// dynamically typed: `t += i * step` at the top level of a script was
// slower than the same loop in a function. This pass gives the loads in a
// loop the value they must read, so later passes see its type.
//
// Algorithm: one walk over each block in program order with a map from a
// global's name to the SSA value it holds at that point: the value of the
// last store_global, or the result of the last load_global, since nothing
// that could change the global ran in between. A node that may run user
// code that rebinds a global (a call of an unknown function or of a host
// function, of a module function whose body stores a global or makes such
// a call, an import, a builtin given a callable) empties the map there; a
// call of a module function that only reads globals does not, as the
// stores before it have happened.
// An `if` merges its branches' maps (a name both branches know, with
// different values, becomes a new result of the if); after a `try`, the
// names it stored are unknown. A loop with no node that may run user code
// carries the names it both stores and reads (and that are known on entry)
// as new carried values, the value at the end of its body yielded for the
// next iteration; the names it only reads keep their values from before it.
// Inside loops, each load_global whose name the map knows becomes that
// value and is removed (a called function's load_global becomes its
// make_closure, which the inliner, run again after this pass, inlines).
//
// Invariants: every store_global stays where it is (a raise in the loop, a
// handler or the host after an error sees each global as Python would).
// Loads outside loops stay (the module's straight-line code fails where it
// failed before, at run time, not when the module is compiled). A value
// stored that may be unbound (a `del`, or a variable not assigned on every
// path) is never forwarded, as reading the global then raises NameError.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/builtins.h"
#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Op;
using Names = std::unordered_map<std::string, ir::Value*>;  // a global's value here
using Stored = std::unordered_set<std::string>;

// Whether v may hold no value when it is read: an `undef`, or a merge of
// one (a block argument of a loop, the result of an if or loop or try).
// Answers are kept: a pass asks at every store.
class Unbound {
 public:
  bool may(const ir::Value* v) {
    if (auto it = known_.find(v); it != known_.end()) return it->second;
    bool r = reach(v);
    // With no undef reached, every value the search met is bound.
    if (r) known_[v] = true;
    else
      for (const ir::Value* m : met_) known_.emplace(m, false);
    met_.clear();
    return r;
  }

 private:
  // One search: a value met before (on a cycle, or already found to reach
  // no undef, else the search would have ended) adds nothing.
  bool reach(const ir::Value* v) {
    if (auto it = known_.find(v); it != known_.end()) return it->second;
    if (!met_.insert(v).second) return false;
    return compute(v);
  }

  bool compute(const ir::Value* v) {
    const ir::Node* d = v->def();
    if (!d) {
      const ir::Block* b = v->owner();
      if (!b) return true;
      const ir::Node* p = b->parentNode();
      size_t i = argIndex(*b, v);
      // A function's parameters are bound; its captures may not be.
      if (!p) return i >= b->function()->numParams();
      if (p->op() != Op::Loop) return true;
      return reach(p->operand(i)) || reach(p->block(1)->terminator()->operand(i));
    }
    switch (d->op()) {
      case Op::Undef: return true;
      case Op::If:
      case Op::Try:
      case Op::Loop: {
        size_t i = resultIndex(*d, v);
        if (d->op() == Op::Loop && reach(d->operand(i))) return true;
        for (size_t k = d->op() == Op::Loop ? 1 : 0; k < d->numBlocks(); ++k)
          if (reach(d->block(k)->terminator()->operand(i))) return true;
        return false;
      }
      default: return false;
    }
  }

  static size_t argIndex(const ir::Block& b, const ir::Value* v) {
    for (size_t i = 0; i < b.numArgs(); ++i)
      if (b.arg(i) == v) return i;
    return b.numArgs();
  }
  static size_t resultIndex(const ir::Node& n, const ir::Value* v) {
    for (size_t i = 0; i < n.numResults(); ++i)
      if (n.result(i) == v) return i;
    return 0;
  }

  std::unordered_map<const ir::Value*, bool> known_;
  std::unordered_set<const ir::Value*> met_;
};

class Promotion {
 public:
  explicit Promotion(const ir::Graph& g) : graph_(g) {}
  bool changed = false;

  void function(ir::Function& f) {
    Names names;
    Stored stored;
    walk(*f.body(), names, false, stored);
    if (replaced_.empty()) return;
    ir::replaceUses(f, replaced_);
    erase(*f.body());
    changed = true;
  }

 private:
  // The value an operand stands for once the loads already forwarded are.
  ir::Value* resolve(ir::Value* v) const {
    auto it = replaced_.find(v);
    return it == replaced_.end() ? v : it->second;
  }

  // Whether n may run code of the program (or the host's) that rebinds a
  // global. `operand` gives the value an operand will hold.
  template <class Operand>
  bool runsUserCode(const ir::Node& n, Operand operand) {
    if (n.op() == Op::Import) return true;
    if (n.op() != Op::Call && n.op() != Op::CallMethod && n.op() != Op::CallUnpacked) return false;
    // A method: a module's function, or a method given a function (sort's
    // key). `x.name(...)` is a call of a getattr before bind-methods.
    const ir::Node* callee = n.operand(0)->def();
    ir::Value* receiver = n.op() == Op::CallMethod ? n.operand(0)
                                : n.op() == Op::Call && callee && callee->op() == Op::GetAttr ? callee->operand(0)
                                                                                              : nullptr;
    if (receiver) {
      ir::TypeKind k = operand(receiver)->type().kind;
      if (k == ir::TypeKind::Module || k == ir::TypeKind::Any) return true;
      for (size_t i = 1; i < n.operands().size(); ++i)
        if (mayBeCallable(operand(n.operand(i))->type())) return true;
      return false;
    }
    if (ir::calledOp(n)) return false;  // a tensor op
    if (std::optional<ir::Builtin> b = ir::calledFunction(n))
      return callsAnArgument(n, ir::builtinInfo(*b).effect,
                             [&](ir::Value* v) { return mayBeCallable(operand(v)->type()); });
    // A function of this module's graph (`def f` stored before the loop):
    // what its body does. It may call a function it is given only through
    // a call the body makes, which that check sees.
    const ir::Node* closure = operand(n.operand(0))->def();
    if (n.op() == Op::Call && closure && closure->op() == Op::MakeClosure)
      if (const ir::Function* fn = graph_.function(closure->strAttr("func"))) return rebindsGlobals(*fn);
    return true;
  }

  // Whether running fn may rebind a global: a store, an import, or a call
  // that may (a recursive call adds nothing to what its function does).
  bool rebindsGlobals(const ir::Function& fn) {
    auto [it, fresh] = functions_.try_emplace(&fn, false);
    if (!fresh) return it->second;
    bool r = rebindsIn(*fn.body());
    functions_[&fn] = r;
    return r;
  }
  bool rebindsIn(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      if (n->op() == Op::StoreGlobal) return true;
      bool selfCall = n->op() == Op::Call && n->operand(0)->def() && n->operand(0)->def()->op() == Op::SelfClosure;
      if (!selfCall && runsUserCode(*n, [](ir::Value* v) { return v; })) return true;
      for (size_t k = 0; k < n->numBlocks(); ++k)
        if (rebindsIn(*n->block(k))) return true;
    }
    return false;
  }

  // What a loop does to the globals, found before it is rewritten.
  struct LoopFacts {
    Stored stored;  // anywhere in the loop
    Stored condStored;  // in its cond
    Stored unsettled;  // stored where the body's end may not know the value
    Stored loaded;
  };

  // `top`: b is the loop's body or an if nested in it, whose stores the
  // walk follows to the body's end.
  // `top`: b is the loop's body or an if nested in it, whose stores the
  // walk follows to the body's end; `cond`: b is in the loop's cond.
  void survey(const ir::Block& b, LoopFacts& facts, bool top, bool cond) {
    for (const auto& n : b.nodes()) {
      if (n->op() == Op::LoadGlobal) facts.loaded.insert(n->strAttr("name"));
      if (n->op() == Op::StoreGlobal) {
        const std::string& name = n->strAttr("name");
        facts.stored.insert(name);
        if (cond) facts.condStored.insert(name);
        if (!top || unbound_.may(resolve(n->operand(0)))) facts.unsettled.insert(name);
      }
      for (size_t k = 0; k < n->numBlocks(); ++k) survey(*n->block(k), facts, top && n->op() == Op::If, cond);
    }
  }

  // Whether a node of b may run user code, a load of a global the loop
  // does not store standing for its value on entry.
  bool userCodeIn(const ir::Block& b, const Names& entry, const LoopFacts& facts) {
    auto operand = [&](ir::Value* v) -> ir::Value* {
      v = resolve(v);
      const ir::Node* d = v->def();
      if (d && d->op() == Op::LoadGlobal && !facts.stored.count(d->strAttr("name"))) {
        auto it = entry.find(d->strAttr("name"));
        if (it != entry.end()) return it->second;
      }
      return v;
    };
    for (const auto& n : b.nodes()) {
      if (runsUserCode(*n, operand)) return true;
      for (size_t k = 0; k < n->numBlocks(); ++k)
        if (userCodeIn(*n->block(k), entry, facts)) return true;
    }
    return false;
  }

  // Rewrites b's loads (inside a loop) and brings `names` to b's end;
  // adds the names b stores to `stored`. Returns whether a node that may
  // run user code was met.
  bool walk(ir::Block& b, Names& names, bool inLoop, Stored& stored) {
    bool ranUserCode = false;
    // Nodes are appended to b only at its end (a loop body's yield), after
    // the walk, so the indices stay valid.
    for (size_t i = 0; i < b.nodes().size(); ++i) {
      ir::Node& n = *b.nodes()[i];
      if (n.op() == Op::LoadGlobal) {
        const std::string& name = n.strAttr("name");
        auto it = names.find(name);
        if (inLoop && it != names.end()) {
          replaced_[n.result(0)] = it->second;
          dead_.insert(&n);
        } else {
          names[name] = n.result(0);
        }
        continue;
      }
      if (n.op() == Op::StoreGlobal) {
        stored.insert(n.strAttr("name"));
        ir::Value* v = resolve(n.operand(0));
        if (unbound_.may(v)) names.erase(n.strAttr("name"));
        else names[n.strAttr("name")] = v;
        continue;
      }
      if (runsUserCode(n, [&](ir::Value* v) { return resolve(v); })) {
        names.clear();
        ranUserCode = true;
      }
      switch (n.op()) {
        case Op::If: ranUserCode |= branches(n, names, inLoop, stored); break;
        case Op::Loop: ranUserCode |= loop(n, names, stored); break;
        case Op::Try: {
          // The handler starts wherever the body failed.
          Names body = names;
          Stored inTry;
          bool user = walk(*n.block(0), body, inLoop, inTry);
          Names handler = names;
          if (user) handler.clear();
          for (const std::string& s : inTry) handler.erase(s);
          user |= walk(*n.block(1), handler, inLoop, inTry);
          if (user) names.clear();
          for (const std::string& s : inTry) names.erase(s);
          stored.insert(inTry.begin(), inTry.end());
          ranUserCode |= user;
          break;
        }
        default:
          // A fused group (none exists this early) reads no global.
          break;
      }
    }
    return ranUserCode;
  }

  // An if: each branch from the map before it; afterwards a name both
  // branches know, as a new result of the if where their values differ.
  bool branches(ir::Node& n, Names& names, bool inLoop, Stored& stored) {
    Names then = names, otherwise = names;
    Stored inIf;
    bool user = walk(*n.block(0), then, inLoop, inIf);
    user |= walk(*n.block(1), otherwise, inLoop, inIf);
    stored.insert(inIf.begin(), inIf.end());
    if (user) {
      names.clear();
      return true;
    }
    for (const std::string& s : inIf) {
      auto a = then.find(s), b = otherwise.find(s);
      if (a == then.end() || b == otherwise.end()) {
        names.erase(s);
      } else if (a->second == b->second) {
        names[s] = a->second;
      } else {
        n.block(0)->terminator()->addOperand(a->second);
        n.block(1)->terminator()->addOperand(b->second);
        names[s] = n.addResult(ir::Type::any());
        changed = true;
      }
    }
    return false;
  }

  // A loop: promoted when nothing in it may run user code, else walked
  // with nothing known (forwarding only within what runs between calls).
  bool loop(ir::Node& n, Names& names, Stored& stored) {
    LoopFacts facts;
    for (size_t k = 0; k < 2; ++k) survey(*n.block(k), facts, k == 1, k == 0);
    stored.insert(facts.stored.begin(), facts.stored.end());
    if (userCodeIn(*n.block(0), names, facts) || userCodeIn(*n.block(1), names, facts)) {
      for (size_t k = 0; k < 2; ++k) {
        Names none;
        Stored ignored;
        walk(*n.block(k), none, true, ignored);
      }
      names.clear();
      return true;
    }
    // A name the cond stores is not carried: the body sees the cond's value.
    const Stored& condStored = facts.condStored;
    std::vector<std::string> carried;
    Names inside = names;
    for (const std::string& s : facts.stored) {
      inside.erase(s);
      if (facts.loaded.count(s) && names.count(s) && !facts.unsettled.count(s) && !condStored.count(s))
        carried.push_back(s);
    }
    std::sort(carried.begin(), carried.end());  // a stable order of the new values
    ir::Block& cond = *n.block(0);
    ir::Block& body = *n.block(1);
    size_t first = n.operands().size();
    for (const std::string& s : carried) {
      n.addOperand(names[s]);
      cond.addArg(ir::Type::any());
      body.addArg(ir::Type::any());
      n.addResult(ir::Type::any());
    }
    // The body passes each new value on until the walk knows its value at
    // the body's end: the loop is well formed while the walk reads it.
    ir::Node* yield = body.terminator();
    Names atCond = inside, atBody = inside;
    for (size_t i = 0; i < carried.size(); ++i) {
      atCond[carried[i]] = cond.arg(first + i);
      atBody[carried[i]] = body.arg(first + i);
      yield->addOperand(body.arg(first + i));
    }
    for (const std::string& s : condStored) atBody.erase(s);
    Stored ignored;  // facts.stored has them
    walk(cond, atCond, true, ignored);
    walk(body, atBody, true, ignored);
    for (size_t i = 0; i < carried.size(); ++i) yield->setOperand(first + i, atBody.at(carried[i]));
    for (const std::string& s : facts.stored) names.erase(s);
    for (size_t i = 0; i < carried.size(); ++i) names[carried[i]] = n.result(first + i);
    changed |= !carried.empty();
    return false;
  }

  void erase(ir::Block& b) {
    std::erase_if(b.mutableNodes(), [&](const std::unique_ptr<ir::Node>& n) { return dead_.count(n.get()) > 0; });
    for (const auto& n : b.nodes())
      for (size_t k = 0; k < n->numBlocks(); ++k) erase(*n->block(k));
  }

  const ir::Graph& graph_;
  std::unordered_map<const ir::Function*, bool> functions_;  // rebindsGlobals, by function
  std::unordered_map<const ir::Value*, ir::Value*> replaced_;
  std::unordered_set<const ir::Node*> dead_;
  Unbound unbound_;
};

}  // namespace

bool promoteGlobals(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [&](ir::Function& f) {
    Promotion p(g);
    p.function(f);
    return p.changed;
  });
}

}  // namespace nn::passes
