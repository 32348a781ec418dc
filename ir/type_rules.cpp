// The type rules named in ops.def, for the scalar and container types of the
// language (Python's promotion: bool < int < float).
#include "ir/type_rules.h"

namespace nn::ir {
namespace {

bool isIntLike(Type t) { return t.kind == TypeKind::Int || t.kind == TypeKind::Bool; }
bool isNumber(Type t) { return isIntLike(t) || t.kind == TypeKind::Float; }

Type literalType(const Node& n) {
  const Attr* a = n.attr("value");
  if (!a) return Type::any();
  if (std::holds_alternative<int64_t>(*a)) return {TypeKind::Int};
  if (std::holds_alternative<double>(*a)) return {TypeKind::Float};
  if (std::holds_alternative<bool>(*a)) return {TypeKind::Bool};
  if (std::holds_alternative<std::string>(*a)) return {TypeKind::Str};
  if (std::holds_alternative<NoneAttr>(*a)) return {TypeKind::None};
  return Type::any();
}

Type arith(Op op, Type a, Type b) {
  if (isNumber(a) && isNumber(b)) {
    if (isIntLike(a) && isIntLike(b)) return {TypeKind::Int};
    return {TypeKind::Float};
  }
  bool seq = a.kind == TypeKind::Str || a.kind == TypeKind::List || a.kind == TypeKind::Tuple;
  if (op == Op::Mod && a.kind == TypeKind::Str) return a;  // printf-style formatting
  if (op == Op::Add && seq && a == b) return a;
  if (op == Op::Mul && seq && isIntLike(b)) return a;
  if (op == Op::Mul && isIntLike(a) && (b.kind == TypeKind::Str || b.kind == TypeKind::List || b.kind == TypeKind::Tuple))
    return b;
  return Type::any();
}

// An elementwise tensor op of one Python number (builtin-ops makes them
// of sqrt(x) and the like): a bool for a test of the element's class, a
// float where the op computes in float or takes one, else an int, as the
// runtime computes it (mathUnary).
std::optional<Type> numberMathType(const Node& n) {
  if (!hasTrait(n.op(), ELEM) || n.operands().size() != 1) return std::nullopt;
  TypeKind k = n.operand(0)->type().kind;
  if (k != TypeKind::Int && k != TypeKind::Float && k != TypeKind::Bool) return std::nullopt;
  if (unaryGivesBool(n.op())) return Type(TypeKind::Bool);
  return Type(computesInFloat(n.op()) || k == TypeKind::Float ? TypeKind::Float : TypeKind::Int);
}

}  // namespace

Type resultType(const Node& n, size_t i) {
  auto operandType = [&](size_t k) { return k < n.operands().size() ? n.operand(k)->type() : Type::any(); };
  if (n.info().typeRule == TypeRule::Wrt) return operandType(i + 1);
  if (n.op() == Op::Call)
    if (auto t = builtinCallType(n)) return *t;
  if (n.op() == Op::GetAttr)
    if (auto t = attributeType(n)) return *t;
  if (auto t = indexType(n)) return *t;
  if (auto t = tensorOpType(n)) return *t;
  if (n.op() != Op::Is && n.op() != Op::IsNot && n.op() != Op::In && n.op() != Op::NotIn)
    if (auto t = tensorResultType(n)) return *t;
  switch (n.info().typeRule) {
    case TypeRule::Shape:  // a tensor op on no tensor: its rule gave nothing
      if (auto t = numberMathType(n)) return *t;
      return Type::any();
    case TypeRule::Unknown:
    case TypeRule::Merge: return Type::any();
    case TypeRule::None_: return {TypeKind::None};
    case TypeRule::Literal: return literalType(n);
    case TypeRule::Func: return {TypeKind::Func};
    case TypeRule::Tuple: return {TypeKind::Tuple};
    case TypeRule::List: return {TypeKind::List};
    case TypeRule::Dict: return {TypeKind::Dict};
    case TypeRule::Str: return {TypeKind::Str};
    case TypeRule::Int: return {TypeKind::Int};
    case TypeRule::Bool: return {TypeKind::Bool};
    case TypeRule::Compare: {
      // Tensor operands are typed above; one that may still be a tensor
      // may make a bool tensor (xs[0] > 0 on a list of tensors).
      auto mayBeTensor = [](const Type& t) { return t.kind == TypeKind::Any || t.kind == TypeKind::Tensor; };
      return mayBeTensor(operandType(0)) || mayBeTensor(operandType(1)) ? Type::any() : Type{TypeKind::Bool};
    }
    case TypeRule::Module: return {TypeKind::Module};
    case TypeRule::Arith: return arith(n.op(), operandType(0), operandType(1));
    case TypeRule::TrueDiv:
      return isNumber(operandType(0)) && isNumber(operandType(1)) ? Type{TypeKind::Float} : Type::any();
    case TypeRule::Power: {
      // A float power of numbers is a float (or raises: a negative base to
      // a fractional power); an int to an int power is an int only when
      // the exponent is not negative, which is known when it runs.
      Type a = operandType(0), b = operandType(1);
      bool floats = a.kind == TypeKind::Float || b.kind == TypeKind::Float;
      return isNumber(a) && isNumber(b) && floats ? Type{TypeKind::Float} : Type::any();
    }
    case TypeRule::Bits: {
      Type a = operandType(0);
      if (n.operands().size() == 1) return isIntLike(a) ? Type{TypeKind::Int} : Type::any();
      Type b = operandType(1);
      if (a.kind == TypeKind::Bool && b.kind == TypeKind::Bool && n.op() != Op::LShift && n.op() != Op::RShift)
        return {TypeKind::Bool};
      return isIntLike(a) && isIntLike(b) ? Type{TypeKind::Int} : Type::any();
    }
    case TypeRule::Unary: {
      Type a = operandType(0);
      if (isIntLike(a)) return {TypeKind::Int};
      return a.kind == TypeKind::Float ? a : Type::any();
    }
    case TypeRule::First: return operandType(0);
    case TypeRule::Wrt: break;  // above
    case TypeRule::Declared: return Type::parse(n.strAttr("type")).value_or(Type::any());
  }
  return Type::any();
}

}  // namespace nn::ir
