// The interpreter's decoded form of a block it runs node by node (eager
// mode, and module code in graph mode): per node, the slots of its first
// operands and result, its last-use facts and which of the interpreter's
// inline paths runs it (two numbers' arithmetic or comparison, an int or
// float constant, a for loop's next item or length, a bound global, a
// module's member, an if's branch, a call of a function that runs as it
// is) — made on the block's first run and kept with the block (ir::Block::
// interpreterPlan), so later runs walk one array instead of chasing the
// IR's nodes, operand vectors and attributes, and dispatch each node once.
// Every node keeps its generic path (Interpreter::runNode), which a step
// takes whenever its inline path does not apply (another kind of value, an
// int overflow, a tape recording): the inline paths compute exactly what
// runNode would.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "ir/ir.h"

namespace nn::rt {

enum class StepKind : uint8_t {
  Generic,   // runNode
  Number,    // two ints, two floats or an int and a float: numberFastPath
  ConstInt,  // slots[result] = imm
  ConstFloat,
  IterItem,  // a range's, list's or tuple's item, a lazy sequence's quickAt
             // (slots[a] is the sequence, slots[b] the index)
  IterLen,   // a for loop's sequence's length (slots[a]), which never fails
  LoadGlobal,  // a bound global, from the entry the node's first run found
  If,        // an if on a bool or int (slots[a]): its branch from the step
  Call,      // a call (no keywords) of a function that runs as it is
             // (slots[a]): its frame made from the step
  ModuleAttr,  // a module's bound global (`math.sqrt`), from the entry the
               // node's first run found (slots[a] is the module)
};

struct Step {
  const ir::Node* node;
  uint64_t dying;            // node->dyingOperands()
  union {
    int64_t i;
    double f;
  } imm{0};
  uint32_t a = 0, b = 0, result = 0;  // value ids: operands 0 and 1, result 0
  uint32_t killsBegin = 0, killsEnd = 0;  // into BlockSteps::kills
  ir::Op op;
  StepKind kind = StepKind::Generic;
};

struct BlockSteps {
  std::vector<Step> steps;  // the nodes before the terminator
  std::vector<uint32_t> kills;  // each step's node->kills(), one after another
  const ir::Node* terminator = nullptr;
  // The block's arguments have ids firstArg, firstArg + 1, ... (ir::
  // Function::number); argsRead: the indices of those that a node of the
  // block (or of a block inside it) reads, which are all a loop's
  // condition needs to be given.
  uint32_t firstArg = 0;
  std::vector<uint32_t> argsRead;
};

BlockSteps decodeSteps(const ir::Block& b);

// Block b's steps, decoded on its first run.
inline const BlockSteps& stepsOf(const ir::Block& b) {
  if (const void* p = b.interpreterPlan()) [[likely]]
    return *static_cast<const BlockSteps*>(p);
  return *static_cast<const BlockSteps*>(b.publishInterpreterPlan(std::make_shared<BlockSteps>(decodeSteps(b))));
}

}  // namespace nn::rt
