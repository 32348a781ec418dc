// The evaluator behind the fold-constants pass: literal operands are
// turned into runtime values and a value op runs through its one execute
// entry (value_op.h), the interpreter's, so a folded constant is exactly
// what eager mode would compute. A state puts it into the PassContext it compiles with.
#pragma once

#include "passes/passes.h"

namespace nn::rt {

passes::ConstantEvaluator constantEvaluator();

}  // namespace nn::rt
