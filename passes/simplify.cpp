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
//   sum_to(x, like), broadcast_like(x, like), reshape_like(x, like) -> x
//                                      (the gradient ops, when x already
//                                      has the result's known type)
//   int(x), float(x), bool(x), str(x) -> x (x already an int, a float,
//                                      a bool, a str)
//   reshape(reshape(x, a), b)   -> reshape(x, b) (when the inner reshape's
//                                      shape is fully known, so it cannot
//                                      fail)
//
// Algorithm: one walk in program order that rebuilds each block's node
// list (linear); operands are first redirected to earlier replacements,
// then the rules are tried on the node. A replaced
// node is removed (it is equivalent to its replacement, so it could not
// raise); nodes a rewrite leaves unused are left to dce.
//
// Invariants: every rewrite preserves the value bit for bit and its type.
#include <cmath>
#include <memory>
#include <unordered_map>

#include "ir/builtins.h"
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

// transpose(x) or permute(x) with no axes (reversing them).
bool reversesAxes(const ir::Node& n) {
  const ir::Attr* axes = n.op() == Op::Transpose ? n.attr("axes") : n.op() == Op::Permute ? n.attr("dims") : nullptr;
  return axes && *axes == ir::Attr(ir::Ints{});
}

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
    case Op::Transpose:
    case Op::Permute: {
      const ir::Node* inner = n.operand(0)->def();
      if (!reversesAxes(n) || !inner || !reversesAxes(*inner)) return nullptr;
      return inner->operand(0)->type().isTensor() ? inner->operand(0) : nullptr;
    }
    case Op::SumTo:
    case Op::BroadcastLike:
    case Op::ReshapeLike:
      return n.operand(0)->type().hasStaticShape() ? sameType(n, n.operand(0)) : nullptr;
    case Op::Call: {
      // int(x) of an int, float(x) of a float, bool(x) of a bool, str(x)
      // of a str: the value itself (they are immutable).
      std::optional<ir::Builtin> b = ir::calledFunction(n);
      if (!b || n.operands().size() != 2 || !n.strListAttr("kw").empty()) return nullptr;
      TypeKind k = n.operand(1)->type().kind;
      bool same = (*b == ir::Builtin::Int && k == TypeKind::Int) || (*b == ir::Builtin::Float && k == TypeKind::Float) ||
                  (*b == ir::Builtin::Bool && k == TypeKind::Bool) || (*b == ir::Builtin::Str && k == TypeKind::Str);
      return same ? n.operand(1) : nullptr;
    }
    default: return nullptr;
  }
}

class Simplifier {
 public:
  std::unordered_map<const ir::Value*, ir::Value*> replaced;
  bool changed = false;

  // The block's nodes are rebuilt into a new list in one pass (dropping
  // and inserting in place would make a long block quadratic).
  void block(ir::Block& b) {
    auto& nodes = b.mutableNodes();
    Nodes out;
    out.reserve(nodes.size());
    for (std::unique_ptr<ir::Node>& owned : nodes) {
      ir::Node& n = *owned;
      ir::replaceOperands(n, replaced);
      for (size_t k = 0; k < n.numBlocks(); ++k) block(*n.block(k));
      if (n.numResults() == 1 && n.numBlocks() == 0) {
        if (ir::Value* x = identity(n)) {
          replaced[n.result(0)] = x;
          changed = true;
          continue;  // dropped with the old list
        }
        rewrite(b, owned, out);
        continue;
      }
      out.push_back(std::move(owned));
    }
    nodes = std::move(out);
  }

 private:
  using Nodes = std::vector<std::unique_ptr<ir::Node>>;

  // Appends `owned`, or what replaces it, to `out`.
  void rewrite(ir::Block& b, std::unique_ptr<ir::Node>& owned, Nodes& out) {
    ir::Node& n = *owned;
    if (n.op() == Op::Div && divByPowerOfTwo(b, n, out)) return;
    if (n.op() == Op::Reshape) {
      const ir::Node* inner = n.operand(0)->def();
      if (inner && inner->op() == Op::Reshape && inner->result(0)->type().hasStaticShape() &&
          inner->operand(0)->type().isTensor()) {
        n.setOperand(0, inner->operand(0));
        changed = true;
      }
    }
    out.push_back(std::move(owned));
  }

  // x / c as x * (1/c): appends the constant and the multiplication (which
  // takes over n's result) and returns true, or returns false.
  bool divByPowerOfTwo(ir::Block& b, ir::Node& n, Nodes& out) {
    const Type& x = n.operand(0)->type();
    auto c = constNumber(n.operand(1));
    if (!c || !floating(x) || !std::isfinite(*c) || *c == 0) return false;
    int exp;
    double mant = std::frexp(*c, &exp);
    if (std::fabs(mant) != 0.5) return false;  // not a power of two
    // The reciprocal 2^(1-exp) must be a normal number of the dtype (f32
    // when x is an f32 tensor), as must c itself.
    int limit = x.isTensor() && *x.dtype == ir::DType::F32 ? 126 : 1022;
    if (exp - 1 > limit || 1 - exp > limit) return false;
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
    out.push_back(std::move(k));
    out.push_back(std::move(mul));
    changed = true;
    return true;
  }
};

}  // namespace

bool simplify(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) {
    Simplifier s;
    s.block(*f.body());
    return s.changed;
  });
}

}  // namespace nn::passes
