// Dead-code elimination.
//
// Algorithm (linear in the function's size): count the uses of every value
// (operands of all nodes, in all nested blocks); put every removable node
// whose results have no uses on a worklist (removable: passes/effects.h,
// no effect and types prove it cannot raise, so `1 / x` with an unknown x
// stays, as Python would raise there). Removing a node decrements the use
// counts of its operands and of everything its nested blocks read; a
// definition whose results reach zero uses joins the worklist, so whole
// chains die without another sweep. Finally each block drops its removed
// nodes in one pass. A list that reverse mode fills with a loop's values for
// the backward (`list_append {saved}`) counts those appends as no uses:
// when nothing reads it, it dies with its appends.
//
// Loops are kept, but a value a loop carries that nothing needs is dropped
// from it: its result is unread after the loop, its cond argument unread,
// and its body argument read by nothing but the body's yield passing it on
// (the variable of `for i in ...` when i is not read after the loop, which
// the loop would otherwise box into a slot on every iteration). So is a
// result of an if that nothing reads, from both branches' yields. Dropping
// one gives up the yield's use of its value, so the node worklist runs
// again, round after round until neither drops anything.
//
// Invariants: effects (print, global writes, RNG, I/O, calls that may do
// any of these, ifs containing them), terminators and loops are never
// removed; SSA dominance is preserved because only unused definitions are
// dropped; a loop keeps every carried value its cond, its body or its
// users read.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

class DeadCode {
 public:
  bool run(ir::Function& f) {
    bool changed = false;
    while (true) {
      count(*f.body());
      collect(*f.body());
      while (!work_.empty()) {
        ir::Node* n = work_.back();
        work_.pop_back();
        release(*n);
      }
      if (!removed_.empty()) {
        drop(*f.body());
        changed = true;
      }
      // The counts still hold: release() gave up the removed nodes' uses.
      bool dropped = dropCarried(*f.body());
      forget();
      if (!dropped) return changed;
      changed = true;
    }
  }

 private:
  static bool savedAppend(const ir::Node& n) { return n.op() == ir::Op::ListAppend && n.attr("saved"); }

  void count(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      if (savedAppend(*n)) appends_[n->operand(0)].push_back(n.get());
      for (size_t i = savedAppend(*n) ? 1 : 0; i < n->operands().size(); ++i) ++uses_[n->operand(i)];
      for (size_t i = 0; i < n->numBlocks(); ++i) count(*n->block(i));
    }
  }

  bool dead(const ir::Node& n) {
    if (ir::hasTrait(n.op(), ir::TERM) || removed_.count(&n) || !removable(n)) return false;
    for (size_t r = 0; r < n.numResults(); ++r)
      if (uses_[n.result(r)] > 0) return false;
    return true;
  }

  void collect(ir::Block& b) {
    for (const auto& n : b.nodes()) {
      for (size_t i = 0; i < n->numBlocks(); ++i) collect(*n->block(i));
      consider(*n);
    }
  }

  void consider(ir::Node& n) {
    if (!dead(n)) return;
    removed_.insert(&n);
    work_.push_back(&n);
  }

  // Gives up the uses of a removed node and of its nested blocks' nodes.
  void release(ir::Node& n) {
    for (size_t i = savedAppend(n) ? 1 : 0; i < n.operands().size(); ++i) {
      ir::Value* v = n.operand(i);
      if (--uses_[v] == 0 && v->def()) consider(*v->def());
    }
    if (n.numResults() == 1)
      if (auto it = appends_.find(n.result(0)); it != appends_.end())
        for (ir::Node* append : it->second)
          if (removed_.insert(append).second) release(*append);
    for (size_t i = 0; i < n.numBlocks(); ++i)
      for (const auto& inner : n.block(i)->nodes())
        if (removed_.insert(inner.get()).second) release(*inner);
  }

  void forget() {
    uses_.clear();
    removed_.clear();
    appends_.clear();
  }

  // Drops the carried values of b's loops and the results of its ifs (and
  // of those nested in b) that nothing needs; uses_ must be counted.
  bool dropCarried(ir::Block& b) {
    bool dropped = false;
    for (const auto& n : b.nodes()) {
      for (size_t k = 0; k < n->numBlocks(); ++k) dropped |= dropCarried(*n->block(k));
      if (n->op() == ir::Op::If) {
        for (size_t i = n->numResults(); i-- > 0;) {
          if (uses_[n->result(i)]) continue;
          for (size_t k = 0; k < 2; ++k) n->block(k)->terminator()->removeOperand(i);
          n->removeResult(i);
          dropped = true;
        }
        continue;
      }
      if (n->op() != ir::Op::Loop) continue;
      ir::Block& cond = *n->block(0);
      ir::Block& body = *n->block(1);
      ir::Node& yield = *body.terminator();
      for (size_t i = n->numResults(); i-- > 0;) {
        int passedOn = yield.operand(i) == body.arg(i) ? 1 : 0;
        if (uses_[n->result(i)] || uses_[cond.arg(i)] || uses_[body.arg(i)] != passedOn) continue;
        yield.removeOperand(i);
        body.removeArg(i);
        cond.removeArg(i);
        n->removeResult(i);
        n->removeOperand(i);
        dropped = true;
      }
    }
    return dropped;
  }

  void drop(ir::Block& b) {
    auto& nodes = b.mutableNodes();
    std::erase_if(nodes, [&](const std::unique_ptr<ir::Node>& n) { return removed_.count(n.get()) > 0; });
    for (const auto& n : nodes)
      for (size_t i = 0; i < n->numBlocks(); ++i) drop(*n->block(i));
  }

  std::unordered_map<const ir::Value*, int> uses_;
  std::unordered_set<const ir::Node*> removed_;
  std::vector<ir::Node*> work_;
  std::unordered_map<const ir::Value*, std::vector<ir::Node*>> appends_;  // saved appends, by list
};

}  // namespace

bool deadCodeElimination(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) { return DeadCode().run(f); });
}

}  // namespace nn::passes
