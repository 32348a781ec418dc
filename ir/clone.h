// Deep copies of IR functions: the compile cache specialises a copy of a
// function per argument signature and optimises it, leaving the original
// (which eager mode and later specialisations start from) untouched.
#pragma once

#include "ir/ir.h"

namespace nn::ir {

// Copies `src` into `dst` under the same name, with the same parameters,
// captures, nodes, attributes, types and locations; returns the copy
// (numbered).
Function* cloneFunction(const Function& src, Graph& dst);

}  // namespace nn::ir
