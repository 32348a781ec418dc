// The builtin tables' lookups (see builtins.h).
#include "ir/builtins.h"

#include <iterator>
#include <unordered_map>

namespace nn::ir {
namespace {

constexpr BuiltinInfo kBuiltins[] = {
#define BUILTIN(Enum, text, effect, result) {text, Effect::effect, TypeKind::result},
#include "ir/builtins.def"
#undef BUILTIN
};
static_assert(std::size(kBuiltins) == kNumBuiltins);

std::optional<Op> opWithTrait(std::string_view name, Trait t) {
  Op op;
  if (opFromName(name, op) && hasTrait(op, t)) return op;
  return std::nullopt;
}

}  // namespace

const BuiltinInfo& builtinInfo(Builtin b) { return kBuiltins[static_cast<size_t>(b)]; }

std::optional<Builtin> builtinFromName(std::string_view name) {
  static const std::unordered_map<std::string_view, Builtin> byName = [] {
    std::unordered_map<std::string_view, Builtin> m;
    for (size_t i = 0; i < kNumBuiltins; ++i) m.emplace(kBuiltins[i].name, static_cast<Builtin>(i));
    return m;
  }();
  auto it = byName.find(name);
  if (it == byName.end()) return std::nullopt;
  return it->second;
}

std::optional<Op> functionOp(std::string_view name) { return opWithTrait(name, FUNC); }
std::optional<Op> methodOp(std::string_view name) { return opWithTrait(name, METHOD); }

std::string_view calledBuiltinName(const Node& call) {
  if (call.op() != Op::Call) return {};
  const Node* def = call.operand(0)->def();
  return def && def->op() == Op::Builtin ? std::string_view(def->strAttr("name")) : std::string_view();
}

std::optional<Op> calledOp(const Node& call) {
  std::string_view name = calledBuiltinName(call);
  if (name.empty()) return std::nullopt;
  if (auto op = functionOp(name)) return op;
  if (auto op = opWithTrait(name, PYTHON); op && call.operands().size() > 1 && call.operand(1)->type().isTensor())
    return op;
  return std::nullopt;
}

std::optional<Builtin> calledFunction(const Node& call) {
  std::string_view name = calledBuiltinName(call);
  if (name.empty() || calledOp(call)) return std::nullopt;
  return builtinFromName(name);
}

}  // namespace nn::ir
