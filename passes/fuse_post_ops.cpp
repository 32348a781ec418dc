// fuse-post-ops: `x @ w + b` (w [K, N], b [N]) becomes `linear(x, w.T, b)`,
// which the CPU runs as one oneDNN matmul whose bias add is a post-op
// applied to each output tile as it is made (runtime/onednn.cpp), or for a
// small product as nn's loop with the add after it
// (runtime/kernels_cpu_small_matmul.cpp, chosen by the rule matmul uses):
// one call instead of two, with the same f32 operations; the transpose is
// a view the kernel reads in place (licm then takes it out of a loop).
// This is the nn library's dense layer (`relu(h @ w + b)`).
//
// Algorithm: count the uses of every value of the function (nested blocks
// included); then one walk over each block in order: an add of a matmul
// (in the same block, used by nothing else) and an f32 vector of the
// matmul's width, in either order, becomes a transpose of w and a linear
// taking over the add's result, at the add's location (where --check eager
// compares the value); the matmul goes.
//
// Never fires: across blocks; when the matmul's result has another use (a
// second consumer, or a backward pass reading it); for other dtypes, whose
// matmul is not oneDNN's; for a bias whose shape is not the vector [N] or
// is unknown. An activation is not folded in: oneDNN's relu post-op maps
// NaN to 0 and gives -0.0 for negatives, where nn's relu (as PyTorch's)
// keeps NaN and gives +0.0. Runs after autodiff, so what it makes is never
// differentiated.
//
// Invariants: every value keeps its type; a removed matmul had no use
// left; operands stay defined before their use (the new nodes stand where
// the add stood, after everything the matmul read).
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/type_rules.h"
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

// The dims of an f32 tensor value of known shape.
std::optional<std::vector<int64_t>> f32Dims(const ir::Value* v) {
  ir::Type t = v->type();
  if (!t.isTensor() || !t.dtype || *t.dtype != ir::DType::F32 || !t.shape) return std::nullopt;
  std::vector<int64_t> dims;
  for (const ir::Dim& d : *t.shape) {
    if (!d.isKnown()) return std::nullopt;
    dims.push_back(d.size);
  }
  return dims;
}

// `x @ w + b` (either order of the add) with w [K, N] and b [N], f32, the
// matmul's result used by the add alone: the matmul, or null; biasAt is
// the add's operand holding b.
ir::Node* matmulPlusBias(const ir::Node& add, const ir::Block& b, const Uses& uses, size_t& biasAt) {
  if (add.op() != ir::Op::Add || add.operands().size() != 2 || !f32Dims(add.result())) return nullptr;
  for (size_t side = 0; side < 2; ++side) {
    ir::Node* mm = add.operand(side)->def();
    if (!mm || mm->op() != ir::Op::MatMul || mm->parent() != &b || uses.at(add.operand(side)) != 1) continue;
    auto x = f32Dims(mm->operand(0)), w = f32Dims(mm->operand(1)), bias = f32Dims(add.operand(1 - side));
    if (!x || !w || !bias || x->empty() || w->size() != 2 || bias->size() != 1 || (*bias)[0] != (*w)[1]) continue;
    biasAt = 1 - side;
    return mm;
  }
  return nullptr;
}

bool fuseBlock(ir::Block& b, const Uses& uses) {
  bool changed = false;
  std::unordered_set<const ir::Node*> gone;  // matmuls taken into a linear
  std::vector<std::unique_ptr<ir::Node>> out;
  for (auto& owned : b.mutableNodes()) {
    ir::Node& n = *owned;
    for (size_t i = 0; i < n.numBlocks(); ++i) changed |= fuseBlock(*n.block(i), uses);
    size_t biasAt = 0;
    ir::Node* mm = matmulPlusBias(n, b, uses, biasAt);
    if (!mm) {
      out.push_back(std::move(owned));
      continue;
    }
    auto t = std::make_unique<ir::Node>(ir::Op::Transpose, mm->loc());
    t->addOperand(mm->operand(1));
    t->setAttr("axes", ir::Ints{});
    t->setParent(&b);
    t->addResult(ir::resultType(*t, 0));
    auto lin = std::make_unique<ir::Node>(ir::Op::Linear, n.loc());
    lin->addOperand(mm->operand(0));
    lin->addOperand(t->result());
    lin->addOperand(n.operand(biasAt));
    lin->setInlinedAt(n.inlinedAt());
    if (mm->backward() || n.backward()) t->setBackward(), lin->setBackward();
    lin->adoptResults(n);
    lin->setParent(&b);
    gone.insert(mm);
    out.push_back(std::move(t));
    out.push_back(std::move(lin));
    changed = true;
  }
  std::erase_if(out, [&](const std::unique_ptr<ir::Node>& n) { return gone.count(n.get()) > 0; });
  b.mutableNodes() = std::move(out);
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
