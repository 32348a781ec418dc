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
// The same under another name (a function of another module copied into
// a version graph for inlining, under a name its own graph cannot hold).
Function* cloneFunction(const Function& src, Graph& dst, const std::string& name);

// Copies the body of `callee` (all but its final `return`) into `into`
// before position `pos`, with the body's arguments (parameters, then
// captures) replaced by `args`. Returns the copy of the returned value, or
// null when the body does not end in its only `return`.
// The copies record `site` (and the call's own inlined-at sites) after
// their own inlined-at sites.
Value* inlineBody(const Function& callee, Block& into, size_t pos, const std::vector<Value*>& args,
                  const Node& call);

// Appends copies of the nodes of `src` but its terminator to `into`, with
// the block's arguments replaced by `args` (one per argument) and values
// from outside `src` left as they are; returns the copies of the
// terminator's operands. Loop unrolling's copy of one iteration: the
// copies keep their locations and inlined-at sites.
std::vector<Value*> appendBlockCopy(const Block& src, Block& into, const std::vector<Value*>& args);

}  // namespace nn::ir
