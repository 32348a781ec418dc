// Constant evaluation for fold-constants (see constant_eval.h).
#include "runtime/constant_eval.h"

#include <cmath>

#include "passes/passes.h"
#include "runtime/value_op.h"

namespace nn::rt {
namespace {

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
  for (const ir::Attr& a : operands) in.push_back(attrValue(a));
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
