// Dead-code elimination.
//
// Algorithm: count the uses of every value in a function (operands of all
// nodes, in all nested blocks), then walk each block from the end to the
// start and delete nodes whose results all have zero uses and that are
// removable (passes/effects.h: no effect, and types prove they cannot
// raise, so `1 / x` with an unknown x stays, as Python would raise there);
// deleting a node decrements the use counts of its operands, so chains die
// in the same backward sweep. Repeats until nothing changes (a dead value
// can be used only by earlier-visited nested blocks).
//
// Invariants: effects (print, global writes, RNG, I/O, calls that may do
// any of these, ifs containing them), terminators and loops are never
// removed; SSA dominance is preserved because only unused definitions are
// dropped.
#include <unordered_map>

#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using UseCounts = std::unordered_map<const ir::Value*, int>;

void countUses(const ir::Block& b, UseCounts& uses) {
  for (const auto& n : b.nodes()) {
    for (const ir::Value* v : n->operands()) ++uses[v];
    for (size_t i = 0; i < n->numBlocks(); ++i) countUses(*n->block(i), uses);
  }
}

bool sweep(ir::Block& b, UseCounts& uses) {
  bool changed = false;
  auto& nodes = b.mutableNodes();
  for (size_t i = nodes.size(); i-- > 0;) {
    ir::Node& n = *nodes[i];
    for (size_t k = 0; k < n.numBlocks(); ++k) changed |= sweep(*n.block(k), uses);
    if (ir::hasTrait(n.op(), ir::TERM) || !removable(n)) continue;
    bool dead = true;
    for (size_t r = 0; r < n.numResults(); ++r)
      if (uses[n.result(r)] > 0) dead = false;
    if (!dead) continue;
    for (const ir::Value* v : n.operands()) --uses[v];
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
    changed = true;
  }
  return changed;
}

}  // namespace

bool deadCodeElimination(ir::Graph& g) {
  return rewriteFunctions(g, [](ir::Function& f) {
    bool changed = false, again = true;
    while (again) {
      UseCounts uses;
      countUses(*f.body(), uses);
      again = sweep(*f.body(), uses);
      changed |= again;
    }
    return changed;
  });
}

}  // namespace nn::passes
