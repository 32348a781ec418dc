// The evaluator behind the fold-constants pass: literal operands are
// turned into runtime values and the node runs through the same functions
// the interpreter calls, so a folded constant is exactly what eager mode
// would compute.
#pragma once

namespace nn::rt {

// Installs the evaluator into the passes (idempotent).
void installConstantEvaluator();

}  // namespace nn::rt
