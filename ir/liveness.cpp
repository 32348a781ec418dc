// Last-use analysis: one walk per block, recording for each value owned by
// the block the last node that uses it (nested uses count as uses by the
// enclosing node of that block).
#include "ir/liveness.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/ir.h"

namespace nn::ir {

// Every value used by nodes of `b` and of the blocks nested in them.
static void collectUses(const Block& b, std::unordered_set<const Value*>& uses) {
  for (const auto& n : b.nodes()) {
    for (const Value* v : n->operands()) uses.insert(v);
    for (size_t i = 0; i < n->numBlocks(); ++i) collectUses(*n->block(i), uses);
  }
}

static void markBlock(Block& b) {
  std::unordered_map<const Value*, Node*> last;
  std::unordered_map<const Node*, std::unordered_set<const Value*>> nestedUses;
  for (const auto& owned : b.nodes()) {
    Node* n = owned.get();
    for (const Value* v : n->operands())
      if (v->owner() == &b) last[v] = n;
    if (n->numBlocks() > 0) {
      auto& nested = nestedUses[n];
      for (size_t i = 0; i < n->numBlocks(); ++i) collectUses(*n->block(i), nested);
      for (const Value* v : nested)
        if (v->owner() == &b) last[v] = n;
    }
  }
  std::unordered_map<const Node*, std::vector<uint32_t>> kills;
  for (const auto& [v, n] : last)
    if (!hasTrait(n->op(), TERM)) kills[n].push_back(v->id());
  for (const auto& owned : b.nodes()) {
    Node* n = owned.get();
    std::vector<uint32_t> k = std::move(kills[n]);
    // Block arguments nothing reads (a loop-carried value the body only
    // replaces) go with the first node.
    if (n == b.nodes().front().get() && !hasTrait(n->op(), TERM))
      for (const auto& a : b.args())
        if (!last.count(a.get())) k.push_back(a->id());
    // A result nothing reads is dropped as soon as it exists.
    for (size_t r = 0; r < n->numResults(); ++r)
      if (!last.count(n->result(r))) k.push_back(n->result(r)->id());
    uint64_t dying = 0;
    const auto& ops = n->operands();
    const auto& nested = nestedUses[n];
    for (size_t i = 0; i < ops.size() && i < Node::kMaxDyingOperands; ++i) {
      bool lastOccurrence = true;
      for (size_t j = i + 1; j < ops.size(); ++j) lastOccurrence &= ops[j] != ops[i];
      if (lastOccurrence && ops[i]->owner() == &b && last[ops[i]] == n && !nested.count(ops[i]))
        dying |= uint64_t(1) << i;
    }
    n->setLastUses(dying, std::move(k));
    for (size_t i = 0; i < n->numBlocks(); ++i) markBlock(*n->block(i));
  }
}

void markLastUses(Function& f) { markBlock(*f.body()); }

}  // namespace nn::ir
