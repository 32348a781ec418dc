// Constant evaluation for fold-constants (see constant_eval.h).
#include "runtime/constant_eval.h"

#include <cmath>

#include "passes/passes.h"
#include "runtime/value_op.h"

namespace nn::rt {
namespace {

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

std::optional<ir::Attr> evaluator(const ir::Node& n, const std::vector<ir::Attr>& operands) {
  if (!isValueOp(n.op())) return std::nullopt;
  std::vector<Value> in;
  for (const ir::Attr& a : operands) in.push_back(toValue(a));
  std::vector<const Value*> ptrs;
  for (const Value& v : in) ptrs.push_back(&v);
  try {
    return toAttr(runValueOp(n, ptrs.data(), 0));
  } catch (...) {
    // Raises (or runs out of memory) at run time, at its own location.
    return std::nullopt;
  }
}

}  // namespace

passes::ConstantEvaluator constantEvaluator() { return evaluator; }

}  // namespace nn::rt
