// order-effects: explicit order edges between the nodes whose relative
// order is observable, so an executor that runs independent nodes in
// parallel keeps program order where it matters (MindSpore's auto-monad
// and TensorFlow's automatic control dependencies solve the same problem).
//
// Two kinds of nodes are ordered (passes/effects.h):
//   effects — print, global reads and writes, RNG draws, I/O, assert,
//     raise, calls that may do any of these, and ifs/loops containing them;
//   nodes that may raise — an error must not overtake an earlier effect
//     (print("a") then x[10] shows "a" before the error), and a later
//     effect must not happen before it.
// Edges, within each block in program order:
//   an effect runs after the previous effect and after every node that may
//     raise since then;
//   a node that may raise runs after the previous effect.
// Nodes that may raise are not ordered among themselves (when several fail
// at once, the executor reports the first in program order).
//   A barrier (a clock read, effects.h) runs after every earlier node of
//     its block, and every later node runs after it: time() around work
//     measures that work even when the executor runs nodes in parallel.
// The chain of
// a nested block starts from the edges of the if/loop that contains it,
// which the executor runs as one unit.
//
// Invariants: runs last in the pipeline (tokens are not kept by copies or
// rewrites); rerunning it replaces all edges; no operand changes.
#include <algorithm>

#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

// Nodes that only name a value (constants, builtins) do no work a barrier
// must wait for.
bool doesWork(const ir::Node& n) { return !n.operands().empty() || n.numBlocks() > 0; }

void addEdge(std::vector<ir::Value*>& after, ir::Value* t) {
  if (std::find(after.begin(), after.end(), t) == after.end()) after.push_back(t);
}

void orderBlock(ir::Block& b, const std::vector<ir::Value*>& entry, EffectMemo& memo) {
  std::vector<ir::Value*> lastEffect = entry;  // what the next node follows
  std::vector<ir::Value*> raisers;             // may-raise nodes since then
  std::vector<ir::Value*> fence;               // the last barrier: every node follows it
  std::vector<ir::Node*> sinceFence;           // nodes a next barrier must follow
  for (const auto& owned : b.nodes()) {
    ir::Node& n = *owned;
    n.clearOrder();
    if (ir::hasTrait(n.op(), ir::TERM)) continue;
    bool effect = memo.hasEffect(n);
    bool raises = !effect && memo.mayRaise(n);
    if (memo.isBarrier(n)) {
      std::vector<ir::Value*> after = lastEffect;
      after.insert(after.end(), raisers.begin(), raisers.end());
      for (ir::Node* m : sinceFence) {
        if (!m->token()) m->setOrder(m->orderAfter());
        addEdge(after, m->token());
      }
      ir::Value* t = n.setOrder(after);
      for (size_t i = 0; i < n.numBlocks(); ++i) orderBlock(*n.block(i), after, memo);
      lastEffect = fence = {t};
      raisers.clear();
      sinceFence.clear();
      continue;
    }
    if (doesWork(n)) sinceFence.push_back(&n);
    if (effect) {
      std::vector<ir::Value*> after = lastEffect;
      after.insert(after.end(), raisers.begin(), raisers.end());
      ir::Value* t = n.setOrder(after);
      for (size_t i = 0; i < n.numBlocks(); ++i) orderBlock(*n.block(i), after, memo);
      lastEffect = {t};
      raisers.clear();
    } else if (raises) {
      raisers.push_back(n.setOrder(lastEffect));
      for (size_t i = 0; i < n.numBlocks(); ++i) orderBlock(*n.block(i), lastEffect, memo);
    } else {
      if (!fence.empty() && doesWork(n)) n.setOrder(fence);
      for (size_t i = 0; i < n.numBlocks(); ++i) orderBlock(*n.block(i), lastEffect, memo);
    }
  }
}

}  // namespace

bool orderEffects(ir::Graph& g, PassContext&) {
  EffectMemo memo;  // ordering changes no node's effects
  for (const auto& f : g.functions()) orderBlock(*f->body(), {}, memo);
  return true;
}

}  // namespace nn::passes
