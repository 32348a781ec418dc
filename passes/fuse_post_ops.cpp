// fuse-post-ops: `relu(linear(x, w, b))` becomes one `linear_relu` node,
// which the CPU runs as a single oneDNN matmul whose bias add and relu are
// post-ops applied to each output tile as it is made (runtime/onednn.cpp):
// one pass over the result instead of three, with the same f32 operations.
//
// Algorithm: count the uses of every value of the function (nested blocks
// included); then in each block, a relu whose operand is the result of a
// linear in the same block that nothing else uses, all of f32, becomes a
// linear_relu of the linear's operands at the relu's location (it makes
// the relu's value, which --check eager compares there), taking over the
// relu's result; the linear goes.
//
// Never fires: across blocks; when the linear's result has another use (a
// second consumer, or a backward pass reading it); for other dtypes, whose
// linear is not oneDNN's. Runs after autodiff, so a linear_relu is never
// differentiated.
//
// Invariants: every value keeps its type; the removed linear had no use
// left; operands stay defined before their use (the linear's operands come
// before the linear, which comes before the relu).
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "passes/passes.h"

namespace nn::passes {
namespace {

using Uses = std::unordered_map<const ir::Value*, size_t>;

void countUses(const ir::Block& b, Uses& uses) {
  for (const auto& n : b.nodes()) {
    for (const ir::Value* v : n->operands()) ++uses[v];
    for (size_t i = 0; i < n->numBlocks(); ++i) countUses(*n->block(i), uses);
  }
}

bool isF32(const ir::Value* v) {
  ir::Type t = v->type();
  return t.isTensor() && t.dtype && *t.dtype == ir::DType::F32;
}

bool fuseBlock(ir::Block& b, const Uses& uses) {
  bool changed = false;
  std::unordered_set<const ir::Node*> fused;  // linears taken into a linear_relu
  for (auto& owned : b.mutableNodes()) {
    ir::Node& n = *owned;
    for (size_t i = 0; i < n.numBlocks(); ++i) changed |= fuseBlock(*n.block(i), uses);
    if (n.op() != ir::Op::Relu || n.operands().size() != 1) continue;
    ir::Node* lin = n.operand(0)->def();
    if (!lin || lin->op() != ir::Op::Linear || lin->parent() != &b || uses.at(n.operand(0)) != 1) continue;
    bool allF32 = isF32(n.result());
    for (const ir::Value* v : lin->operands()) allF32 = allF32 && (v->type().kind == ir::TypeKind::None || isF32(v));
    if (!allF32) continue;
    auto f = std::make_unique<ir::Node>(ir::Op::LinearRelu, n.loc());
    for (ir::Value* v : lin->operands()) f->addOperand(v);
    f->setInlinedAt(n.inlinedAt());
    if (lin->backward() || n.backward()) f->setBackward();
    f->adoptResults(n);
    f->setParent(&b);
    owned = std::move(f);
    fused.insert(lin);
    changed = true;
  }
  if (!fused.empty())
    std::erase_if(b.mutableNodes(), [&](const std::unique_ptr<ir::Node>& n) { return fused.count(n.get()) > 0; });
  return changed;
}

}  // namespace

bool fusePostOps(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) {
    Uses uses;
    countUses(*f.body(), uses);
    return fuseBlock(*f.body(), uses);
  });
}

}  // namespace nn::passes
