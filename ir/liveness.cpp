// Last-use analysis: one walk per block, recording for each value owned by
// the block the last node that uses it (nested uses count as uses by the
// enclosing node of that block, found from the nested blocks' free values).
#include "ir/liveness.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/ir.h"

namespace nn::ir {

using ValueSet = std::unordered_set<const Value*>;

// Marks the last uses in `b` and, first, in the blocks nested in it;
// returns the values b's nodes and nested blocks use that b does not
// define (its free values). A node's nested uses are its blocks' free
// values, so each block is walked once however deep the nesting (an `elif`
// chain of thousands of levels stays linear).
static ValueSet markBlock(Block& b) {
  std::unordered_map<const Node*, ValueSet> nestedUses;
  for (const auto& owned : b.nodes()) {
    Node* n = owned.get();
    if (n->numBlocks() == 0) continue;
    ValueSet& nested = nestedUses[n];
    for (size_t i = 0; i < n->numBlocks(); ++i) {
      ValueSet free = markBlock(*n->block(i));
      nested.insert(free.begin(), free.end());
    }
  }
  std::unordered_map<const Value*, Node*> last;
  for (const auto& owned : b.nodes()) {
    Node* n = owned.get();
    for (const Value* v : n->operands())
      if (v->owner() == &b) last[v] = n;
    auto it = nestedUses.find(n);
    if (it != nestedUses.end())
      for (const Value* v : it->second)
        if (v->owner() == &b) last[v] = n;
  }
  std::unordered_map<const Node*, std::vector<uint32_t>> kills;
  for (const auto& [v, n] : last)
    if (!hasTrait(n->op(), TERM)) kills[n].push_back(v->id());
  static const ValueSet none;
  ValueSet free;
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
    auto it = nestedUses.find(n);
    const ValueSet& nested = it == nestedUses.end() ? none : it->second;
    for (size_t i = 0; i < ops.size() && i < Node::kMaxDyingOperands; ++i) {
      bool lastOccurrence = true;
      for (size_t j = i + 1; j < ops.size(); ++j) lastOccurrence &= ops[j] != ops[i];
      if (lastOccurrence && ops[i]->owner() == &b && last[ops[i]] == n && !nested.count(ops[i]))
        dying |= uint64_t(1) << i;
    }
    n->setLastUses(dying, std::move(k));
    for (const Value* v : ops)
      if (v->owner() != &b) free.insert(v);
    for (const Value* v : nested)
      if (v->owner() != &b) free.insert(v);
  }
  return free;
}

void markLastUses(Function& f) { markBlock(*f.body()); }

}  // namespace nn::ir
