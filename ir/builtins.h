// What the compiler knows about builtin functions, from the two tables:
// tensor builtins are the ops of ops.def marked FUNC (or PYTHON, on a tensor
// first argument), the rest are declared in builtins.def with their effect
// class. Passes and executors ask these functions, never builtin names.
#pragma once

#include <optional>
#include <string_view>

#include "ir/ir.h"

namespace nn::ir {

// builtins.def's effect classes (its header says what each means).
enum class Effect : uint8_t { None, Output, Clock, Random, Files, CallsArgs, Unknown };

enum class Builtin : uint16_t {
#define BUILTIN(Enum, text, effect, result) Enum,
#include "ir/builtins.def"
#undef BUILTIN
};
constexpr size_t kNumBuiltins = 0
#define BUILTIN(Enum, text, effect, result) +1
#include "ir/builtins.def"
#undef BUILTIN
    ;

struct BuiltinInfo {
  const char* name;
  Effect effect;
  TypeKind result;
};

const BuiltinInfo& builtinInfo(Builtin b);
std::optional<Builtin> builtinFromName(std::string_view name);

// The op that the builtin function `name` is (an op marked FUNC).
std::optional<Op> functionOp(std::string_view name);
// The op that the tensor method `name` is (an op marked METHOD).
std::optional<Op> methodOp(std::string_view name);

// The builtin a `call` node calls: its name, or "" when the callee is not a
// `builtin` node.
std::string_view calledBuiltinName(const Node& call);
// The op a `call` node runs: a FUNC op's builtin, or a PYTHON op's builtin
// whose first argument is typed as a tensor.
std::optional<Op> calledOp(const Node& call);
// The non-op builtin a `call` node calls.
std::optional<Builtin> calledFunction(const Node& call);

}  // namespace nn::ir
