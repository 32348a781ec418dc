// Reverse-mode differentiation of straight-line code: the core that graph
// mode's autodiff pass and eager mode's tape (runtime/tape.h) share.
//
// Given forward nodes in program order (single-result ops), the value whose
// gradient is wanted (`output`) and the values to differentiate with
// respect to (`wrt`), it appends to a block the backward pass: each node
// that lies on a path from a `wrt` value to `output` gets its op's rule
// (ir/gradient.h) applied in reverse program order, and the adjoints of a
// value used several times are summed. `primal` maps a forward value to the
// value holding it where the backward is built (the same value when the
// backward follows the forward in one function; an argument bound to the
// recorded value for the tape).
#pragma once

#include <functional>
#include <vector>

#include "ir/ir.h"

namespace nn::passes {

struct ReverseRequest {
  std::vector<const ir::Node*> nodes;  // the forward, in program order
  const ir::Value* output = nullptr;
  ir::Value* seed = nullptr;           // the adjoint of output, in `into`
  std::vector<const ir::Value*> wrt;
  std::function<ir::Value*(const ir::Value*)> primal;
};

// The adjoint of each `wrt` value, built in `into`; null where no path
// from it reaches the output (a zero gradient).
std::vector<ir::Value*> reverseStraightLine(ir::Block& into, const ReverseRequest& request);

}  // namespace nn::passes
