// Finds updates that can never be seen — `p -= lr * g` on a loop variable,
// `x[0] = 0.0` on a parameter that is not returned — and puts a
// `lost_update` node after each, which warns when the updated value turns
// out to be a tensor (tensors are values, so such an update changes only a
// local copy; a list updated the same way changes in place, as in Python).
#pragma once

#include <vector>

#include "ir/ir.h"

namespace nn::frontend {

// `updates`: the nodes of `g` that augmented and index assignments made,
// each rebinding a name to its result. `privateGlobals`: `g` is a script's
// main module, whose globals only its own code reads (not a REPL input or
// an imported module).
void insertLostUpdateChecks(ir::Graph& g, const std::vector<ir::Node*>& updates, bool privateGlobals);

}  // namespace nn::frontend
