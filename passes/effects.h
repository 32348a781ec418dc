// What passes may assume about a node: whether running it can be observed
// (an effect: output, module state, randomness, files, or a call that may
// do any of these) and whether it may raise. A node with neither can be
// removed, merged with an equal node, or moved; a node that may raise but
// has no effect can be merged with an equal one (the first raises first)
// but not removed or moved where it would run when it did not before.
#pragma once

#include <string>

#include "ir/ir.h"

namespace nn::passes {

// The builtin a `call` node calls ("" when the callee is not a builtin).
const std::string& calledBuiltin(const ir::Node& n);
// Builtins whose calls are observable: printing, input, randomness (the
// generator's state), files, exiting.
bool builtinHasEffect(const std::string& name);

// Tensor methods that are the builtin of the same name with the tensor as
// first argument (x.sum(axis=1) is sum(x, axis=1), x.exp() is exp(x)).
bool tensorMethodIsBuiltin(const std::string& name);

// True for EFFECT ops other than calls of effect-free builtins, and for
// if/loop nodes whose blocks contain such nodes.
bool hasEffect(const ir::Node& n);
// False only where the operand types prove the op cannot fail.
bool mayRaise(const ir::Node& n);
inline bool removable(const ir::Node& n) { return !hasEffect(n) && !mayRaise(n); }
// Nodes that make a new mutable object each time they run (a list, a dict,
// a function object): not to be merged or run fewer times.
inline bool makesFreshObject(const ir::Node& n) {
  return n.op() == ir::Op::MakeList || n.op() == ir::Op::MakeDict || n.op() == ir::Op::MakeClosure;
}

}  // namespace nn::passes
