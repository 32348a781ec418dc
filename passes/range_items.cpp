// range-items: the items of `for i in range(...)` become int arithmetic on
// the loop counter.
//
// Why: the front end lowers `for i in range(n)` to a counted loop whose body
// reads `iter_item %it, %k`, an `any` node that the executor dispatches on
// every iteration (a range object's item, boxed) and that leaves `i`, and
// everything computed from it, untyped. The k-th item of `range(n)` is k and
// that of `range(a, b)` is a + k, so the item is the counter itself or one
// int add: typed int, folded and hoisted like any arithmetic, and run by the
// JIT's loop glue natively instead of through a call back per iteration.
//
// Rewritten: `iter_item %it, %k` where %it is `iter` of a call of the builtin
// `range` with one or two arguments typed int, no keywords, and %k typed
// int. The runtime's item is start + k * step (RangeObj::at); with one or
// two arguments step is 1, and inside the loop start + k lies between start
// and stop, so the add never overflows. Left alone: three arguments (k *
// step can pass int64 for a range whose items do not), arguments of other
// or unknown types (the call raises, or a bool range's items are ints of
// another value), and every other iterable.
//
// Algorithm: one walk; each block's node list is rebuilt in one pass, a
// `range(n)` item's uses move to the counter and a `range(a, b)` item's node
// is replaced by `add %a, %k` in its place. Invariants: range calls are not
// changed (the loop's length and the call's errors are the call's, as
// before); an item is computed where it was, from values that dominate it.
#include <memory>
#include <unordered_map>

#include "ir/builtins.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Node;
using ir::Op;

// The range call `it` iterates, when it is `iter` of `range(...)`.
const Node* rangeCall(const ir::Value* it) {
  const Node* iter = it->def();
  if (!iter || iter->op() != Op::Iter) return nullptr;
  const Node* call = iter->operand(0)->def();
  if (!call || call->op() != Op::Call || ir::calledFunction(*call) != ir::Builtin::Range) return nullptr;
  return call;
}

bool isInt(const ir::Value* v) { return v->type().kind == ir::TypeKind::Int; }

class RangeItems {
 public:
  bool block(ir::Block& b) {
    bool changed = false;
    std::vector<std::unique_ptr<Node>> out;
    out.reserve(b.nodes().size());
    for (std::unique_ptr<Node>& owned : b.mutableNodes()) {
      Node& n = *owned;
      for (size_t k = 0; k < n.numBlocks(); ++k) changed |= block(*n.block(k));
      const Node* range = n.op() == Op::IterItem ? rangeCall(n.operand(0)) : nullptr;
      size_t args = range ? range->operands().size() - 1 : 0;
      bool typed = range && (args == 1 || args == 2) && range->strListAttr("kw").empty() && isInt(n.operand(1));
      for (size_t i = 1; typed && i <= args; ++i) typed = isInt(range->operand(i));
      if (!typed) {
        out.push_back(std::move(owned));
        continue;
      }
      changed = true;
      if (args == 1) {
        replaced_[n.result(0)] = n.operand(1);
        graveyard_.push_back(std::move(owned));
        continue;
      }
      auto add = std::make_unique<Node>(Op::Add, n.loc());
      add->setParent(&b);  // before its result, which takes its block as owner
      add->addOperand(range->operand(1));
      add->addOperand(n.operand(1));
      ir::Value* r = add->addResult(ir::TypeKind::Int);
      r->setNameHint(n.result(0)->nameHint());
      add->setInlinedAt(n.inlinedAt());
      replaced_[n.result(0)] = r;
      out.push_back(std::move(add));
      graveyard_.push_back(std::move(owned));
    }
    b.mutableNodes() = std::move(out);
    return changed;
  }

  const std::unordered_map<const ir::Value*, ir::Value*>& replaced() const { return replaced_; }

 private:
  std::unordered_map<const ir::Value*, ir::Value*> replaced_;
  // The replaced items' nodes, alive until their uses have moved.
  std::vector<std::unique_ptr<Node>> graveyard_;
};

}  // namespace

bool rangeItems(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) {
    RangeItems rewrite;
    if (!rewrite.block(*f.body())) return false;
    ir::replaceUses(f, rewrite.replaced());
    return true;
  });
}

}  // namespace nn::passes
