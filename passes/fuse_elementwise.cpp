// fuse-elementwise: chains of elementwise tensor ops over one output shape
// become one `fused` node, so the runtime makes one pass over memory for
// the whole chain instead of one per op.
//
//   %3 = mul %a, %b : f32[1024]          %6 = fused %a, %b, %c : f32[1024] {
//   %4 = add %3, %c : f32[1024]     =>   ^body(%7: f32[1024], %8: f32[1024], %9: f32[1024]):
//   %5 = relu %4 : f32[1024]               %3 = mul %7, %8 ...  %5 = relu %4 ...
//                                          yield %5
//                                        }
//
// A group has a root (the last op, whose result leaves the group) and the
// producers of its operands that (1) are fusible: elementwise (ELEM, or a
// dtype cast: CAST), pure,
// one result, a tensor of fully known shape and dtype, operands tensors of
// known type or Python numbers, no order edges; (2) have the root's shape
// (an operand of a smaller, broadcast shape stays an input); (3) have every
// use inside the group (a value another consumer needs unfused is never
// recomputed or duplicated); (4) live in the root's block (never across an
// if or loop boundary). Groups of one op are left alone. Effects, random
// ops, matmul and shape ops never join (they are neither). A reduction
// joins as a group's root, a trailing full or last-axis sum, mean, max or
// min of floats (reductionRoot), or, in a group rooted at an elementwise
// op of rank 2 or more, inside it as a row reduction (innerRowReduction:
// the last axis, keepdims) of a value of the group's shape, with the
// elementwise ops of its per-row shape [..., 1] that read it (softmax:
// max, sub, exp, sum, div; layer norm: mean, sub, mean of squares, add
// eps, sqrt, div — one kernel each).
//
// Algorithm: per block, nodes from last to first; each unclaimed fusible
// node roots a group, grown by a worklist: an operand's producer joins once
// the group holds all of its value's uses (counted over the whole function,
// nested blocks included), so a value used twice inside the group joins
// after its second user. Linear in the block's size. The members move, in
// their original order, into the fused node's body at the root's place;
// they only read values defined before them, so the move is sound.
// Invariants: every member keeps its location (errors inside a fused
// kernel point at the op's own source line); the fused node adopts the
// root's result, so outer uses need no rewiring.
#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Node;
using ir::Op;

bool knownTensor(const ir::Type& t) { return t.dtype && t.hasStaticShape(); }

// A trailing reduction: sum, mean, max or min of a float tensor over all
// its axes (axis None, keepdims false: a 0-d result) or over its last axis
// of two or more (keepdims either: one result per row). It roots a group
// whose other members have its operand's shape; the fused node yields the
// reduction, so the chain's elements are folded as they are made and never
// stored (a loss: mean((p - y) ** 2); per row: sum(x * w, axis=-1)).
bool reductionRoot(const Node& n) {
  bool folds = n.op() == Op::Sum || n.op() == Op::Mean || n.op() == Op::Max || n.op() == Op::Min;
  if (!folds || n.numResults() != 1 || n.operands().size() != 1 || !n.orderAfter().empty() || n.token())
    return false;
  const ir::Type& t = n.operand(0)->type();
  if (!knownTensor(t) || (*t.dtype != ir::DType::F32 && *t.dtype != ir::DType::F64) ||
      !knownTensor(n.result(0)->type()))
    return false;
  if (ir::reducesWhole(n)) return true;
  const ir::Attr* axis = n.attr("axis");
  const ir::Attr* keep = n.attr("keepdims");
  if (!axis || !keep || !std::holds_alternative<bool>(*keep)) return false;
  auto rank = static_cast<int64_t>(t.shape->size());
  std::optional<int64_t> a;
  if (std::holds_alternative<int64_t>(*axis)) a = std::get<int64_t>(*axis);
  if (std::holds_alternative<ir::Ints>(*axis) && std::get<ir::Ints>(*axis).size() == 1)
    a = std::get<ir::Ints>(*axis)[0];
  return rank >= 2 && a && (*a == -1 || *a == rank - 1);
}

// A reduction inside a group: a sum, mean, max or min of a float tensor of
// the group's shape over its last axis with keepdims (one result per row,
// broadcast back along the row by the ops that read it: softmax's max and
// sum, layer norm's means). The kernel folds each row, then makes the
// row's elements from the folds (runtime/jit/fused_codegen.cpp).
bool innerRowReduction(const Node& n, const ir::DimList& shape) {
  if (shape.size() < 2 || !reductionRoot(n) || ir::reducesWhole(n)) return false;
  const ir::Attr* keep = n.attr("keepdims");
  return std::get<bool>(*keep) && *n.operand(0)->type().shape == shape;
}

bool fusible(const Node& n) {
  bool elementwise = ir::hasTrait(n.op(), ir::ELEM) || ir::hasTrait(n.op(), ir::CAST);
  if (!elementwise || !ir::hasTrait(n.op(), ir::PURE)) return false;
  if (n.numResults() != 1 || n.numBlocks() != 0 || !n.orderAfter().empty() || n.token()) return false;
  if (!knownTensor(n.result(0)->type())) return false;
  for (const ir::Value* v : n.operands()) {
    ir::TypeKind k = v->type().kind;
    if (!knownTensor(v->type()) && k != ir::TypeKind::Int && k != ir::TypeKind::Float && k != ir::TypeKind::Bool)
      return false;
  }
  return true;
}

class Fuser {
 public:
  explicit Fuser(ir::Function& f) { count(*f.body()); }

  bool block(ir::Block& b) {
    bool changed = false;
    for (const auto& n : b.nodes())
      for (size_t k = 0; k < n->numBlocks(); ++k) changed |= block(*n->block(k));
    std::unordered_map<const Node*, size_t> position;
    for (size_t i = 0; i < b.nodes().size(); ++i) position[b.nodes()[i].get()] = i;
    std::vector<std::vector<size_t>> groups;  // member positions, root last
    std::unordered_set<const Node*> claimed;
    for (size_t i = b.nodes().size(); i-- > 0;) {
      const Node& root = *b.nodes()[i];
      if (claimed.count(&root) || !(fusible(root) || reductionRoot(root))) continue;
      std::vector<size_t> members = grow(b, root, position, claimed);
      if (members.size() < 2) continue;
      for (size_t m : members) claimed.insert(b.nodes()[m].get());
      groups.push_back(std::move(members));
    }
    if (groups.empty()) return changed;
    rebuild(b, groups);
    return true;
  }

 private:
  void count(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      for (const ir::Value* v : n->operands()) ++uses_[v];
      for (size_t k = 0; k < n->numBlocks(); ++k) count(*n->block(k));
    }
  }

  // The positions of root's group in b, in block order. With `rows`, the
  // group may also hold inner row reductions and elementwise ops of their
  // per-row shape (the log of a row's sum); a group that then holds no
  // reduction is grown again without.
  std::vector<size_t> grow(const ir::Block& b, const Node& root, const std::unordered_map<const Node*, size_t>& position,
                           const std::unordered_set<const Node*>& claimed, bool rows = true) {
    // The members' shape: the root's, or a trailing reduction's operand's.
    const ir::DimList shape = *(fusible(root) ? root.result(0) : root.operand(0))->type().shape;
    ir::DimList perRow = shape;
    if (!perRow.empty()) perRow.back() = ir::Dim::known(1);
    rows = rows && fusible(root) && shape.size() >= 2;
    bool reduces = false, rowShaped = false;
    std::vector<size_t> members{position.at(&root)};
    std::unordered_map<const ir::Value*, size_t> inGroup;
    std::vector<const Node*> work{&root};
    while (!work.empty()) {
      const Node* n = work.back();
      work.pop_back();
      for (const ir::Value* v : n->operands()) {
        const Node* p = v->def();
        if (++inGroup[v] != uses_[v] || !p || p->parent() != &b || claimed.count(p)) continue;
        bool inner = rows && innerRowReduction(*p, shape);
        if (!inner && !fusible(*p)) continue;
        const ir::DimList own = *p->result(0)->type().shape;
        bool ofRow = rows && !inner && own == perRow;
        if (!inner && !ofRow && own != shape) continue;
        reduces |= inner;
        rowShaped |= ofRow;
        members.push_back(position.at(p));
        work.push_back(p);
      }
    }
    if (rowShaped && !reduces) return grow(b, root, position, claimed, false);
    std::sort(members.begin(), members.end());
    return members;
  }

  // Moves each group into a fused node at its root's place.
  void rebuild(ir::Block& b, const std::vector<std::vector<size_t>>& groups) {
    std::vector<std::unique_ptr<Node>>& nodes = b.mutableNodes();
    std::unordered_map<size_t, const std::vector<size_t>*> byRoot;
    std::unordered_set<size_t> moved;
    for (const auto& g : groups) {
      byRoot[g.back()] = &g;
      moved.insert(g.begin(), g.end());
    }
    std::vector<std::unique_ptr<Node>> out;
    out.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (auto it = byRoot.find(i); it != byRoot.end()) out.push_back(fuse(b, *it->second));
      else if (!moved.count(i)) out.push_back(std::move(nodes[i]));
    }
    nodes = std::move(out);
  }

  std::unique_ptr<Node> fuse(ir::Block& b, const std::vector<size_t>& members) {
    std::vector<std::unique_ptr<Node>>& nodes = b.mutableNodes();
    Node& root = *nodes[members.back()];
    auto fused = std::make_unique<Node>(Op::Fused, root.loc());
    fused->setInlinedAt(root.inlinedAt());
    fused->setParent(&b);
    ir::Block* body = fused->addBlock();
    std::unordered_set<const ir::Value*> internal;
    for (size_t m : members) internal.insert(nodes[m]->result(0));
    std::unordered_map<const ir::Value*, ir::Value*> argOf;
    for (size_t m : members) {
      Node& n = *nodes[m];
      for (size_t k = 0; k < n.operands().size(); ++k) {
        ir::Value* v = n.operand(k);
        if (internal.count(v)) continue;
        auto [it, fresh] = argOf.emplace(v, nullptr);
        if (fresh) {
          fused->addOperand(v);
          it->second = body->addArg(v->type());
        }
        n.setOperand(k, it->second);
      }
    }
    // The fused node takes over the root's result; the root inside gets a
    // new one, which the body yields.
    ir::Type type = root.result(0)->type();
    fused->adoptResults(root);
    ir::Value* inner = root.addResult(type);
    for (size_t m : members) {
      Node* n = body->append(std::move(nodes[m]));
      n->result(0)->setOwner(body);
    }
    ir::build(body, Op::Yield, root.loc(), {inner}, 0);
    return fused;
  }

  std::unordered_map<const ir::Value*, size_t> uses_;
};

}  // namespace

bool fuseElementwise(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) { return Fuser(f).block(*f.body()); });
}

}  // namespace nn::passes
