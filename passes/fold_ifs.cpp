// fold-ifs: an `if` on a constant runs the branch the constant names.
//
// Inlining and unrolling leave such ifs: `found = found or test(x)` with
// `found = False` unrolled from a loop's first trip is `if False`. The
// branch taken replaces the if, so its nodes are typed and folded with
// their neighbours and no branch is dispatched at run time.
//
// Algorithm: one walk in program order that rebuilds each block's node
// list, nested blocks first; an `if` whose condition is a `const` of a
// bool, an int or None (its truth as Python takes it) is replaced by a
// copy of the branch it takes (ir::appendBlockCopy: each copy keeps its
// location and inlined-at sites), and the if's results by that copy's
// yields in the nodes after it.
//
// Invariants: the nodes that run are the ones that ran, in the same
// order. Replaced nodes are kept alive until the walk ends, so no stale
// value's address is reused while the replacement map still names it.
#include <optional>
#include <unordered_map>

#include "ir/clone.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

// The truth of constant `v` as Python takes it, where the pass knows it.
std::optional<bool> constantTruth(const ir::Value* v) {
  const ir::Node* d = v->def();
  const ir::Attr* a = d && d->op() == ir::Op::Const ? d->attr("value") : nullptr;
  if (!a) return std::nullopt;
  if (const auto* b = std::get_if<bool>(a)) return *b;
  if (const auto* i = std::get_if<int64_t>(a)) return *i != 0;
  if (std::holds_alternative<ir::NoneAttr>(*a)) return false;
  return std::nullopt;
}

class IfFolder {
 public:
  bool changed = false;

  void block(ir::Block& b) {
    std::vector<std::unique_ptr<ir::Node>> old = std::move(b.mutableNodes());
    b.mutableNodes().clear();
    for (std::unique_ptr<ir::Node>& owned : old) {
      ir::Node& n = *owned;
      ir::replaceOperands(n, replaced_);  // nested blocks: by the walk below
      for (size_t k = 0; k < n.numBlocks(); ++k) block(*n.block(k));
      std::optional<bool> truth = n.op() == ir::Op::If ? constantTruth(n.operand(0)) : std::nullopt;
      if (!truth) {
        b.append(std::move(owned));
        continue;
      }
      std::vector<ir::Value*> yields = ir::appendBlockCopy(*n.block(*truth ? 0 : 1), b, {});
      for (size_t i = 0; i < n.numResults() && i < yields.size(); ++i) replaced_[n.result(i)] = yields[i];
      graveyard_.push_back(std::move(owned));
      changed = true;
    }
  }

 private:
  std::unordered_map<const ir::Value*, ir::Value*> replaced_;
  std::vector<std::unique_ptr<ir::Node>> graveyard_;
};

}  // namespace

bool foldIfs(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) {
    IfFolder folder;
    folder.block(*f.body());
    return folder.changed;
  });
}

}  // namespace nn::passes
