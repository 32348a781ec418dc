// take-items: reads that move the items out of a container nothing else
// reads.
//
// Why: `loss, g = grad_f(p, x)` followed by `p[i] - lr * g[i]` for each i.
// Each `g[i]` copies a reference, so every gradient stays alive in the list
// until the list dies with its last read, and no op can reuse a gradient's
// buffer for its result (in-place reuse needs a uniquely held tensor): the
// update allocates a new parameter set while the old one and the gradients
// are alive. A read marked `take` moves the item out instead, when at run
// time the frame holds the only reference to the container (use count 1,
// checked by the interpreter on every execution): then nobody can observe
// the item's absence, and the item is as uniquely held as a temporary.
//
// Algorithm (linear): count the uses of every value. A value V qualifies
// when it is not a tensor and every one of its uses is `getitem V, c` in
// the block that defines V (never in a nested block: an if would be fine,
// a loop would read twice), with `c` a non-negative int constant and no
// index read twice. Each of those reads gets `take = true`.
//
// A read marked by an earlier run (a template's, which a specialised copy
// inherits before its own CSE merges reads) whose container no longer
// qualifies loses its mark.
//
// Invariants: only attributes change; an item is moved out at most once,
// by the only read of its index, so no later read can see what it left.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/passes.h"

namespace nn::passes {
namespace {

class TakeItems {
 public:
  bool run(ir::Function& f) {
    count(*f.body());
    // Marks from an earlier run go first: passes since (a specialised
    // copy's CSE) may have given a container another reader.
    bool changed = false;
    for (ir::Node* n : marked_)
      if (!qualifies(n->operand(0), reads_[n->operand(0)])) {
        n->removeAttr("take");
        changed = true;
      }
    for (auto& [v, reads] : reads_) {
      if (!qualifies(v, reads)) continue;
      for (ir::Node* n : reads) {
        if (n->attr("take")) continue;
        n->setAttr("take", true);
        changed = true;
      }
    }
    return changed;
  }

 private:
  void count(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      for (size_t i = 0; i < n->operands().size(); ++i) {
        const ir::Value* v = n->operand(i);
        ++uses_[v];
        if (i == 0 && n->op() == ir::Op::GetItem && n->parent() == v->owner()) reads_[v].push_back(n.get());
      }
      if (n->op() == ir::Op::GetItem && n->attr("take")) marked_.push_back(n.get());
      for (size_t k = 0; k < n->numBlocks(); ++k) count(*n->block(k));
    }
  }

  // The constant non-negative index of a read (-1 when not one).
  static int64_t constantIndex(const ir::Node& read) {
    const ir::Node* d = read.operand(1)->def();
    if (!d || d->op() != ir::Op::Const) return -1;
    const ir::Attr* a = d->attr("value");
    if (!a || !std::holds_alternative<int64_t>(*a)) return -1;
    return std::get<int64_t>(*a);
  }

  bool qualifies(const ir::Value* v, const std::vector<ir::Node*>& reads) {
    if (v->type().isTensor() || reads.size() != uses_[v]) return false;
    std::unordered_set<int64_t> seen;
    for (const ir::Node* n : reads) {
      // `g[i][j]`-style reads use V as the container only (operand 0).
      if (n->operand(1) == v) return false;
      int64_t c = constantIndex(*n);
      if (c < 0 || !seen.insert(c).second) return false;
    }
    return true;
  }

  std::unordered_map<const ir::Value*, size_t> uses_;
  std::unordered_map<const ir::Value*, std::vector<ir::Node*>> reads_;
  std::vector<ir::Node*> marked_;  // reads marked `take` before this run
};

}  // namespace

bool takeItems(ir::Graph& g, PassContext&) {
  bool changed = false;
  // Attributes only: value ids and last-use facts stay as they are.
  for (const auto& f : g.functions()) changed |= TakeItems().run(*f);
  return changed;
}

}  // namespace nn::passes
