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

// Copies the body of `callee` (all but its final `return`) into `into`
// before position `pos`, with the body's arguments (parameters, then
// captures) replaced by `args`. Returns the copy of the returned value, or
// null when the body does not end in its only `return`.
// The copies record `site` (and the call's own inlined-at sites) after
// their own inlined-at sites.
Value* inlineBody(const Function& callee, Block& into, size_t pos, const std::vector<Value*>& args,
                  const Node& call);

}  // namespace nn::ir
