// fuse-post-ops: a dense layer becomes one node that the CPU runs as a
// single oneDNN matmul whose bias add and relu are post-ops applied to each
// output tile as it is made (runtime/onednn.cpp): one pass over the result
// instead of three, with the same f32 operations. `x @ w + b` (w [K, N], b
// [N]) becomes `linear(x, w.T, b)`, the transpose a view the kernel reads in
// place, and `relu(linear(x, w, b))` becomes `linear_relu(x, w, b)`.
//
// Algorithm: count the uses of every value of the function (nested blocks
// included); then one walk over each block in order: an add of a matmul
// (in the same block, used by nothing else) and a vector of its width
// becomes a transpose and a linear taking over the add's result; a relu of
// a linear (likewise) becomes a linear_relu of the linear's operands taking
// over the relu's result, so `relu(x @ w + b)` ends as one linear_relu.
// Each new node has the location of the node whose value it makes, where
// --check eager compares it; the matmul or linear it took in goes.
//
// Never fires: across blocks; when the matmul's or linear's result has
// another use (a second consumer, or a backward pass reading it); for other
// dtypes, whose linear is not oneDNN's; for a bias whose shape is not the
// vector [N] or is unknown. Runs after autodiff, so what it makes is never
// differentiated.
//
// Invariants: every value keeps its type; a removed matmul or linear had
// no use left; operands stay defined before their use (the new nodes stand
// where the add or relu stood, after everything the removed node read).
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

bool isF32(const ir::Value* v) {
  ir::Type t = v->type();
  return t.isTensor() && t.dtype && *t.dtype == ir::DType::F32;
}

// The dims of an f32 tensor value of known shape.
std::optional<std::vector<int64_t>> f32Dims(const ir::Value* v) {
  ir::Type t = v->type();
  if (!isF32(v) || !t.shape) return std::nullopt;
  std::vector<int64_t> dims;
  for (const ir::Dim& d : *t.shape) {
    if (!d.isKnown()) return std::nullopt;
    dims.push_back(d.size);
  }
  return dims;
}

// `x @ w + b` (either order of the add) with w [K, N] and b [N], f32, the
// matmul's result used by the add alone: the matmul, or null.
ir::Node* matmulPlusBias(const ir::Node& add, const ir::Block& b, const Uses& uses, size_t& biasAt) {
  if (add.op() != ir::Op::Add || add.operands().size() != 2 || !isF32(add.result())) return nullptr;
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
  std::unordered_set<const ir::Node*> gone;  // taken into a node made here
  std::vector<std::unique_ptr<ir::Node>> out;
  for (auto& owned : b.mutableNodes()) {
    ir::Node& n = *owned;
    for (size_t i = 0; i < n.numBlocks(); ++i) changed |= fuseBlock(*n.block(i), uses);
    size_t biasAt = 0;
    if (ir::Node* mm = matmulPlusBias(n, b, uses, biasAt)) {
      // linear(x, w.T, b): the transpose is a view the kernel reads in place.
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
      continue;
    }
    ir::Node* lin = n.op() == ir::Op::Relu && n.operands().size() == 1 ? n.operand(0)->def() : nullptr;
    if (lin && lin->op() == ir::Op::Linear && lin->parent() == &b && uses.at(n.operand(0)) == 1 && isF32(n.result())) {
      bool allF32 = true;
      for (const ir::Value* v : lin->operands()) allF32 = allF32 && (v->type().kind == ir::TypeKind::None || isF32(v));
      if (allF32) {
        auto f = std::make_unique<ir::Node>(ir::Op::LinearRelu, n.loc());
        for (ir::Value* v : lin->operands()) f->addOperand(v);
        f->setInlinedAt(n.inlinedAt());
        if (lin->backward() || n.backward()) f->setBackward();
        f->adoptResults(n);
        f->setParent(&b);
        gone.insert(lin);
        out.push_back(std::move(f));
        changed = true;
        continue;
      }
    }
    out.push_back(std::move(owned));
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
