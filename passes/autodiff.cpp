// autodiff: graph mode's reverse mode as an IR transformation. Each
// `%g... = autodiff %out, %w...` node is replaced by the backward pass of
// the code before it in its block, and its results by the adjoints of the
// `w` values (passes/reverse_mode.h builds the backward from the rules
// beside the op table; an `if` gets a backward `if` on its saved
// predicate). The passes after it optimise forward and backward together:
// CSE shares their common terms, DCE drops forward values nothing needs,
// and type inference checks the backward's shapes at compile time, at the
// forward operations' source lines (the backward nodes carry them).
//
// The seed is 1 of the output's type: the output must be a float or a 0-d
// floating tensor (a tensor of known other shape is a located error). A
// `w` no path reaches gets zeros of its type.
//
// Algorithm: for each autodiff node (program order, nested blocks
// included), the nodes after it are set aside, the backward is appended
// where the node was, uses of its results are rewired, and the set-aside
// nodes follow again. Code that cannot be differentiated here throws
// NotDifferentiable (the runtime then differentiates with its tape).
//
// Invariants: after the pass no autodiff node remains; forward nodes are
// unchanged except for the results ifs gain for saved values.
#include <unordered_map>

#include "ir/type_rules.h"
#include "passes/passes.h"
#include "passes/reverse_mode.h"

namespace nn::passes {
namespace {

using ir::Node;
using ir::Op;
using ir::Value;

Node* findAutodiff(ir::Block& b) {
  for (const auto& n : b.nodes()) {
    if (n->op() == Op::Autodiff) return n.get();
    for (size_t k = 0; k < n->numBlocks(); ++k)
      if (Node* inner = findAutodiff(*n->block(k))) return inner;
  }
  return nullptr;
}

Value* typed(Node* n) {
  n->setBackward();
  n->result(0)->setType(ir::resultType(*n, 0));
  return n->result(0);
}

// 1 of the output's type (the adjoint of the output itself).
Value* seedFor(ir::Block& b, const Node& at, Value* out) {
  ir::Type t = out->type();
  if (t.kind == ir::TypeKind::Float) {
    Node* c = ir::build(&b, Op::Const, at.loc(), {}, 1);
    c->setAttr("value", 1.0);
    return typed(c);
  }
  if (t.isTensor() && t.shape && !t.shape->empty())
    fail(at.loc(), "grad: the function must return a scalar (a float or a 0-d floating tensor) to differentiate, not " +
                       t.str());
  if (t.isTensor() && t.dtype && !ir::isFloating(*t.dtype))
    fail(at.loc(), "grad: the function must return a scalar (a float or a 0-d floating tensor) to differentiate, not " +
                       t.str());
  if (!t.isTensor() || !t.shape)
    throw NotDifferentiable("graph mode differentiates a result of known type only, not " + t.str(), at.loc());
  Node* ones = ir::build(&b, Op::OnesLike, at.loc(), {out}, 1);
  ones->setAttr("dtype", ir::NoneAttr{});
  return typed(ones);
}

void expand(ir::Function& f, Node& node) {
  ir::Block& b = *node.parent();
  auto& nodes = b.mutableNodes();
  size_t at = 0;
  while (nodes[at].get() != &node) ++at;
  std::vector<std::unique_ptr<Node>> after;
  for (size_t i = at + 1; i < nodes.size(); ++i) after.push_back(std::move(nodes[i]));
  std::unique_ptr<Node> self = std::move(nodes[at]);
  nodes.resize(at);

  ReverseRequest r;
  for (const auto& n : nodes) r.nodes.push_back(n.get());
  r.output = node.operand(0);
  for (size_t i = 1; i < node.operands().size(); ++i) r.wrt.push_back(node.operand(i));
  r.primal = [](const Value* v) { return const_cast<Value*>(v); };
  r.seed = seedFor(b, node, node.operand(0));
  std::vector<Value*> adjoints = reverseMode(b, r);
  std::unordered_map<const Value*, Value*> uses;
  for (size_t i = 0; i < adjoints.size(); ++i)
    uses[node.result(i)] = adjoints[i] ? adjoints[i] : zeroAdjoint(b, node.loc(), node.operand(i + 1));
  for (auto& n : after) b.append(std::move(n));
  ir::replaceUses(f, uses);
}

}  // namespace

bool autodiff(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) {
    bool changed = false;
    while (Node* n = findAutodiff(*f.body())) {
      expand(f, *n);
      changed = true;
    }
    return changed;
  });
}

}  // namespace nn::passes
