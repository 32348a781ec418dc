// builtin-ops: calls of the elementwise tensor builtins become IR ops.
//
// `call (builtin "relu"), %x` calling an op marked ELEM (the op table
// says which builtin is which op), with no keyword arguments, the op's
// arity and at least one tensor operand (known from type inference) is
// replaced by `relu %x`: the same runtime function runs either way (the
// interpreter dispatches both to mathUnary/mathBinary/whereOp), but as an
// op the node gets a type rule, takes part in folding, simplification and
// CSE, and is not an opaque call with effects. Builtins of the same name on
// Python numbers (abs, round: PYTHON ops) keep Python's semantics by
// staying calls.
//
// Method calls on tensors whose method is a builtin's op (METHOD and FUNC
// or PYTHON: x.sum() is sum(x)) first become builtin calls, so they get the
// op's shape rule and no bound-method object is made per call.
//
// Invariants: only calls of `builtin` nodes and of tensor methods change;
// the result value is kept (uses need no rewiring).
#include <memory>

#include "ir/builtins.h"
#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

// A tensor method that is also a builtin function value.
bool methodIsBuiltin(const std::string& name) {
  std::optional<ir::Op> op = ir::methodOp(name);
  return op && (ir::hasTrait(*op, ir::FUNC) || ir::hasTrait(*op, ir::PYTHON));
}

// call (getattr %x NAME), args... -> call (builtin NAME), %x, args...
bool methodToBuiltin(ir::Block& b, size_t& i) {
  ir::Node& n = *b.mutableNodes()[i];
  if (n.op() != ir::Op::Call) return false;
  const ir::Node* attr = n.operand(0)->def();
  if (!attr || attr->op() != ir::Op::GetAttr || !attr->operand(0)->type().isTensor() ||
      !methodIsBuiltin(attr->strAttr("name")))
    return false;
  auto builtin = std::make_unique<ir::Node>(ir::Op::Builtin, attr->loc());
  builtin->setAttr("name", attr->strAttr("name"));
  builtin->setParent(&b);
  ir::Value* fn = builtin->addResult(ir::TypeKind::Func);
  std::vector<ir::Value*> operands{fn, attr->operand(0)};
  for (size_t k = 1; k < n.operands().size(); ++k) operands.push_back(n.operand(k));
  for (size_t k = 0; k < operands.size(); ++k) {
    if (k < n.operands().size()) n.setOperand(k, operands[k]);
    else n.addOperand(operands[k]);
  }
  auto& nodes = b.mutableNodes();
  nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(i), std::move(builtin));
  ++i;
  return true;
}

bool rewriteBlock(ir::Block& b) {
  bool changed = false;
  auto& nodes = b.mutableNodes();
  for (size_t idx = 0; idx < nodes.size(); ++idx) {
    changed |= methodToBuiltin(b, idx);
    auto& owned = nodes[idx];
    ir::Node& n = *owned;
    for (size_t i = 0; i < n.numBlocks(); ++i) changed |= rewriteBlock(*n.block(i));
    std::optional<ir::Op> called = ir::calledOp(n);
    if (!called || !ir::hasTrait(*called, ir::ELEM) || !n.strListAttr("kw").empty()) continue;
    ir::Op op = *called;
    size_t nargs = n.operands().size() - 1;
    const ir::OpInfo& info = ir::opInfo(op);
    if (static_cast<int>(nargs) < info.minOperands || static_cast<int>(nargs) > info.maxOperands) continue;
    bool tensor = false;
    for (size_t i = 1; i <= nargs; ++i) tensor |= n.operand(i)->type().isTensor();
    if (!tensor) continue;
    auto replacement = std::make_unique<ir::Node>(op, n.loc());
    for (size_t i = 1; i <= nargs; ++i) replacement->addOperand(n.operand(i));
    replacement->adoptResults(n);
    replacement->setParent(&b);
    owned = std::move(replacement);
    changed = true;
  }
  return changed;
}

}  // namespace

bool builtinOps(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) { return rewriteBlock(*f.body()); });
}

}  // namespace nn::passes
