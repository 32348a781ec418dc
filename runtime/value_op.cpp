// The value ops' execute entry (see value_op.h).
#include "runtime/value_op.h"

#include "runtime/format.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

using ir::Op;

bool isValueOp(Op op) {
  switch (op) {
    case Op::Format: case Op::StrConcat:
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Mod:
    case Op::Pow: case Op::MatMul: case Op::BitAnd: case Op::BitOr: case Op::BitXor:
    case Op::LShift: case Op::RShift:
    case Op::Neg: case Op::Pos: case Op::Invert: case Op::Not: case Op::Truth:
    case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Abs: case Op::Sign:
    case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Sigmoid: case Op::Relu: case Op::Gelu:
    case Op::Silu: case Op::Softplus: case Op::Floor: case Op::Ceil: case Op::Round: case Op::IsNan:
    case Op::LogicalNot:
    case Op::Maximum: case Op::Minimum: case Op::LogicalAnd: case Op::LogicalOr: case Op::Where:
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
    case Op::Is: case Op::IsNot: case Op::In: case Op::NotIn:
    case Op::GetItem: case Op::SetItem:
      return true;
    default: return false;
  }
}

Value runValueOp(const ir::Node& n, const Value* const* in, unsigned consumable) {
  Op op = n.op();
  SourceLoc loc = n.loc();
  switch (op) {
    case Op::Format: {
      Value v = *in[0];
      const std::string& conv = n.strAttr("conv");
      if (conv == "r") v = Value::str(repr(v));
      else if (conv == "s") v = Value::str(str(v));
      return Value::str(formatValue(v, n.strAttr("spec"), loc));
    }
    case Op::StrConcat: {
      std::string s;
      for (size_t i = 0; i < n.operands().size(); ++i) s += str(*in[i]);
      return Value::str(std::move(s));
    }
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Mod:
    case Op::Pow: case Op::MatMul: case Op::BitAnd: case Op::BitOr: case Op::BitXor:
    case Op::LShift: case Op::RShift:
      return binaryOp(op, *in[0], *in[1], loc, consumable);
    case Op::Neg: case Op::Pos: case Op::Invert: case Op::Not: case Op::Truth:
      return unaryOp(op, *in[0], loc, consumable);
    case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Abs: case Op::Sign:
    case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Sigmoid: case Op::Relu: case Op::Gelu:
    case Op::Silu: case Op::Softplus: case Op::Floor: case Op::Ceil: case Op::Round: case Op::IsNan:
    case Op::LogicalNot:
      return mathUnary(op, *in[0], loc, consumable);
    case Op::Maximum: case Op::Minimum: case Op::LogicalAnd: case Op::LogicalOr:
      return mathBinary(op, *in[0], *in[1], loc);
    case Op::Where: return whereOp(*in[0], *in[1], *in[2], loc);
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
    case Op::Is: case Op::IsNot: case Op::In: case Op::NotIn:
      return compareOp(op, *in[0], *in[1], loc);
    case Op::GetItem: return getItem(*in[0], *in[1], loc);
    case Op::SetItem: return setItem(*in[0], *in[1], *in[2], loc);
    default: fail(loc, std::string("internal error: ") + n.info().name + " is not a value op");
  }
}

}  // namespace nn::rt
