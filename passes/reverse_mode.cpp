// Reverse mode over straight-line code (see reverse_mode.h).
//
// Algorithm: a forward sweep marks the values that depend on a `wrt` value
// (active); a backward sweep from `output` marks the active nodes whose
// result reaches it. Then, in reverse program order, each such node whose
// result has an adjoint gets its rule applied with the adjoint and its
// operands' primal values; an operand's adjoint is wanted when the operand
// is active. Adjoints reaching one value from several uses are added.
//
// Invariants: the forward nodes are only read; every node appended to
// `into` is typed by its rule and located at the forward node it
// differentiates (or the first use, for the additions of adjoints).
#include "passes/reverse_mode.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/gradient.h"
#include "support/diagnostics.h"

namespace nn::passes {

std::vector<ir::Value*> reverseStraightLine(ir::Block& into, const ReverseRequest& r) {
  std::unordered_set<const ir::Value*> active(r.wrt.begin(), r.wrt.end());
  std::vector<const ir::Node*> relevant;
  for (const ir::Node* n : r.nodes) {
    bool depends = false;
    for (const ir::Value* v : n->operands()) depends |= active.count(v) > 0;
    if (!depends) continue;
    for (size_t i = 0; i < n->numResults(); ++i) active.insert(n->result(i));
    relevant.push_back(n);
  }
  std::unordered_map<const ir::Value*, ir::Value*> adjoint;
  if (active.count(r.output)) adjoint[r.output] = r.seed;
  for (auto it = relevant.rbegin(); it != relevant.rend(); ++it) {
    const ir::Node& n = **it;
    if (n.numResults() != 1) continue;
    auto adj = adjoint.find(n.result(0));
    if (adj == adjoint.end()) continue;  // does not reach the output
    std::vector<ir::Value*> operands;
    std::vector<bool> wanted;
    for (const ir::Value* v : n.operands()) {
      operands.push_back(r.primal(v));
      wanted.push_back(active.count(v) > 0);
    }
    ir::GradientBuilder b(into, n, operands, [&] { return r.primal(n.result(0)); }, adj->second, wanted);
    n.info().gradient(b);
    for (size_t i = 0; i < n.operands().size(); ++i) {
      if (!b.grads[i]) continue;
      const ir::Value* v = n.operand(i);
      auto [slot, fresh] = adjoint.emplace(v, b.grads[i]);
      if (!fresh) slot->second = b.add(slot->second, b.grads[i]);
    }
  }
  std::vector<ir::Value*> out;
  for (const ir::Value* v : r.wrt) {
    auto it = adjoint.find(v);
    out.push_back(it == adjoint.end() ? nullptr : it->second);
  }
  return out;
}

}  // namespace nn::passes
