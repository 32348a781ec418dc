// licm: loop-invariant code motion.
//
// Algorithm: post-order over loops (inner loops first, so an expression
// invariant in two nested loops climbs out of both). For a loop node, each
// node of its cond and body blocks, in order, is invariant when it has no
// blocks, is removable (no effect and cannot raise: passes/effects.h),
// does not make a fresh mutable object (each iteration's `[]` is a new
// list), and all its operands are defined outside the loop or by nodes already
// hoisted. Invariant nodes move, in their original order, to just before
// the loop node.
//
// An `iter_len` is removable but reads its iterable's length now: it is
// invariant only where that length cannot change (a range, tuple, tensor,
// str or dict: iterating the last two takes a tuple of their items), not for
// a list, which the loop may append to, or an iterable of unknown type.
//
// Why only removable nodes: a hoisted node runs even when the loop runs
// zero times; with no effect and no way to fail, that is unobservable (it
// costs one evaluation).
//
// Invariants: definitions still precede uses (operands of a hoisted node
// are outside the loop or hoisted earlier); effects never move.
#include <memory>
#include <unordered_set>

#include "ir/builtins.h"
#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

// Whether iter_len node n reads a length fixed when its `iter` ran.
bool fixedLength(const ir::Node& n) {
  const ir::Node* it = n.operand(0)->def();
  if (!it || it->op() != ir::Op::Iter) return false;
  const ir::Value* iterable = it->operand(0);
  switch (iterable->type().kind) {
    // A loop over a dict reads one more item once the dict's keys change,
    // and fails there (runtime/dict_views.h).
    case ir::TypeKind::Tuple: case ir::TypeKind::Tensor: case ir::TypeKind::Str: return true;
    default: break;
  }
  const ir::Node* call = iterable->def();
  return call && call->op() == ir::Op::Call && ir::calledFunction(*call) == ir::Builtin::Range;
}

void collectBlocks(const ir::Block& b, std::unordered_set<const ir::Block*>& out) {
  out.insert(&b);
  for (const auto& n : b.nodes())
    for (size_t i = 0; i < n->numBlocks(); ++i) collectBlocks(*n->block(i), out);
}

class Licm {
 public:
  bool changed = false;

  void block(ir::Block& b) {
    auto& nodes = b.mutableNodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      ir::Node& n = *nodes[i];
      for (size_t k = 0; k < n.numBlocks(); ++k) block(*n.block(k));
      if (n.op() != ir::Op::Loop) continue;
      std::vector<std::unique_ptr<ir::Node>> hoisted = hoist(n);
      for (auto& h : hoisted) {
        h->setParent(&b);
        for (size_t r = 0; r < h->numResults(); ++r) h->result(r)->setOwner(&b);
      }
      size_t count = hoisted.size();
      nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(hoisted.begin()),
                   std::make_move_iterator(hoisted.end()));
      i += count;
      changed |= count > 0;
    }
  }

 private:
  static std::vector<std::unique_ptr<ir::Node>> hoist(ir::Node& loop) {
    std::unordered_set<const ir::Block*> inside;
    for (size_t k = 0; k < loop.numBlocks(); ++k) collectBlocks(*loop.block(k), inside);
    std::vector<std::unique_ptr<ir::Node>> out;
    for (size_t k = 0; k < loop.numBlocks(); ++k) {
      // The nodes that stay close up in one pass (linear in the block).
      auto& nodes = loop.block(k)->mutableNodes();
      size_t kept = 0;
      for (size_t i = 0; i < nodes.size(); ++i) {
        ir::Node& n = *nodes[i];
        bool invariant = n.numBlocks() == 0 && !ir::hasTrait(n.op(), ir::TERM) && removable(n) &&
                         !makesFreshObject(n) && (n.op() != ir::Op::IterLen || fixedLength(n));
        for (const ir::Value* v : n.operands()) invariant &= !inside.count(v->owner());
        if (!invariant) {
          if (kept != i) nodes[kept] = std::move(nodes[i]);
          ++kept;
          continue;
        }
        out.push_back(std::move(nodes[i]));
        // Its results now live outside: later nodes using them may follow.
        for (size_t r = 0; r < out.back()->numResults(); ++r) out.back()->result(r)->setOwner(nullptr);
      }
      nodes.resize(kept);
    }
    return out;
  }
};

}  // namespace

bool hoistLoopInvariants(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) {
    Licm l;
    l.block(*f.body());
    return l.changed;
  });
}

}  // namespace nn::passes
