// Where tensors are, as far as the IR says at compile time: the device of a
// `to` copy, of a creation op (its device= attribute, else the CPU), of a
// place whose device name is a constant, and of an op on its tensor
// operands (an operation runs where its operands are; operands on several
// devices are copied to the one the rule below picks). place-devices uses
// it to drop copies of tensors already where they go and to make the
// copies of operands on several devices visible; --explain-placement and
// the REPL's :placement print it per node; the runtime applies the same
// rule where only the run knows the devices.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace nn::ir {

// One spelling per device: cpu:0 is cpu, cuda is cuda:0.
std::string canonicalDevice(const std::string& name);

// The device name a value holds when it is a str constant.
const std::string* constantDeviceName(const Value* v);

// Whether an operation with op `op` runs on its tensor operands' device:
// arithmetic, math, matmul, indexing and updates, the tensor ops (not the
// creation ops, which say their device, nor the copies).
bool followsOperands(Op op);

// Where such an operation runs when its tensor operands are on several
// devices (language.md §7), the others being copied there: an update of its
// first operand (setitem) where that operand is; otherwise on the first
// operand's device that is not the default `cpu`, the device the program
// chose, else on `cpu`. `devices`: each operand's device (null for one that
// is not a tensor or whose device is not known). Returns the index of the
// operand whose device it is.
size_t decidingOperand(Op op, const std::vector<const std::string*>& devices);

// The device of n's one tensor result, given the devices known of values
// (null where unknown), or nullopt when the IR does not say.
std::optional<std::string> resultDevice(const Node& n, const std::function<const std::string*(const Value*)>& known);

// Each tensor value of f (nested blocks included) whose device the IR says.
std::unordered_map<const Value*, std::string> knownDevices(const Function& f);

// Prints each node of f that makes a tensor, with its source line and
// column and its device ("where its operands are" where only the run
// decides), and each copy with the value it moves, its type and size.
void printPlacement(const Function& f, std::ostream& out);

}  // namespace nn::ir
