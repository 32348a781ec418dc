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
// dtype cast: CAST), pure, one result, a tensor of fully known shape and
// dtype, operands tensors of known type or Python numbers, no order edges;
// (2) have the root's shape (an operand of a smaller, broadcast shape
// stays an input); (3) have every use inside the group (a value another
// consumer needs unfused is never recomputed or duplicated); (4) live in
// the root's block (never across an if or loop boundary); (5) if they may
// raise, move past no node that stays outside and has an effect or may
// raise (an error keeps its place among the program's errors and
// effects). Groups of one op are left alone. Effects, random ops, matmul
// and shape ops never join (they are neither). A reduction joins as a
// group's root, a trailing full or last-axis sum, mean, max or min of
// floats (reductionRoot), or, in a group rooted at an elementwise op of
// rank 2 or more, inside it as a row reduction (innerRowReduction: the
// last axis, keepdims) of a value of the group's shape, with the
// elementwise ops of its per-row shape [..., 1] that read it (softmax:
// max, sub, exp, sum, div; layer norm: mean, sub, mean of squares, add
// eps, sqrt, div — one kernel each).
//
// Untyped groups: elementwise ops whose types are known only at run time
// (values out of a list of parameters, an untyped call's result) group the
// same way, without the shape rule (2), into a fused node of type `any`;
// the runtime specialises its body for the operands it meets
// (runtime/fused_dynamic.cpp) or runs it op by op. Never in a template
// (ir::Graph::templates): its specialised copies type and fuse it better.
//
// Algorithm: per block, nodes from last to first; each unclaimed fusible
// node roots a group, grown from a queue of candidates: an operand's
// producer is a candidate once the group holds all of its value's uses
// (counted over the whole function, nested blocks included), so a value
// used twice inside the group joins after its second user; candidates are
// decided last to first, so the nodes between a candidate and the root
// are decided when rule (5) looks at them. Linear in the block's size (a
// member that may raise moves at most kMaxMoveSpan nodes). The members
// move, in their original order, into the fused node's body at the root's
// place; they only read values defined before them, so the move is sound.
// Invariants: every member keeps its location (errors inside a fused
// kernel point at the op's own source line); the fused node adopts the
// root's result, so outer uses need no rewiring.
#include <algorithm>
#include <memory>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "passes/effects.h"
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

bool elementwiseNode(const Node& n) {
  bool elementwise = ir::hasTrait(n.op(), ir::ELEM) || ir::hasTrait(n.op(), ir::CAST);
  return elementwise && ir::hasTrait(n.op(), ir::PURE) && n.numResults() == 1 && n.numBlocks() == 0 &&
         n.orderAfter().empty() && !n.token();
}

bool number(ir::TypeKind k) { return k == ir::TypeKind::Int || k == ir::TypeKind::Float || k == ir::TypeKind::Bool; }

bool fusible(const Node& n) {
  if (!elementwiseNode(n) || !knownTensor(n.result(0)->type())) return false;
  for (const ir::Value* v : n.operands())
    if (!knownTensor(v->type()) && !number(v->type().kind)) return false;
  return true;
}

// An elementwise op whose result type is known only at run time (its
// operands come out of a list, a dict or an untyped call: an optimiser's
// update p - lr * g over a list of parameters). Its group becomes a fused
// node whose type is `any`, specialised when it runs for the operands'
// actual types (runtime/fused_dynamic.cpp); in a template (ir::Graph::
// templates) it stays as it is, since a specialised copy types it.
bool untypedFusible(const Node& n) {
  if (!elementwiseNode(n) || knownTensor(n.result(0)->type())) return false;
  for (const ir::Value* v : n.operands()) {
    ir::TypeKind k = v->type().kind;
    if (k != ir::TypeKind::Any && k != ir::TypeKind::Tensor && !number(k)) return false;
  }
  return true;
}

// How far (in nodes of its block) a member that may raise may be moved down
// to its group's root: bounds the scan for nodes it must not pass, so the
// pass stays linear in the block's size.
constexpr size_t kMaxMoveSpan = 1024;

class Fuser {
 public:
  Fuser(ir::Function& f, bool untyped) : untyped_(untyped) { count(*f.body()); }

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
      bool typed = fusible(root) || reductionRoot(root);
      if (claimed.count(&root) || !(typed || (untyped_ && untypedFusible(root)))) continue;
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

  // The positions of root's group in b, in block order. Candidates (the
  // producers of the group's values, once the group holds all their uses)
  // are decided last to first, so when one is, every node between it and
  // the root is decided: a candidate that may raise joins only if none of
  // the nodes it would move past (those staying outside) has an effect or
  // may raise, so errors and effects keep their program order. A typed
  // root's members are typed, of its shape; with `rows`, the group may
  // also hold inner row reductions and elementwise ops of their per-row
  // shape (the log of a row's sum); a group that then holds no reduction
  // is grown again without. An untyped root's members are untyped.
  std::vector<size_t> grow(const ir::Block& b, const Node& root, const std::unordered_map<const Node*, size_t>& position,
                           const std::unordered_set<const Node*>& claimed, bool rows = true) {
    bool typed = fusible(root) || reductionRoot(root);
    // The members' shape: the root's, or a trailing reduction's operand's.
    ir::DimList shape, perRow;
    if (typed) perRow = shape = *(fusible(root) ? root.result(0) : root.operand(0))->type().shape;
    if (!perRow.empty()) perRow.back() = ir::Dim::known(1);
    rows = rows && fusible(root) && shape.size() >= 2;
    bool reduces = false, rowShaped = false;
    const size_t top = position.at(&root);
    std::vector<size_t> members{top};
    std::unordered_set<size_t> isMember{top};
    std::unordered_map<const ir::Value*, size_t> inGroup;
    std::priority_queue<size_t> ready;
    auto offer = [&](const Node& n) {
      for (const ir::Value* v : n.operands()) {
        const Node* p = v->def();
        if (++inGroup[v] != uses_[v] || !p || p->parent() != &b || claimed.count(p)) continue;
        ready.push(position.at(p));
      }
    };
    // The nodes at [scan, top) have been looked at; `blocked`: one of them
    // stays outside and has an effect or may raise.
    size_t scan = top;
    bool blocked = false;
    offer(root);
    while (!ready.empty()) {
      const size_t at = ready.top();
      ready.pop();
      const Node& p = *b.nodes()[at];
      bool inner = false, ofRow = false;
      if (typed) {
        inner = rows && innerRowReduction(p, shape);
        if (!inner && !fusible(p)) continue;
        const ir::DimList own = *p.result(0)->type().shape;
        ofRow = rows && !inner && own == perRow;
        if (!inner && !ofRow && own != shape) continue;
      } else if (!untypedFusible(p)) {
        continue;
      }
      if (mayRaise(p)) {
        if (top - at > kMaxMoveSpan) continue;
        for (; scan > at + 1 && !blocked; --scan) {
          const Node& between = *b.nodes()[scan - 1];
          blocked = !isMember.count(scan - 1) && (hasEffect(between) || mayRaise(between));
        }
        if (blocked) continue;
      }
      reduces |= inner;
      rowShaped |= ofRow;
      members.push_back(at);
      isMember.insert(at);
      offer(p);
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
  bool untyped_;  // whether groups of untyped ops fuse
};

}  // namespace

bool fuseElementwise(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [&](ir::Function& f) {
    return Fuser(f, !g.templates() || f.name() == "__main__").block(*f.body());
  });
}

}  // namespace nn::passes
