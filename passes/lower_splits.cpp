// lower-splits: split and chunk of a tensor whose length along the axis is
// known become a list of slices of it.
//
// `split %x, sizes {axis}` (sizes a constant int, or a list or tuple of
// constant ints) and `chunk %x {chunks, axis}` return a list of views of x
// along `axis`; when x's length there is known the pieces' bounds are
// known too, so the node becomes `make_list` of `getitem %x, (:, ...,
// start:stop)`, one per piece, with the sizes the runtime computes
// (split by an int: pieces of that size, the last one shorter; chunk:
// pieces of ceil(len / chunks), as PyTorch). The slices are typed and
// differentiable (index_grad), and forward-elements (run again after this
// pass) gives `a, b = x.split(...)` the slices themselves, so a loss
// through split or chunk differentiates as IR in graph mode.
//
// Left alone (the runtime raises at the node's own location): an unknown
// rank or length, an axis out of range, sizes that are not constant,
// negative, or do not add up to the length, a non-positive chunk count or
// chunk size; and more than kMaxPieces pieces (a slice node each would
// bloat the graph; the runtime makes them as views).
//
// Algorithm: one walk over every block; a lowered node is replaced in
// place by the constants, slices and the make_list (which adopts its
// result, so uses need no rewiring). Invariants: the value is the same
// list of the same views, so both modes agree element for element.
#include <memory>
#include <optional>

#include "ir/op_args.h"
#include "ir/shape_rules.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Node;
using ir::Op;
using Nodes = std::vector<std::unique_ptr<Node>>;

constexpr int64_t kMaxPieces = 4096;

// The pieces' sizes along an axis of length `len`, or nullopt when the
// runtime would raise (or the sizes are not constants).
std::optional<std::vector<int64_t>> pieceSizes(const Node& n, int64_t len) {
  std::optional<int64_t> size;
  if (n.op() == Op::Chunk) {
    int64_t chunks = n.intAttr("chunks");
    if (chunks <= 0) return std::nullopt;
    size = ir::shape_rules::chunkSize(len, chunks);
  } else {
    size = ir::constInt(n.operand(1));
  }
  if (size) {
    if (*size <= 0 || len / *size >= kMaxPieces) return std::nullopt;
    return ir::shape_rules::evenSplit(len, *size);
  }
  const ir::Value* sizesArg = n.operand(1);
  const Node* list = sizesArg->def();
  if (!list || (list->op() != Op::MakeList && list->op() != Op::MakeTuple)) return std::nullopt;
  std::vector<int64_t> sizes;
  int64_t total = 0;
  for (const ir::Value* v : list->operands()) {
    std::optional<int64_t> s = ir::constInt(v);
    if (!s || *s < 0) return std::nullopt;
    sizes.push_back(*s);
    if (__builtin_add_overflow(total, *s, &total)) return std::nullopt;
  }
  if (total != len) return std::nullopt;
  return sizes;
}

class Lowering {
 public:
  bool block(ir::Block& b) {
    bool changed = false;
    Nodes out;
    out.reserve(b.nodes().size());
    for (std::unique_ptr<Node>& owned : b.mutableNodes()) {
      Node& n = *owned;
      for (size_t k = 0; k < n.numBlocks(); ++k) changed |= block(*n.block(k));
      if ((n.op() == Op::Split || n.op() == Op::Chunk) && lower(b, n, out)) {
        changed = true;
        continue;
      }
      out.push_back(std::move(owned));
    }
    b.mutableNodes() = std::move(out);
    return changed;
  }

 private:
  ir::Value* constant(ir::Block& b, const Node& at, ir::Attr value, ir::Type type, Nodes& out) {
    auto c = std::make_unique<Node>(Op::Const, at.loc());
    c->setAttr("value", std::move(value));
    c->setParent(&b);
    ir::Value* v = c->addResult(type);
    out.push_back(std::move(c));
    return v;
  }

  ir::Value* emit(ir::Block& b, const Node& at, Op op, const std::vector<ir::Value*>& operands, Nodes& out) {
    auto node = std::make_unique<Node>(op, at.loc());
    for (ir::Value* v : operands) node->addOperand(v);
    node->setParent(&b);
    ir::Value* v = node->addResult(op == Op::MakeTuple ? ir::Type(ir::TypeKind::Tuple) : ir::Type::any());
    out.push_back(std::move(node));
    return v;
  }

  bool lower(ir::Block& b, Node& n, Nodes& out) {
    ir::Value* x = n.operand(0);
    const ir::Type& t = x->type();
    if (!t.isTensor() || !t.shape || t.shape->empty()) return false;
    auto rank = static_cast<int64_t>(t.shape->size());
    int64_t axis = n.intAttr("axis");
    if (axis < -rank || axis >= rank) return false;
    if (axis < 0) axis += rank;
    const ir::Dim& dim = (*t.shape)[static_cast<size_t>(axis)];
    if (!dim.isKnown()) return false;
    std::optional<std::vector<int64_t>> sizes = pieceSizes(n, dim.size);
    if (!sizes) return false;

    ir::Value* none = constant(b, n, ir::NoneAttr{}, ir::TypeKind::None, out);
    ir::Value* all = axis > 0 ? emit(b, n, Op::MakeSlice, {none, none, none}, out) : nullptr;
    std::vector<ir::Value*> pieces;
    int64_t start = 0;
    for (int64_t size : *sizes) {
      ir::Value* from = constant(b, n, start, ir::TypeKind::Int, out);
      ir::Value* to = constant(b, n, start + size, ir::TypeKind::Int, out);
      std::vector<ir::Value*> index(static_cast<size_t>(axis), all);
      index.push_back(emit(b, n, Op::MakeSlice, {from, to, none}, out));
      pieces.push_back(emit(b, n, Op::GetItem, {x, emit(b, n, Op::MakeTuple, index, out)}, out));
      start += size;
    }
    auto list = std::make_unique<Node>(Op::MakeList, n.loc());
    for (ir::Value* p : pieces) list->addOperand(p);
    list->setParent(&b);
    list->adoptResults(n);
    out.push_back(std::move(list));
    return true;
  }
};

}  // namespace

bool lowerSplits(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) { return Lowering().block(*f.body()); });
}

}  // namespace nn::passes
