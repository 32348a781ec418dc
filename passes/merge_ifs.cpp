// merge-ifs: an `if` on a flag the `if` just before it set, merged into it.
//
// Early returns (and breaks) are lowered to flags. `if c: return a`
// followed by more code becomes
//
//   %f, %v = if %c { yield true, %a } else { yield false, %none }
//   %r, %s = if %f { yield %f, %v } else { ...the rest...; yield true, %b }
//
// In each branch of the first `if` the flag is a constant, so which branch
// of the second runs is known there: its then-branch where the flag is
// true, its else-branch where it is false. The pass moves each branch of
// the second `if` to the end of the first's branch that selects it, so one
// `if` runs instead of two (a recursive function with an early return
// runs a node fewer per call, and a chain of them merges pairwise).
//
// Algorithm: each block, inner blocks first, in order. For a node X that
// is an `if` followed directly by an `if` Y whose condition is result j
// of X, where X's branches yield different constant bools as result j:
// in each of Y's branches X's results become the values yielded by the
// branch of X that selects it (then: the one yielding true), which makes
// the flags of Y's own early returns constants, so pairs inside merge
// next; then its nodes, but for the yield, move to the end of that
// branch of X; X gains Y's results and each branch's yield the moved
// yield's operands; uses of Y's results read X's; Y is erased, and X is
// tried again with the node now after it. Finally the results of ifs that
// nothing reads are dropped with their yields' operands, round after
// round until none is left (a dropped result frees what its yields read).
//
// Invariants: every path runs the same nodes in the same order (X's
// branch, then the branch of Y the flag selects); the moved nodes read
// only values defined before X (nothing stands between X and Y) or, in
// place of X's results, the branch's own values; types are kept.
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Op;

// The bool a const node defines, if `v` is one.
std::optional<bool> constBool(const ir::Value* v) {
  const ir::Node* d = v->def();
  if (!d || d->op() != Op::Const) return std::nullopt;
  const ir::Attr* a = d->attr("value");
  const bool* b = a ? std::get_if<bool>(a) : nullptr;
  return b ? std::optional<bool>(*b) : std::nullopt;
}

bool isTwoWayIf(const ir::Node& n) {
  return n.op() == Op::If && n.numBlocks() == 2 && n.block(0)->terminator() && n.block(1)->terminator();
}

class MergeIfs {
 public:
  explicit MergeIfs(ir::Function& f) : f_(f) {}

  bool run() {
    block(*f_.body());
    if (changed_) dropUnusedResults();
    return changed_;
  }

 private:
  void block(ir::Block& b) {
    auto& nodes = b.mutableNodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (size_t k = 0; k < nodes[i]->numBlocks(); ++k) block(*nodes[i]->block(k));
      while (i + 1 < nodes.size() && merge(*nodes[i], *nodes[i + 1])) {
        nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        changed_ = true;
      }
    }
  }

  // Moves y into x when y's condition is a flag x sets to a different
  // constant in each branch; false (changing nothing) otherwise.
  bool merge(ir::Node& x, ir::Node& y) {
    if (!isTwoWayIf(x) || !isTwoWayIf(y) || y.operand(0)->def() != &x) return false;
    size_t j = 0;
    while (x.result(j) != y.operand(0)) ++j;
    std::optional<bool> inThen = constBool(x.block(0)->terminator()->operand(j));
    std::optional<bool> inElse = constBool(x.block(1)->terminator()->operand(j));
    if (!inThen || !inElse || *inThen == *inElse) return false;
    for (size_t r = 0; r < y.numResults(); ++r) x.addResult(y.result(r)->type());
    for (size_t k = 0; k < 2; ++k) {
      ir::Block& into = *x.block(k);
      bool flag = k == 0 ? *inThen : *inElse;
      ir::Block& from = *y.block(flag ? 0 : 1);
      // X's results, as this branch yields them.
      ir::Node& yield = *into.terminator();
      std::unordered_map<const ir::Value*, ir::Value*> own;
      for (size_t r = 0; r < yield.operands().size(); ++r) own[x.result(r)] = yield.operand(r);
      ir::replaceUses(from, own);
      // Now that the flags X sets are constants there, Y's own pairs merge.
      block(from);
      // X's yield goes on with Y's values; Y's other nodes go before it.
      auto& moving = from.mutableNodes();
      auto& target = into.mutableNodes();
      for (ir::Value* v : moving.back()->operands()) yield.addOperand(v);
      moving.pop_back();
      for (auto& n : moving) {
        n->setParent(&into);
        for (size_t r = 0; r < n->numResults(); ++r) n->result(r)->setOwner(&into);
      }
      target.insert(target.end() - 1, std::make_move_iterator(moving.begin()), std::make_move_iterator(moving.end()));
      moving.clear();
    }
    std::unordered_map<const ir::Value*, ir::Value*> results;
    for (size_t r = 0; r < y.numResults(); ++r) results[y.result(r)] = x.result(x.numResults() - y.numResults() + r);
    ir::replaceUses(f_, results);
    return true;
  }

  static bool dropUnused(ir::Block& b, const std::unordered_set<const ir::Value*>& used) {
    bool dropped = false;
    for (const auto& n : b.nodes()) {
      for (size_t k = 0; k < n->numBlocks(); ++k) dropped |= dropUnused(*n->block(k), used);
      if (!isTwoWayIf(*n)) continue;
      for (size_t r = n->numResults(); r-- > 0;) {
        if (used.count(n->result(r))) continue;
        n->removeResult(r);
        for (size_t k = 0; k < 2; ++k) n->block(k)->terminator()->removeOperand(r);
        dropped = true;
      }
    }
    return dropped;
  }

  // Until none is left: dropping a result frees the values its yields read.
  void dropUnusedResults() {
    while (true) {
      std::unordered_set<const ir::Value*> used;
      ir::collectUsedValues(*f_.body(), used);
      if (!dropUnused(*f_.body(), used)) return;
    }
  }

  ir::Function& f_;
  bool changed_ = false;
};

}  // namespace

bool mergeIfs(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) { return MergeIfs(f).run(); });
}

}  // namespace nn::passes
