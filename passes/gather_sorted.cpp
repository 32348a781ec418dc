// gather-sorted: in a function that differentiates, the values of sort and
// topk become gathers of their operand by the indices.
//
// sort(x) and topk(x, k) return a tuple (values, indices), which no
// gradient rule can reach: read out of the tuple, the values would carry
// no gradient at all. `gather(x, axis, indices)` is the same tensor, element
// for element (the elements the sort put there), and its gradient is the
// scatter-add of the adjoint back to where each element came from, which
// is sort's and topk's gradient. The eager tape records the same gather
// (runtime/tape.cpp), so both modes differentiate them alike.
//
// Rewritten: `getitem %s, 0` and the first result of `unpack %s`, where %s
// is a sort or topk node. Left alone: functions without an autodiff node
// (nothing differentiates there, so the gather would only cost time).
//
// Algorithm: one walk to find an autodiff node, one walk rewriting; each
// read of the values gets a gather (and, for a getitem, a read of the
// indices) right after it, and the read's uses move to the gather; linear.
// Invariants: the indices read is of the same tuple, so the gather's value
// is the values' value.
#include <memory>
#include <unordered_map>

#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Node;
using ir::Op;
using Nodes = std::vector<std::unique_ptr<Node>>;

bool differentiates(const ir::Block& b) {
  for (const auto& n : b.nodes()) {
    if (n->op() == Op::Autodiff) return true;
    for (size_t i = 0; i < n->numBlocks(); ++i)
      if (differentiates(*n->block(i))) return true;
  }
  return false;
}

const Node* sortedBy(const ir::Value* v) {
  const Node* d = v->def();
  return d && (d->op() == Op::Sort || d->op() == Op::TopK) ? d : nullptr;
}

bool isConstInt(const ir::Value* v, int64_t want) {
  const Node* d = v->def();
  if (!d || d->op() != Op::Const) return false;
  const auto* i = std::get_if<int64_t>(d->attr("value"));
  return i && *i == want;
}

class GatherSorted {
 public:
  bool block(ir::Block& b) {
    bool changed = false;
    Nodes out;
    out.reserve(b.nodes().size());
    for (std::unique_ptr<Node>& owned : b.mutableNodes()) {
      Node& n = *owned;
      for (size_t k = 0; k < n.numBlocks(); ++k) changed |= block(*n.block(k));
      const Node* sorted = n.operands().empty() ? nullptr : sortedBy(n.operand(0));
      bool values = sorted && ((n.op() == Op::GetItem && isConstInt(n.operand(1), 0)) ||
                               (n.op() == Op::Unpack && n.numResults() == 2));
      out.push_back(std::move(owned));
      if (!values) continue;
      ir::Value* indices = nullptr;
      if (n.op() == Op::Unpack) {
        indices = n.result(1);
      } else {
        Node* one = append(out, b, Op::Const, n, {});
        one->setAttr("value", int64_t{1});
        one->result(0)->setType(ir::TypeKind::Int);
        indices = append(out, b, Op::GetItem, n, {n.operand(0), one->result(0)})->result(0);
      }
      Node* gather = append(out, b, Op::Gather, n, {sorted->operand(0), indices});
      gather->setAttr("axis", sorted->intAttr("axis"));
      gather->result(0)->setType(n.result(0)->type());
      gather->result(0)->setNameHint(n.result(0)->nameHint());
      replaced_[n.result(0)] = gather->result(0);
      changed = true;
    }
    b.mutableNodes() = std::move(out);
    return changed;
  }

  const std::unordered_map<const ir::Value*, ir::Value*>& replaced() const { return replaced_; }

 private:
  static Node* append(Nodes& out, ir::Block& b, Op op, const Node& at, std::vector<ir::Value*> operands) {
    auto n = std::make_unique<Node>(op, at.loc());
    n->setParent(&b);  // before its result, which takes its block as owner
    for (ir::Value* v : operands) n->addOperand(v);
    n->addResult(ir::Type::any());
    n->setInlinedAt(at.inlinedAt());
    out.push_back(std::move(n));
    return out.back().get();
  }

  std::unordered_map<const ir::Value*, ir::Value*> replaced_;
};

}  // namespace

bool gatherSorted(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) {
    if (!differentiates(*f.body())) return false;
    GatherSorted rewrite;
    if (!rewrite.block(*f.body())) return false;
    // The gathers read the values' tuple, never the values: no use of a
    // gather is rewritten into a cycle.
    std::unordered_map<const ir::Value*, ir::Value*> map = rewrite.replaced();
    ir::replaceUses(f, map);
    return true;
  });
}

}  // namespace nn::passes
