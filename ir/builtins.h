// What the compiler knows about builtin functions, from the two tables:
// tensor builtins are the ops of ops.def marked FUNC (or PYTHON, on a tensor
// first argument), the rest are declared in builtins.def with their effect
// class. Passes and executors ask these functions, never builtin names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace nn::ir {

// builtins.def's effect classes (its header says what each means).
enum class Effect : uint8_t { None, Output, Clock, Random, Files, CallsArgs, CallsKey, Wait, Advances };

enum class Builtin : uint16_t {
#define BUILTIN(Enum, text, effect, result, keywords) Enum,
#include "ir/builtins.def"
#undef BUILTIN
};
constexpr size_t kNumBuiltins = 0
#define BUILTIN(Enum, text, effect, result, keywords) +1
#include "ir/builtins.def"
#undef BUILTIN
    ;

struct BuiltinInfo {
  const char* name;
  Effect effect;
  TypeKind result;
  const char* keywords;  // builtins.def's header says what it holds
};

const BuiltinInfo& builtinInfo(Builtin b);
std::optional<Builtin> builtinFromName(std::string_view name);

// A name of a tensor op as a function or method: the op and the keyword
// argument the name passes (op_aliases.def: x.float() is astype(x,
// dtype="f32")); keyword is "" for none.
struct OpName {
  Op op;
  std::string_view keyword, value;
};
// The op that the builtin function `name` is (an op marked FUNC, or an
// alias of one declared FUNC).
std::optional<Op> functionOp(std::string_view name);
// The op that the tensor method `name` is (an op marked METHOD, or an
// alias declared METHOD) and the keyword the alias passes.
std::optional<OpName> tensorMethod(std::string_view name);
// tensorMethod's op alone.
std::optional<Op> methodOp(std::string_view name);
// A tensor attribute that is an op of the tensor: x.T is transpose(x)
// (the dims reversed) and x.mT is transpose(x, -2, -1) (PyTorch's: the
// last two swapped, for batches of matrices). Each is its own inverse, so
// its gradient is the same op of the adjoint. nullopt for other names.
struct AttributeOp {
  Op op;
  Ints axes;
};
std::optional<AttributeOp> tensorAttributeOp(std::string_view name);
// The elementwise op that reduction `op` is when given a second tensor
// instead of an axis: max(a, b) is maximum(a, b), as torch.max(a, b)
// (the builtin and the method alike); nullopt for the other ops.
std::optional<Op> pairwiseForm(Op op);
// The value of the builtin constant `name` (inf, nan, pi, e), read where
// no variable of that name is in scope.
std::optional<double> builtinConstant(std::string_view name);
std::vector<std::string> builtinConstantNames();
// nn's name for a NumPy or PyTorch spelling it does not accept
// (concatenate: cat, mm: matmul), for "did you mean"; nullopt otherwise.
std::optional<std::string_view> foreignSpelling(std::string_view name);
// The tensor methods that are no op: x.size(), x.numel(), x.dim() and
// PyTorch's x.view_as(y), reshape_as, expand_as, type_as, and narrow,
// select, unbind, index_select (indexing along a dim).
bool isTensorOwnMethod(std::string_view name);
const std::vector<std::string>& tensorOwnMethodNames();
// A method name of lists, dicts, strs or tuples (append, get, join, ...;
// stdlib/methods.cpp implements them, and a unit test keeps the two in
// step).
bool isHostMethodName(std::string_view name);
const std::vector<std::string_view>& hostMethodNames();
// Whether values of type t are lists, dicts, strs or tuples, whose methods
// those are.
bool hasHostMethods(const Type& t);
// Every tensor method that is an op or an alias of one, sorted.
std::vector<std::string> tensorMethodNames();
// The alias names declared FUNC (the builtin table registers them).
std::vector<std::string_view> functionAliases();

// The builtin a `call` node calls: its name, or "" when the callee is not a
// `builtin` node.
std::string_view calledBuiltinName(const Node& call);
// The op a `call` node runs: a FUNC op's builtin, or a PYTHON op's builtin
// whose first argument is typed as a tensor.
std::optional<Op> calledOp(const Node& call);
// The non-op builtin a `call` node calls.
std::optional<Builtin> calledFunction(const Node& call);

}  // namespace nn::ir
