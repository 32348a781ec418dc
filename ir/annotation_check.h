// Checking types against annotations (ir/annotation.h) before a program
// runs: whether a value's static type proves that the value matches a
// parameter's or result's annotation, proves that it cannot, or neither.
// Type inference reports a proven mismatch of an inlined call's check
// (check_args, check_result: passes/inline.cpp) as the call would, passes
// drop a check that must pass, and the runtime's check
// (runtime/annotations.cpp) checks a tensor by its exact type here, so a
// mismatch reads the same at compile time and at run time.
#pragma once

#include <string>
#include <unordered_map>

#include "ir/ir.h"

namespace nn::ir {

// An annotation's symbolic sizes (N) and the sizes the first value having
// each gave it: a known size, a symbol of the caller's own annotations, or
// unknown (later uses of the symbol then prove nothing).
using SymbolBindings = std::unordered_map<std::string, Dim>;

enum class Verdict { Pass, Fail, Unknown };

struct TypeCheck {
  Verdict verdict = Verdict::Pass;
  std::string why;  // for Fail: why not ("it has 1 dimension, not 2")
};

// Whether a value of kind k (not any) matches a plain annotation of kind
// `want` other than a tensor's or a container's (Any matches everything).
inline bool kindMatches(TypeKind k, TypeKind want) {
  switch (want) {
    case TypeKind::Int: return k == TypeKind::Int || k == TypeKind::Bool;
    case TypeKind::Float: return k == TypeKind::Int || k == TypeKind::Bool || k == TypeKind::Float;
    case TypeKind::Bool:
    case TypeKind::Str:
    case TypeKind::None:
    case TypeKind::Func:
    case TypeKind::Tensor:
    case TypeKind::List:
    case TypeKind::Tuple:
    case TypeKind::Dict: return k == want;
    default: return true;
  }
}

// Whether every value of type t matches a, binding a's symbols.
TypeCheck checkType(const Type& t, const Annotation& a, SymbolBindings& bindings);
// What a mismatch of a's kind says: "expected an int", "expected a list".
std::string expectation(const Annotation& a);

// How a mismatch names a value of type t ("f32[N, 3]", "NoneType").
std::string describeType(const Type& t);
// The messages of a mismatch; `got` describes the value ("f32[3]", "str").
std::string argumentMismatch(const Function& fn, const std::string& name, size_t param, const std::string& got,
                             const std::string& why);
std::string resultMismatch(const Function& fn, const std::string& name, const std::string& got,
                           const std::string& why);

// The function whose annotations a check_args or check_result node checks
// (its `func`), null when the graph has none of that name.
const Function* checkedFunction(const Node& n);

struct CallCheck {
  Verdict verdict = Verdict::Pass;
  std::string message;                  // for Fail
  const Annotation* annotation = nullptr;  // for Fail: the one not met
};
// What the operand types prove about a check_args or check_result node.
CallCheck checkCall(const Node& n);

}  // namespace nn::ir
