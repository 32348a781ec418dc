// simplify: algebraic identities that hold exactly for the operand types.
//
//   x * 1, 1 * x, x / 1, x - 0  -> x   (numbers and tensors whose type the
//                                      op leaves unchanged: bool * 1 is an
//                                      int, so it stays)
//   x + 0, 0 + x                -> x   (ints and integer tensors only: for
//                                      floats -0.0 + 0 is +0.0; x + -0.0
//                                      is exact and also folds)
//   -(-x)                       -> x   (floats and non-bool tensors; for a
//                                      Python int -(-min) raises)
//   x / c -> x * (1/c)                 (float x, c a power of two whose
//                                      reciprocal is exact in the dtype)
//   (x.T).T, transpose(transpose(x)) -> x  (tensors)
//   reshape(reshape(x, a), b)   -> reshape(x, b) (when the inner reshape's
//                                      shape is fully known, so it cannot
//                                      fail)
//
// Algorithm: one walk in program order; operands are first redirected to
// earlier replacements, then the rules are tried on the node. A replaced
// node is removed (it is equivalent to its replacement, so it could not
// raise); nodes a rewrite leaves unused are left to dce.
//
// Invariants: every rewrite preserves the value bit for bit and its type.
#include <cmath>
#include <memory>
#include <unordered_map>

#include "passes/effects.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Op;
using ir::Type;
using ir::TypeKind;

const ir::Attr* constAttr(const ir::Value* v) {
  const ir::Node* d = v->def();
  return d && d->op() == Op::Const ? d->attr("value") : nullptr;
}

// The constant's numeric value, if it is an int or float literal.
std::optional<double> constNumber(const ir::Value* v) {
  const ir::Attr* a = constAttr(v);
  if (!a) return std::nullopt;
  if (auto* i = std::get_if<int64_t>(a)) return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(a)) return *d;
  return std::nullopt;
}

bool isConst(const ir::Value* v, double want, bool allowNegZero = true) {
  auto c = constNumber(v);
  if (!c || *c != want) return false;
  return allowNegZero || !std::signbit(*c);
}

bool numericOrTensor(const Type& t) {
  return t.kind == TypeKind::Int || t.kind == TypeKind::Float || (t.isTensor() && t.dtype);
}

bool floating(const Type& t) {
  return t.kind == TypeKind::Float || (t.isTensor() && t.dtype && ir::isFloating(*t.dtype));
}

bool integral(const Type& t) {
  return t.kind == TypeKind::Int || (t.isTensor() && t.dtype && ir::isIntegral(*t.dtype));
}

// `x` when the node's result has exactly x's type.
ir::Value* sameType(const ir::Node& n, ir::Value* x) {
  return numericOrTensor(x->type()) && n.result(0)->type() == x->type() ? x : nullptr;
}

const std::string& builtinCalled(const ir::Node& n) { return calledBuiltin(n); }

ir::Value* identity(const ir::Node& n) {
  switch (n.op()) {
    case Op::Mul:
      if (isConst(n.operand(1), 1)) return sameType(n, n.operand(0));
      if (isConst(n.operand(0), 1)) return sameType(n, n.operand(1));
      return nullptr;
    case Op::Div:
      if (isConst(n.operand(1), 1) && floating(n.operand(0)->type())) return sameType(n, n.operand(0));
      return nullptr;
    case Op::Sub:
      if (isConst(n.operand(1), 0)) return sameType(n, n.operand(0));
      return nullptr;
    case Op::Add:
      for (int side = 0; side < 2; ++side) {
        ir::Value* x = n.operand(1 - side);
        const ir::Value* c = n.operand(side);
        bool exact = integral(x->type()) ? isConst(c, 0) : isConst(c, 0) && std::signbit(*constNumber(c));
        if (exact) return sameType(n, x);
      }
      return nullptr;
    case Op::Neg: {
      const ir::Node* inner = n.operand(0)->def();
      if (!inner || inner->op() != Op::Neg) return nullptr;
      ir::Value* x = inner->operand(0);
      const Type& t = x->type();
      bool ok = t.kind == TypeKind::Float || (t.isTensor() && t.dtype && *t.dtype != ir::DType::Bool);
      return ok ? sameType(n, x) : nullptr;
    }
    case Op::GetAttr: {
      const ir::Node* inner = n.operand(0)->def();
      if (n.strAttr("name") != "T" || !inner || inner->op() != Op::GetAttr || inner->strAttr("name") != "T")
        return nullptr;
      return inner->operand(0)->type().isTensor() ? inner->operand(0) : nullptr;
    }
    case Op::Call: {
      if (builtinCalled(n) != "transpose" || n.operands().size() != 2 || !n.strListAttr("kw").empty()) return nullptr;
      const ir::Node* inner = n.operand(1)->def();
      if (!inner || builtinCalled(*inner) != "transpose" || inner->operands().size() != 2 ||
          !inner->strListAttr("kw").empty())
        return nullptr;
      return inner->operand(1)->type().isTensor() ? inner->operand(1) : nullptr;
    }
    default: return nullptr;
  }
}

bool fullyKnown(const Type& t) {
  if (!t.isTensor() || !t.shape) return false;
  for (const ir::Dim& d : *t.shape)
    if (!d.isKnown()) return false;
  return true;
}

class Simplifier {
 public:
  std::unordered_map<const ir::Value*, ir::Value*> replaced;
  bool changed = false;

  void block(ir::Block& b) {
    auto& nodes = b.mutableNodes();
    for (size_t i = 0; i < nodes.size();) {
      ir::Node& n = *nodes[i];
      ir::replaceOperands(n, replaced);
      for (size_t k = 0; k < n.numBlocks(); ++k) block(*n.block(k));
      if (n.numResults() == 1 && n.numBlocks() == 0) {
        if (ir::Value* x = identity(n)) {
          replaced[n.result(0)] = x;
          nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
          changed = true;
          continue;
        }
        i += rewrite(b, i);
        continue;
      }
      ++i;
    }
  }

 private:
  // Rewrites in place; returns how far to advance (a node inserted before
  // the current one shifts it).
  size_t rewrite(ir::Block& b, size_t i) {
    ir::Node& n = *b.mutableNodes()[i];
    if (n.op() == Op::Div) return divByPowerOfTwo(b, i);
    if (n.op() == Op::Call && builtinCalled(n) == "reshape" && n.operands().size() >= 3 && n.strListAttr("kw").empty()) {
      const ir::Node* inner = n.operand(1)->def();
      if (inner && builtinCalled(*inner) == "reshape" && inner->strListAttr("kw").empty() &&
          fullyKnown(inner->result(0)->type()) && inner->operand(1)->type().isTensor()) {
        n.setOperand(1, inner->operand(1));
        changed = true;
      }
    }
    return 1;
  }

  size_t divByPowerOfTwo(ir::Block& b, size_t i) {
    ir::Node& n = *b.mutableNodes()[i];
    const Type& x = n.operand(0)->type();
    auto c = constNumber(n.operand(1));
    if (!c || !floating(x) || !std::isfinite(*c) || *c == 0) return 1;
    int exp;
    double mant = std::frexp(*c, &exp);
    if (std::fabs(mant) != 0.5) return 1;  // not a power of two
    // The reciprocal 2^(1-exp) must be a normal number of the dtype (f32
    // when x is an f32 tensor), as must c itself.
    int limit = x.isTensor() && *x.dtype == ir::DType::F32 ? 126 : 1022;
    if (exp - 1 > limit || 1 - exp > limit) return 1;
    double recip = 1.0 / *c;
    auto k = std::make_unique<ir::Node>(Op::Const, n.loc());
    k->setAttr("value", recip);
    k->setParent(&b);
    ir::Value* r = k->addResult(TypeKind::Float);
    auto mul = std::make_unique<ir::Node>(Op::Mul, n.loc());
    mul->addOperand(n.operand(0));
    mul->addOperand(r);
    mul->adoptResults(n);
    mul->setParent(&b);
    auto& nodes = b.mutableNodes();
    nodes[i] = std::move(mul);
    nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(i), std::move(k));
    changed = true;
    return 2;
  }
};

}  // namespace

bool simplify(ir::Graph& g) {
  return rewriteFunctions(g, [](ir::Function& f) {
    Simplifier s;
    s.block(*f.body());
    return s.changed;
  });
}

}  // namespace nn::passes
