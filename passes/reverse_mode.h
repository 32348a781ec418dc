// Reverse-mode differentiation of a block's code: the core that graph
// mode's autodiff pass (passes/autodiff.cpp) and eager mode's tape
// (runtime/tape.h) share.
//
// Given forward nodes in program order, the value whose gradient is wanted
// (`output`) and the values to differentiate with respect to (`wrt`), it
// appends to a block the backward pass: each node that lies on a path from
// a `wrt` value to `output` gets its op's rule (ir/gradient.h) applied in
// reverse program order, and the adjoints of a value used several times are
// summed. An `if` among the forward nodes gets a backward `if` on the same
// predicate, whose branches hold the backward of the forward branches; a
// value a branch's backward reads from inside the forward branch is saved:
// the forward `if` yields it as an extra result (the other branch yields a
// placeholder nothing reads). A loop gets a backward loop replaying its
// iterations in reverse; a value its body's backward reads is appended,
// each iteration, to a list made before the forward loop and read back
// with `saved_item` at the iteration being replayed. `primal` maps a forward value to the value
// holding it where the backward is built (the same value when the backward
// follows the forward in one function; an argument bound to the recorded
// value for the tape).
//
// Anything it cannot differentiate on a path to the output (a call that
// was not inlined, an op without a rule, a loop carrying a value of unknown
// type) throws NotDifferentiable, located at that node.
#pragma once

#include <functional>
#include <vector>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace nn::passes {

struct ReverseRequest {
  std::vector<const ir::Node*> nodes;  // the forward, in program order
  const ir::Value* output = nullptr;
  ir::Value* seed = nullptr;           // the adjoint of output, in `into`
  std::vector<const ir::Value*> wrt;
  std::function<ir::Value*(const ir::Value*)> primal;
};

class NotDifferentiable : public NnError {
 public:
  using NnError::NnError;
};

// The adjoint of each `wrt` value, built in `into`; null where no path
// from it reaches the output (a zero gradient).
std::vector<ir::Value*> reverseMode(ir::Block& into, const ReverseRequest& request);

// A zero adjoint of `like` (a tensor: zeros_like; a float: 0.0) in `into`,
// for a value no path from which reaches the output.
ir::Value* zeroAdjoint(ir::Block& into, SourceLoc loc, ir::Value* like);

}  // namespace nn::passes
