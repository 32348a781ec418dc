// fold-constants: nodes whose operands are all constants become constants.
//
// Algorithm: one walk in program order (nested blocks included); a node
// with no effect and no blocks whose operands are all `const` nodes is
// evaluated by the runtime's own code through the evaluator the runtime
// provides (PassContext::evaluator) — so folding computes exactly what the
// interpreter would, Python's int overflow and float formatting included.
// The node is replaced by a `const` holding the result, keeping its result
// value so uses need no rewiring. Folding repeats within the walk because
// later nodes see the constants made by earlier ones.
//
// Shape facts fold too: `x.ndim`, `x.shape[k]` (k a constant) and
// `x.numel()` become constants when x's type knows them, so shape
// arithmetic in a specialised function is typed (an int, not any) and
// folds further; so does `type(x)` (a type check of an argument in a
// version for its type), and `x is None` where x's type is known (a None
// default given or not).
//
// Never folded: effects; nodes whose evaluation raises (1 // 0 stays, to
// fail at run time at its own location); results that are NaN (kept as a
// computation, as a NaN constant would not compare equal to itself in the
// structural key) or that are not literals (tuples, tensors).
//
// Invariants: a folded node's result type is its literal's type; without
// an evaluator the pass changes nothing.
#include <memory>

#include "ir/builtins.h"
#include "ir/type_rules.h"
#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

// A `const` of `value` taking over n's result.
std::unique_ptr<ir::Node> constantFor(ir::Block& b, ir::Node& n, const ir::Attr& value) {
  auto c = std::make_unique<ir::Node>(ir::Op::Const, n.loc());
  c->setAttr("value", value);
  c->adoptResults(n);
  c->setParent(&b);
  c->result(0)->setType(ir::resultType(*c, 0));
  return c;
}

// The value of `x.ndim` or `x.shape[k]` when the tensor type of x knows it.
std::optional<int64_t> shapeFact(const ir::Node& n) {
  auto tensorShape = [](const ir::Node* get, const char* name) -> std::optional<ir::DimList> {
    if (!get || get->op() != ir::Op::GetAttr || get->strAttr("name") != name) return std::nullopt;
    ir::Type t = get->operand(0)->type();
    return t.isTensor() ? t.shape : std::nullopt;
  };
  if (std::optional<ir::DimList> s = tensorShape(&n, "ndim")) return static_cast<int64_t>(s->size());
  if (n.op() != ir::Op::GetItem) return std::nullopt;
  std::optional<ir::DimList> s = tensorShape(n.operand(0)->def(), "shape");
  const ir::Node* index = n.operand(1)->def();
  if (!s || !index || index->op() != ir::Op::Const) return std::nullopt;
  const int64_t* k = std::get_if<int64_t>(index->attr("value"));
  if (!k) return std::nullopt;
  int64_t rank = static_cast<int64_t>(s->size()), at = *k < 0 ? *k + rank : *k;
  if (at < 0 || at >= rank || !(*s)[at].isKnown()) return std::nullopt;  // out of range: the runtime raises
  return (*s)[at].size;
}

// The value of `x.numel()` when the tensor type of x knows every size.
std::optional<int64_t> numelFact(const ir::Node& n) {
  if (n.op() != ir::Op::Call || n.operands().size() != 1 || !n.strListAttr("kw").empty()) return std::nullopt;
  const ir::Node* get = n.operand(0)->def();
  if (!get || get->op() != ir::Op::GetAttr || get->strAttr("name") != "numel") return std::nullopt;
  ir::Type t = get->operand(0)->type();
  if (!t.hasStaticShape()) return std::nullopt;
  int64_t count = 1;
  for (const ir::Dim& d : *t.shape) count *= d.size;
  return count;
}

// The value of `type(x)` when x's type names its runtime type (the names
// runtime typeName gives; a function's depends on its kind, unknown here).
std::optional<std::string> typeFact(const ir::Node& n) {
  if (n.op() != ir::Op::Call || n.operands().size() != 2 || !n.strListAttr("kw").empty() ||
      ir::calledFunction(n) != ir::Builtin::Type)
    return std::nullopt;
  switch (n.operand(1)->type().kind) {
    case ir::TypeKind::Int: return "int";
    case ir::TypeKind::Float: return "float";
    case ir::TypeKind::Bool: return "bool";
    case ir::TypeKind::Str: return "str";
    case ir::TypeKind::None: return "NoneType";
    case ir::TypeKind::Tuple: return "tuple";
    case ir::TypeKind::List: return "list";
    case ir::TypeKind::Dict: return "dict";
    case ir::TypeKind::Tensor: return "Tensor";
    default: return std::nullopt;
  }
}

// The value of `x is None` / `x is not None` (either side) when the
// types decide it: None is None, and a value of any other known kind is
// not (a default of None in a version where the argument was given).
std::optional<bool> noneFact(const ir::Node& n) {
  if (n.op() != ir::Op::Is && n.op() != ir::Op::IsNot) return std::nullopt;
  ir::TypeKind a = n.operand(0)->type().kind, b = n.operand(1)->type().kind;
  if (a != ir::TypeKind::None) std::swap(a, b);
  if (a != ir::TypeKind::None || b == ir::TypeKind::Any) return std::nullopt;
  return (b == ir::TypeKind::None) == (n.op() == ir::Op::Is);
}

bool foldBlock(ir::Block& b, ConstantEvaluator evaluate) {
  bool changed = false;
  for (auto& owned : b.mutableNodes()) {
    ir::Node& n = *owned;
    for (size_t i = 0; i < n.numBlocks(); ++i) changed |= foldBlock(*n.block(i), evaluate);
    if (std::optional<std::string> name = typeFact(n)) {
      owned = constantFor(b, n, *name);
      changed = true;
      continue;
    }
    if (std::optional<int64_t> count = numelFact(n)) {
      owned = constantFor(b, n, *count);
      changed = true;
      continue;
    }
    if (n.op() == ir::Op::Const || n.numBlocks() > 0 || n.numResults() != 1 || n.operands().empty() ||
        ir::hasTrait(n.op(), ir::TERM) || hasEffect(n) || n.op() == ir::Op::Call)
      continue;
    if (std::optional<bool> fact = noneFact(n)) {
      owned = constantFor(b, n, *fact);
      changed = true;
      continue;
    }
    if (std::optional<int64_t> fact = shapeFact(n)) {
      owned = constantFor(b, n, *fact);
      changed = true;
      continue;
    }
    std::vector<ir::Attr> values;
    for (const ir::Value* v : n.operands()) {
      const ir::Node* d = v->def();
      if (!d || d->op() != ir::Op::Const) break;
      const ir::Attr* a = d->attr("value");
      values.push_back(a ? *a : ir::Attr(ir::NoneAttr{}));
    }
    if (values.size() != n.operands().size()) continue;
    std::optional<ir::Attr> result = evaluate(n, values);
    if (!result) continue;
    owned = constantFor(b, n, *result);
    changed = true;
  }
  return changed;
}

}  // namespace

bool foldConstants(ir::Graph& g, PassContext& ctx) {
  if (!ctx.evaluator) return false;
  return rewriteFunctions(g, [&](ir::Function& f) { return foldBlock(*f.body(), ctx.evaluator); });
}

}  // namespace nn::passes
