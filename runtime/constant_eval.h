// The evaluator behind the fold-constants pass: literal operands are
// turned into runtime values and a value op runs through its one execute
// entry (value_op.h), the interpreter's, so a folded constant is exactly
// what eager mode would compute. A state puts it into the PassContext it compiles with.
#pragma once

#include <optional>

#include "passes/passes.h"
#include "runtime/value.h"

namespace nn::rt {

passes::ConstantEvaluator constantEvaluator();

// The `const` literal of v: None, an int, a float other than NaN (a NaN
// constant would not equal itself in the structural keys), a bool or a
// str; none for any other value.
std::optional<ir::Attr> literalAttr(const Value& v);

}  // namespace nn::rt
