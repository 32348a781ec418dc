// Effect and failure predicates shared by the passes (see effects.h).
#include "passes/effects.h"

#include <set>

namespace nn::passes {

using ir::Op;
using ir::TypeKind;

const std::string& calledBuiltin(const ir::Node& n) {
  static const std::string none;
  if (n.op() != Op::Call) return none;
  const ir::Node* def = n.operand(0)->def();
  return def && def->op() == Op::Builtin ? def->strAttr("name") : none;
}

bool builtinHasEffect(const std::string& name) {
  static const std::set<std::string> effects = {"print", "input", "seed",  "rand",     "randn", "randint",
                                                "dropout", "save", "load", "load_csv", "exit",  "open"};
  return effects.count(name) > 0;
}

bool tensorMethodIsBuiltin(const std::string& name) {
  static const std::set<std::string> names = {
      "sum",  "mean", "reshape", "transpose", "flatten", "exp",      "log",   "sqrt",  "rsqrt",    "abs",
      "sign", "sin",  "cos",     "tanh",      "sigmoid", "relu",     "gelu",  "silu",  "softplus", "floor",
      "ceil", "isnan", "logical_not", "maximum", "minimum", "softmax", "log_softmax", "matmul", "clip"};
  return names.count(name) > 0;
}

bool hasEffect(const ir::Node& n) {
  if (n.op() == Op::Call) {
    const std::string& b = calledBuiltin(n);
    return b.empty() || builtinHasEffect(b);
  }
  if (ir::hasTrait(n.op(), ir::EFFECT)) return true;
  for (size_t i = 0; i < n.numBlocks(); ++i)
    for (const auto& inner : n.block(i)->nodes())
      if (hasEffect(*inner)) return true;
  return false;
}

namespace {

bool knownShapeTensor(const ir::Type& t) {
  if (!t.isTensor() || !t.dtype || !t.shape) return false;
  for (const ir::Dim& d : *t.shape)
    if (!d.isKnown()) return false;
  return true;
}

bool number(const ir::Type& t) { return t.kind == TypeKind::Float || t.kind == TypeKind::Int || t.kind == TypeKind::Bool; }

}  // namespace

bool mayRaise(const ir::Node& n) {
  switch (n.op()) {
    case Op::Const: case Op::Undef: case Op::Builtin: case Op::SelfClosure: case Op::MakeClosure:
    case Op::MakeTuple: case Op::MakeList: case Op::MakeDict: case Op::MakeSlice: case Op::Is: case Op::IsNot:
      return false;
    default: break;
  }
  if (n.op() == Op::Loop) return true;
  if (n.numBlocks() > 0) {
    for (size_t i = 0; i < n.numBlocks(); ++i)
      for (const auto& inner : n.block(i)->nodes())
        if (!ir::hasTrait(inner->op(), ir::TERM) && mayRaise(*inner)) return true;
    // An if's condition is truth-tested: a tensor of several elements raises.
    return n.op() == Op::If && n.operand(0)->type().kind != TypeKind::Bool;
  }
  // Shape functions whose result type inference fully determined: their
  // rules already checked what the runtime would check.
  if (n.op() == Op::GetAttr) {
    if (!n.operand(0)->type().isTensor()) return true;
    if (tensorMethodIsBuiltin(n.strAttr("name"))) return false;  // a bound method
    return !(n.strAttr("name") == "T" && knownShapeTensor(n.result(0)->type()));
  }
  if (n.op() == Op::Call) {
    static const std::set<std::string> shapeFns = {"reshape", "transpose", "zeros", "ones", "zeros_like", "ones_like", "matmul"};
    if (!shapeFns.count(calledBuiltin(n)) || !knownShapeTensor(n.result(0)->type())) return true;
    for (size_t i = 1; i < n.operands().size(); ++i) {
      ir::TypeKind k = n.operand(i)->type().kind;
      if (k != TypeKind::Tensor && k != TypeKind::Int && k != TypeKind::List && k != TypeKind::Tuple) return true;
    }
    return false;
  }
  if (!ir::hasTrait(n.op(), ir::ELEM) && n.op() != Op::MatMul) return true;
  // Elementwise ops on tensors of known dtype and shape: type inference
  // already proved the shapes compatible, and float kernels do not raise.
  bool tensor = false;
  for (const ir::Value* v : n.operands()) {
    const ir::Type& t = v->type();
    if (t.isTensor()) {
      if (!knownShapeTensor(t)) return true;
      tensor = true;
    } else if (!number(t)) {
      return true;
    }
  }
  if (!tensor) {
    // Python numbers: comparisons never raise; + - * on floats never raise
    // (on ints they may overflow 64 bits).
    Op op = n.op();
    if (op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne) return false;
    bool floats = true;
    for (const ir::Value* v : n.operands()) floats &= v->type().kind == TypeKind::Float;
    return !(floats && (op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Neg || op == Op::Pos));
  }
  const ir::Type& r = n.result(0)->type();
  // Integer division and modulo by a zero element raise; bit ops on float
  // tensors and `-` on bool tensors are type errors.
  if (!r.isTensor() || !r.dtype) return true;
  switch (n.op()) {
    case Op::FloorDiv: case Op::Mod: return !ir::isFloating(*r.dtype);
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::LShift: case Op::RShift: case Op::Invert:
    case Op::Pow: return true;
    case Op::Neg: case Op::Pos: return n.operand(0)->type().dtype == ir::DType::Bool;
    default: return false;
  }
}

}  // namespace nn::passes
