// Where tensors are, as far as the IR says at compile time: the device of a
// `to` copy, of a creation op (its device= attribute, else the CPU), of a
// place whose device name is a constant, and of an op whose tensor operands
// are all on one known device (an operation runs where its operands are).
// place-devices uses it to drop copies of tensors already where they go;
// --explain-placement and the REPL's :placement print it per node.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>

#include "ir/ir.h"

namespace nn::ir {

// One spelling per device: cpu:0 is cpu, cuda is cuda:0.
std::string canonicalDevice(const std::string& name);

// The device name a value holds when it is a str constant.
const std::string* constantDeviceName(const Value* v);

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
