// The structural key of a node: op, attributes, operand values and result
// types. Two nodes with equal keys compute the same thing when the op is
// deterministic; CSE merges them, and the compile cache can hash whole
// graphs with it. Commutative ops (and + and * on numbers and tensors)
// order their operands canonically;
// floating-point attributes compare by bit pattern (0.0 and -0.0 differ).
#pragma once

#include <cstddef>
#include <vector>

#include "ir/ir.h"

namespace nn::ir {

struct NodeKey {
  const Node* node;
  std::vector<const Value*> operands;  // canonical order
  size_t hash;

  explicit NodeKey(const Node& n);
  bool operator==(const NodeKey& o) const;
};

struct NodeKeyHash {
  size_t operator()(const NodeKey& k) const { return k.hash; }
};

}  // namespace nn::ir
