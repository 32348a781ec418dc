// The runtime's half of "inputs on different devices are copied"
// (language.md §7): where only the run knows where an operation's tensor
// operands are, those not on the device it runs on are copied there before
// it runs, by the rule the compile-time copies follow
// (ir::decidingOperand; passes/place_devices.cpp makes them nodes where
// the IR knows the devices).
#pragma once

#include <functional>
#include <vector>

#include "ir/ir.h"
#include "runtime/device.h"
#include "runtime/value.h"

namespace nn::rt {

// Tells whether the tensors among the values it is shown are on more than
// one device: the cheap test before alignOperandDevices, on every op's path.
struct DeviceSpread {
  const Device* seen = nullptr;
  bool several = false;
  void see(const Value& v) {
    if (!v.is(Kind::Tensor)) return;
    const Device* d = &tensorOf(v).device();
    several |= seen && d != seen;
    seen = d;
  }
};

inline bool onSeveralDevices(const Value* const* operands, size_t count) {
  DeviceSpread spread;
  for (size_t i = 0; i < count && !spread.several; ++i) spread.see(*operands[i]);
  return spread.several;
}

// Replaces each tensor among `operands` (`count` of them) that is not on
// the device op `op` runs on by `copy(value, device)`, kept in `copies`
// (reserved here, so that the operands can point into it). Returns whether
// any operand was copied; with all tensors on one device it only looks.
bool alignOperandDevices(ir::Op op, const Value** operands, size_t count, std::vector<Value>& copies,
                         const std::function<Value(const Value&, Device&)>& copy);

// The same for values held in `values`, replaced in place; the items of a
// list or tuple among them (concat's, stack's tensors) count as operands,
// and such a sequence is replaced by a new one holding the copies.
bool alignOperandDevices(ir::Op op, std::vector<Value>& values,
                         const std::function<Value(const Value&, Device&)>& copy);

}  // namespace nn::rt
