// Constant evaluation for fold-constants (see constant_eval.h).
#include "runtime/constant_eval.h"

#include <cmath>

#include "passes/passes.h"
#include "runtime/format.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {
namespace {

using ir::Op;

Value toValue(const ir::Attr& a) {
  if (auto* i = std::get_if<int64_t>(&a)) return Value::integer(*i);
  if (auto* d = std::get_if<double>(&a)) return Value::real(*d);
  if (auto* b = std::get_if<bool>(&a)) return Value::boolean(*b);
  if (auto* s = std::get_if<std::string>(&a)) return Value::str(*s);
  return Value::none();
}

std::optional<ir::Attr> toAttr(const Value& v) {
  switch (v.kind()) {
    case Kind::Int: return ir::Attr(v.asInt());
    case Kind::Float:
      if (std::isnan(v.asFloat())) return std::nullopt;
      return ir::Attr(v.asFloat());
    case Kind::Bool: return ir::Attr(v.asBool());
    case Kind::Str: return ir::Attr(v.asStr());
    case Kind::None: return ir::Attr(ir::NoneAttr{});
    default: return std::nullopt;
  }
}

Value evaluate(const ir::Node& n, const std::vector<Value>& in) {
  Op op = n.op();
  SourceLoc loc = n.loc();
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Mod: case Op::Pow:
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::LShift: case Op::RShift:
      return binaryOp(op, in[0], in[1], loc);
    case Op::Neg: case Op::Pos: case Op::Invert: case Op::Not: case Op::Truth: return unaryOp(op, in[0], loc);
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: case Op::In: case Op::NotIn:
      return compareOp(op, in[0], in[1], loc);
    case Op::StrConcat: {
      std::string s;
      for (const Value& v : in) s += str(v);
      return Value::str(std::move(s));
    }
    case Op::Format: {
      Value v = in[0];
      const std::string& conv = n.strAttr("conv");
      if (conv == "r") v = Value::str(repr(v));
      else if (conv == "s") v = Value::str(str(v));
      return Value::str(formatValue(v, n.strAttr("spec"), loc));
    }
    case Op::GetItem: return getItem(in[0], in[1], loc);
    case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Abs: case Op::Sign: case Op::Sin:
    case Op::Cos: case Op::Tanh: case Op::Sigmoid: case Op::Relu: case Op::Gelu: case Op::Silu:
    case Op::Softplus: case Op::Floor: case Op::Ceil: case Op::Round:
      return mathUnary(op, in[0], loc);
    default: return Value::undef("");
  }
}

std::optional<ir::Attr> evaluator(const ir::Node& n, const std::vector<ir::Attr>& operands) {
  std::vector<Value> in;
  for (const ir::Attr& a : operands) in.push_back(toValue(a));
  try {
    return toAttr(evaluate(n, in));
  } catch (const NnError&) {
    return std::nullopt;  // raises at run time, at its own location
  }
}

}  // namespace

void installConstantEvaluator() { passes::setConstantEvaluator(evaluator); }

}  // namespace nn::rt
