// The value ops' execute entry (see value_op.h).
#include "runtime/value_op.h"

#include "ir/op_signature.h"
#include "runtime/format.h"
#include "runtime/gradient_ops.h"
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
    case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Sigmoid: case Op::Relu: case Op::Gelu: case Op::GeluGrad:
    case Op::Erf: case Op::Silu: case Op::SiluGrad: case Op::Softplus: case Op::Log1p: case Op::Expm1: case Op::Tan:
    case Op::Atan:
    case Op::Reciprocal: case Op::Log2: case Op::Log10: case Op::Sinh: case Op::Cosh: case Op::Asin: case Op::Acos:
    case Op::Square: case Op::Acosh: case Op::Asinh: case Op::Atanh: case Op::Exp2: case Op::Erfc: case Op::Erfinv:
    case Op::Lgamma: case Op::Digamma: case Op::I0: case Op::I0e: case Op::I1: case Op::I1e: case Op::K0:
    case Op::K0e: case Op::K1: case Op::K1e: case Op::Erfcx:
    case Op::Ndtri: case Op::LogNdtr: case Op::BesselJ0: case Op::BesselJ1: case Op::BesselY0: case Op::BesselY1: case Op::AiryAi:
    case Op::FrexpMantissa: case Op::FrexpExponent:
    case Op::Floor: case Op::Ceil: case Op::Round: case Op::IsNan:
    case Op::IsInf: case Op::IsFinite: case Op::LogicalNot:
    case Op::Maximum: case Op::Minimum: case Op::LogicalAnd: case Op::LogicalOr: case Op::Where:
    case Op::Atan2: case Op::Hypot: case Op::Copysign: case Op::Fmod: case Op::Polygamma: case Op::Zeta:
    case Op::Gammainc: case Op::Gammaincc: case Op::Nextafter: case Op::Gcd: case Op::Lcm:
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
    case Op::Is: case Op::IsNot: case Op::In: case Op::NotIn:
    case Op::GetItem: case Op::SetItem: case Op::DelItem: case Op::IndexGradAdd:
      return true;
    default: return false;
  }
}

Value attrValue(const ir::Attr& a) {
  if (auto* i = std::get_if<int64_t>(&a)) return Value::integer(*i);
  if (auto* d = std::get_if<double>(&a)) return Value::real(*d);
  if (auto* b = std::get_if<bool>(&a)) return Value::boolean(*b);
  if (auto* s = std::get_if<std::string>(&a)) return Value::str(*s);
  if (auto* l = std::get_if<ir::Ints>(&a)) {
    std::vector<Value> items;
    items.reserve(l->size());
    for (int64_t i : *l) items.push_back(Value::integer(i));
    return makeTuple(std::move(items));
  }
  return Value::none();
}

namespace {

// A tensor op's attribute: a dtype attribute (held by name) as a dtype.
Value paramValue(const ir::Attr& a, const ir::Param& p) {
  if (p.type == ir::AttrType::DType)
    if (auto* s = std::get_if<std::string>(&a))
      if (std::optional<DType> dt = dtypeFromName(*s)) return Value::dtype(static_cast<int>(*dt));
  return attrValue(a);
}

}  // namespace

std::vector<Value> tensorOpParams(const ir::Node& n, const Value* const* in) {
  const ir::Signature& sig = ir::signatureOf(n.op());
  std::vector<Value> params;
  params.reserve(sig.params.size());
  size_t next = 0;
  for (const ir::Param& p : sig.params) {
    if (!p.isAttr) {
      params.push_back(next < n.operands().size() ? *in[next++] : Value::none());
    } else if (const ir::Attr* a = n.attr(p.name)) {
      params.push_back(paramValue(*a, p));
    } else {
      params.push_back(p.variadic ? makeTuple({}) : paramValue(p.defaultValue.value_or(ir::NoneAttr{}), p));
    }
  }
  return params;
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
      if (n.operands().size() == 2) {
        if (!in[1]->is(Kind::Str)) fail(loc, "format spec must be a str", ErrorClass::TypeError);
        return Value::str(formatValue(v, in[1]->asStr(), loc));
      }
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
    case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Sigmoid: case Op::Relu: case Op::Gelu: case Op::GeluGrad:
    case Op::Erf: case Op::Silu: case Op::SiluGrad: case Op::Softplus: case Op::Log1p: case Op::Expm1: case Op::Tan:
    case Op::Atan:
    case Op::Reciprocal: case Op::Log2: case Op::Log10: case Op::Sinh: case Op::Cosh: case Op::Asin: case Op::Acos:
    case Op::Square: case Op::Acosh: case Op::Asinh: case Op::Atanh: case Op::Exp2: case Op::Erfc: case Op::Erfinv:
    case Op::Lgamma: case Op::Digamma: case Op::I0: case Op::I0e: case Op::I1: case Op::I1e: case Op::K0:
    case Op::K0e: case Op::K1: case Op::K1e: case Op::Erfcx:
    case Op::Ndtri: case Op::LogNdtr: case Op::BesselJ0: case Op::BesselJ1: case Op::BesselY0: case Op::BesselY1: case Op::AiryAi:
    case Op::FrexpMantissa: case Op::FrexpExponent:
    case Op::Floor: case Op::Ceil: case Op::Round: case Op::IsNan:
    case Op::IsInf: case Op::IsFinite: case Op::LogicalNot:
      return mathUnary(op, *in[0], loc, consumable);
    case Op::Maximum: case Op::Minimum: case Op::LogicalAnd: case Op::LogicalOr:
    case Op::Atan2: case Op::Hypot: case Op::Copysign: case Op::Fmod: case Op::Polygamma: case Op::Zeta:
    case Op::Gammainc: case Op::Gammaincc: case Op::Nextafter: case Op::Gcd: case Op::Lcm:
      return mathBinary(op, *in[0], *in[1], loc);
    case Op::Where: return whereOp(*in[0], *in[1], *in[2], loc);
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
    case Op::Is: case Op::IsNot: case Op::In: case Op::NotIn:
      return compareOp(op, *in[0], *in[1], loc);
    case Op::GetItem: return getItem(*in[0], *in[1], loc);
    case Op::SetItem:
      return n.attr("write_back") ? writeBackItem(*in[0], *in[1], *in[2], loc) : setItem(*in[0], *in[1], *in[2], loc);
    case Op::DelItem: return delItem(*in[0], *in[1], loc);
    case Op::IndexGradAdd: return indexGradAdd(*in[0], *in[1], *in[2], loc, consumable & kConsumeFirst);
    default: fail(loc, std::string("internal error: ") + n.info().name + " is not a value op");
  }
}

}  // namespace nn::rt
