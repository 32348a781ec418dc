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
// effects). A Python float op (+, -, *, unary -) whose uses are all in the
// group joins it too (numberMember: computed once per run). Groups of one
// op are left alone, unless (6) they join another: plain groups (no
// reduction) of one shape that read the same tensor (siblings) or where
// one reads a value the other makes become one node of several results,
// one per member value used outside (merge). Effects, random ops, matmul
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
// Then the groups and lone fusible ops merge (6), earlier into later, in
// order of their roots (merge). Invariants: every member keeps its
// location (errors inside a fused kernel point at the op's own source
// line); the fused node adopts the results used outside (the root's in a
// group of one result), so outer uses need no rewiring.
#include <algorithm>
#include <functional>
#include <iterator>
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

bool isNumberKind(ir::TypeKind k) {
  return k == ir::TypeKind::Int || k == ir::TypeKind::Float || k == ir::TypeKind::Bool;
}

bool fusible(const Node& n) {
  if (!elementwiseNode(n) || !knownTensor(n.result(0)->type())) return false;
  for (const ir::Value* v : n.operands())
    if (!knownTensor(v->type()) && !isNumberKind(v->type().kind)) return false;
  return true;
}

// A Python float op (+, -, * or unary - of floats, which never raise) all
// of whose uses are in a typed group joins it: the kernel computes it once
// (1.0 - beta in an optimiser's update). It never roots a group.
bool numberMember(const Node& n) {
  Op op = n.op();
  if (!elementwiseNode(n) || n.result(0)->type().kind != ir::TypeKind::Float ||
      !(op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Neg))
    return false;
  for (const ir::Value* v : n.operands())
    if (v->type().kind != ir::TypeKind::Float) return false;
  return true;
}

// An elementwise op whose result type is known only at run time (its
// operands come out of a list, a dict or an untyped call: an optimiser's
// update p - lr * g over a list of parameters). Its group becomes a fused
// node whose type is `any`, specialised when it runs for the operands'
// actual types (runtime/fused_dynamic.cpp); in a template (ir::Graph::
// templates) it stays as it is, since a specialised copy types it. An op
// of Python numbers alone is no tensor work: a fused node would only add
// its dispatch to the interpreter's (and keep a loop's JIT glue from
// computing it in registers).
bool untypedFusible(const Node& n) {
  if (!elementwiseNode(n) || knownTensor(n.result(0)->type())) return false;
  bool mayBeTensor = false;
  for (const ir::Value* v : n.operands()) {
    ir::TypeKind k = v->type().kind;
    if (k != ir::TypeKind::Any && k != ir::TypeKind::Tensor && !isNumberKind(k)) return false;
    mayBeTensor |= !isNumberKind(k);
  }
  return mayBeTensor;
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
    groups = merge(b, std::move(groups), claimed, position);
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
      if (typed && numberMember(p)) {
        // joins wherever its uses are (it cannot raise)
      } else if (typed) {
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

  // Whether the members at `members` (of block b) are a plain group: all
  // typed elementwise ops of one result shape, or all untyped ones (no
  // reductions: their kernels have one result).
  static bool plain(const ir::Block& b, const std::vector<size_t>& members, bool& typed, ir::DimList& shape) {
    const Node& root = *b.nodes()[members.back()];
    typed = fusible(root);
    if (typed) shape = *root.result(0)->type().shape;
    for (size_t m : members) {
      const Node& n = *b.nodes()[m];
      if (typed && numberMember(n)) continue;
      if (typed ? !fusible(n) || *n.result(0)->type().shape != shape : !untypedFusible(n)) return false;
    }
    return true;
  }

  // Rule (6), multi-result groups: a plain group (or a lone fusible op)
  // joins a later one of the same kind and shape that reads a tensor it
  // reads (siblings: the input is read once for both) or a value it makes
  // (its result is then stored by the kernel that also consumes it); the
  // fused node then has a result per member value used outside it. The
  // earlier group moves to the later one's root, so it joins only if no
  // node outside both uses one of its values before that root, and (rule
  // 5) none of its members that may raise moves past a node that stays
  // outside and has an effect or may raise. Candidates: the groups that
  // make the later group's operands and the last kReaders groups that read
  // each of its tensor operands, nearest first; at most kMaxResults results
  // and kMaxMerged members, so the checks stay linear in the block's size.
  std::vector<std::vector<size_t>> merge(const ir::Block& b, std::vector<std::vector<size_t>> groups,
                                         const std::unordered_set<const Node*>& claimed,
                                         const std::unordered_map<const Node*, size_t>& position) {
    const auto& nodes = b.nodes();
    const size_t size = nodes.size();
    // Fused groups and lone fusible ops, by root position. With fewer than
    // two, nothing can merge: the walk over the nested uses is skipped (a
    // deep nesting of blocks without fusible ops stays linear).
    size_t fused = groups.size();
    for (size_t i = 0; i < size; ++i) {
      const Node& n = *nodes[i];
      if (!claimed.count(&n) && (fusible(n) || (untyped_ && untypedFusible(n)))) groups.push_back({i});
    }
    if (groups.size() < 2) {
      groups.resize(fused);
      return groups;
    }
    std::sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x.back() < y.back(); });
    std::vector<size_t> groupAt(size, SIZE_MAX), parent(groups.size());
    std::vector<bool> typed(groups.size()), mergeable(groups.size());
    std::vector<ir::DimList> shape(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      parent[g] = g;
      bool t = false;
      mergeable[g] = plain(b, groups[g], t, shape[g]);
      typed[g] = t;
      for (size_t m : groups[g]) groupAt[m] = g;
    }
    auto find = [&](size_t g) {
      while (parent[g] != g) g = parent[g] = parent[parent[g]];
      return g;
    };
    // The positions of each block value's users (a use inside a nested
    // block counts at the node holding it).
    std::unordered_map<const ir::Value*, std::vector<size_t>> usersOf;
    std::function<void(const Node&, size_t)> collect = [&](const Node& n, size_t at) {
      for (const ir::Value* v : n.operands())
        if (v->def() && v->def()->parent() == &b) usersOf[v].push_back(at);
      for (size_t k = 0; k < n.numBlocks(); ++k)
        for (const auto& inner : n.block(k)->nodes()) collect(*inner, at);
    };
    for (size_t i = 0; i < size; ++i) collect(*nodes[i], i);
    std::vector<char> inUnion(size, 0);
    std::unordered_map<const ir::Value*, std::vector<size_t>> readers;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (!mergeable[g]) continue;
      std::vector<size_t> candidates;
      std::vector<const ir::Value*> read;
      for (size_t m : groups[g])
        for (const ir::Value* v : nodes[m]->operands()) {
          const Node* d = v->def();
          if (d && d->parent() == &b && groupAt[position.at(d)] != SIZE_MAX) {
            size_t a = find(groupAt[position.at(d)]);
            if (a != g) candidates.push_back(a);
          }
          if (typed[g] ? !knownTensor(v->type()) : isNumberKind(v->type().kind)) continue;
          read.push_back(v);
          const std::vector<size_t>& r = readers[v];
          for (size_t k = r.size() > kReaders ? r.size() - kReaders : 0; k < r.size(); ++k) candidates.push_back(find(r[k]));
        }
      std::sort(candidates.begin(), candidates.end(), [&](size_t x, size_t y) { return groups[x].back() > groups[y].back(); });
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      for (size_t a : candidates) {
        a = find(a);
        if (a == g || !mergeable[a] || typed[a] != typed[g] || (typed[g] && shape[a] != shape[g])) continue;
        if (groups[a].size() + groups[g].size() > kMaxMerged) continue;
        if (!joins(b, groups[a], groups[g], usersOf, inUnion)) continue;
        std::vector<size_t> both;
        std::merge(groups[a].begin(), groups[a].end(), groups[g].begin(), groups[g].end(), std::back_inserter(both));
        groups[g] = std::move(both);
        groups[a].clear();
        parent[a] = g;
      }
      for (const ir::Value* v : read) {
        std::vector<size_t>& r = readers[v];
        if (r.empty() || find(r.back()) != g) r.push_back(g);
      }
    }
    std::vector<std::vector<size_t>> out;
    for (auto& g : groups)
      if (g.size() >= 2) out.push_back(std::move(g));
    return out;
  }

  // Whether group `early` may join group `late` (merge's conditions).
  bool joins(const ir::Block& b, const std::vector<size_t>& early, const std::vector<size_t>& late,
             const std::unordered_map<const ir::Value*, std::vector<size_t>>& usersOf, std::vector<char>& inUnion) {
    const auto& nodes = b.nodes();
    const size_t root = late.back();
    for (size_t m : early) inUnion[m] = 1;
    for (size_t m : late) inUnion[m] = 1;
    bool ok = true;
    size_t results = 0, firstRaising = SIZE_MAX;
    auto usedOutside = [&](size_t m, bool& beforeRoot) {
      bool outside = false;
      auto it = usersOf.find(nodes[m]->result(0));
      if (it != usersOf.end())
        for (size_t at : it->second)
          if (!inUnion[at]) {
            outside = true;
            beforeRoot = beforeRoot || at <= root;
          }
      return outside;
    };
    for (size_t m : early) {
      bool before = false;
      results += usedOutside(m, before);
      ok = ok && !before;
      if (firstRaising == SIZE_MAX && mayRaise(*nodes[m])) firstRaising = m;
    }
    for (size_t m : late) {
      bool before = false;
      results += usedOutside(m, before);
    }
    ok = ok && results <= kMaxResults;
    if (ok && firstRaising != SIZE_MAX) {
      ok = root - firstRaising <= kMaxMoveSpan;
      for (size_t at = firstRaising + 1; ok && at < root; ++at)
        ok = inUnion[at] || !(hasEffect(*nodes[at]) || mayRaise(*nodes[at]));
    }
    for (size_t m : early) inUnion[m] = 0;
    for (size_t m : late) inUnion[m] = 0;
    return ok;
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
    std::unordered_map<const ir::Value*, size_t> internalUses;
    for (size_t m : members) internalUses[nodes[m]->result(0)] = 0;
    for (size_t m : members)
      for (const ir::Value* v : nodes[m]->operands())
        if (auto it = internalUses.find(v); it != internalUses.end()) ++it->second;
    // The results: each member value used outside the group, in member
    // order (the root's alone for a group of one result).
    std::vector<Node*> outputs;
    for (size_t m : members)
      if (internalUses.at(nodes[m]->result(0)) < uses_[nodes[m]->result(0)]) outputs.push_back(nodes[m].get());
    if (outputs.empty()) outputs.push_back(&root);
    // The fused node takes over those members' results; each of them gets
    // a new one inside, which the members after it read and the body
    // yields, so outer uses need no rewiring.
    std::unordered_map<const ir::Value*, ir::Value*> innerOf;
    std::vector<ir::Value*> yielded;
    for (Node* n : outputs) {
      ir::Type type = n->result(0)->type();
      const ir::Value* outer = n->result(0);
      fused->adoptResults(*n);
      yielded.push_back(innerOf[outer] = n->addResult(type));
    }
    std::unordered_map<const ir::Value*, ir::Value*> argOf;
    for (size_t m : members) {
      Node& n = *nodes[m];
      for (size_t k = 0; k < n.operands().size(); ++k) {
        ir::Value* v = n.operand(k);
        if (auto inner = innerOf.find(v); inner != innerOf.end()) {
          n.setOperand(k, inner->second);
          continue;
        }
        if (internalUses.count(v)) continue;
        auto [it, fresh] = argOf.emplace(v, nullptr);
        if (fresh) {
          fused->addOperand(v);
          it->second = body->addArg(v->type());
        }
        n.setOperand(k, it->second);
      }
    }
    for (size_t m : members) {
      Node* n = body->append(std::move(nodes[m]));
      n->result(0)->setOwner(body);
    }
    ir::build(body, Op::Yield, root.loc(), yielded, 0);
    return fused;
  }

  // merge's bounds: readers of a tensor looked at, results and members
  // of a multi-result group (the runtime's kernels take at most 8 results:
  // jit::kMaxFusedResults).
  static constexpr size_t kReaders = 4, kMaxResults = 8, kMaxMerged = 64;

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
