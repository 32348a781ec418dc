// Last-use analysis. A value's life ends at the last node of its defining
// block that uses it, directly or from inside the node's nested blocks (a
// loop that reads a value keeps it alive until the loop is done). Executors
// use the facts to drop values early (so temporaries of `relu(a*b+c)` do
// not pile up) and to let an elementwise op write into an operand that is
// dying and held nowhere else; the graph executor's memory plan builds on
// the same facts.
#pragma once

namespace nn::ir {

class Function;

// Stores on every node of `f` which operands die there and which values
// to drop after it (Node::operandDies, Node::kills). Needs value ids, so
// Function::number() calls it.
void markLastUses(Function& f);

}  // namespace nn::ir
