// cse: common-subexpression elimination.
//
// Algorithm: a walk over each function in program order with a scoped
// table of structural node keys (ir/node_key.h). A node whose key is in the
// table (from an earlier node of the same block or of an enclosing block,
// which dominate it) is dropped and its results replaced by the earlier
// node's; otherwise it is entered. Entries made inside a nested block are
// removed when the block ends, as its values are not visible after it.
//
// What may merge: deterministic nodes without effects and without blocks —
// not effects (print, globals, RNG, I/O, unknown calls), not make_list /
// make_dict / make_closure (each evaluation is a new object whose identity
// is visible), arithmetic only with a value result (list + list is a new
// list each time; an untyped `a + b` may be one), reads of a container or attribute only when the container
// cannot change (a tensor, str or tuple: a list may be changed through an
// alias between two reads), and calls only of effect-free builtins on
// immutable arguments whose result is a value type (tensor, number, bool,
// str, none; a builtin returning a list gives a new list each time). A
// node that may raise may merge: the first one raises before the second
// would.
//
// Invariants: uses are rewired to a value that dominates them; the number
// of effects and their order are unchanged.
#include <unordered_map>
#include <unordered_set>

#include "ir/node_key.h"
#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Op;

bool valueType(const ir::Type& t) {
  switch (t.kind) {
    case ir::TypeKind::Tensor: case ir::TypeKind::Int: case ir::TypeKind::Float: case ir::TypeKind::Bool:
    case ir::TypeKind::Str: case ir::TypeKind::None: return true;
    default: return false;
  }
}

// Values that cannot change after they are made (a list can, through any
// alias, so two reads of one list value may differ).
bool immutable(const ir::Value* v) { return valueType(v->type()); }

bool mergeable(const ir::Node& n) {
  if (n.numBlocks() > 0 || ir::hasTrait(n.op(), ir::TERM) || hasEffect(n) || makesFreshObject(n)) return false;
  switch (n.op()) {
    case Op::Undef: return false;
    default:
      // An arithmetic op whose result may be a container makes a new one
      // each time (list + list, dict | dict), or may read one that changed
      // meanwhile: only a value result merges.
      if (ir::hasTrait(n.op(), ir::ELEM)) return valueType(n.result(0)->type());
      if (!ir::isTensorOp(n.op())) return true;
      // As for calls: a tensor op reading a list (concat) may see it
      // change between two reads; one making a list (split) makes a fresh
      // one each time.
      for (const ir::Value* v : n.operands())
        if (!immutable(v)) return false;
      return valueType(n.result(0)->type());
    case Op::Call:
      for (size_t i = 1; i < n.operands().size(); ++i)
        if (!immutable(n.operand(i))) return false;
      return valueType(n.result(0)->type());
    // Reads of containers and attributes (module attributes change too).
    case Op::GetItem: case Op::GetAttr: case Op::Iter: case Op::IterLen: case Op::IterItem: case Op::Unpack:
      return immutable(n.operand(0)) || n.operand(0)->type().kind == ir::TypeKind::Tuple;
    case Op::In: case Op::NotIn: return immutable(n.operand(1)) || n.operand(1)->type().kind == ir::TypeKind::Tuple;
  }
}

class Cse {
 public:
  std::unordered_map<const ir::Value*, ir::Value*> replaced;

  void block(ir::Block& b) {
    std::vector<ir::NodeKey> entered;
    auto& nodes = b.mutableNodes();
    // Kept nodes are compacted to the front in one pass (erasing each
    // merged node would make a long block quadratic).
    size_t kept = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      ir::Node& n = *nodes[i];
      // Operands first: an earlier merge may have made two keys equal.
      ir::replaceOperands(n, replaced);
      for (size_t k = 0; k < n.numBlocks(); ++k) block(*n.block(k));
      if (mergeable(n)) {
        ir::NodeKey key(n);
        auto it = table_.find(key);
        if (it != table_.end()) {
          for (size_t r = 0; r < n.numResults(); ++r) replaced[n.result(r)] = it->node->result(r);
          continue;  // dropped when the kept nodes close up over it
        }
        table_.insert(key);
        entered.push_back(key);
      }
      if (kept != i) nodes[kept] = std::move(nodes[i]);
      ++kept;
    }
    nodes.resize(kept);
    for (const ir::NodeKey& k : entered) table_.erase(k);
  }

 private:
  std::unordered_set<ir::NodeKey, ir::NodeKeyHash> table_;
};

}  // namespace

bool commonSubexpressions(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) {
    Cse cse;
    cse.block(*f.body());
    return !cse.replaced.empty();
  });
}

}  // namespace nn::passes
