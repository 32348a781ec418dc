// Copies of operands on several devices at run time (see device_align.h).
#include "runtime/device_align.h"

#include "ir/placement.h"
#include "runtime/device.h"

namespace nn::rt {

bool alignOperandDevices(ir::Op op, const Value** operands, size_t count, std::vector<Value>& copies,
                         const std::function<Value(const Value&, Device&)>& copy) {
  if (!onSeveralDevices(operands, count) || !ir::followsOperands(op)) return false;
  copies.reserve(copies.size() + count);  // the operands point into it
  std::vector<const std::string*> names(count, nullptr);
  for (size_t i = 0; i < count; ++i)
    if (operands[i]->is(Kind::Tensor)) names[i] = &tensorOf(*operands[i]).device().name();
  Device& target = tensorOf(*operands[ir::decidingOperand(op, names)]).device();
  for (size_t i = 0; i < count; ++i) {
    if (!operands[i]->is(Kind::Tensor) || &tensorOf(*operands[i]).device() == &target) continue;
    copies.push_back(copy(*operands[i], target));
    operands[i] = &copies.back();
  }
  return true;
}

bool alignOperandDevices(ir::Op op, std::vector<Value>& values,
                         const std::function<Value(const Value&, Device&)>& copy) {
  // The tensors among the values and the items of a list or tuple of them
  // (concat, stack), in order.
  const Device* seen = nullptr;
  bool several = false;
  auto look = [&](const Value& v) {
    if (!v.is(Kind::Tensor)) return;
    const Device* d = &tensorOf(v).device();
    several |= seen && d != seen;
    seen = d;
  };
  auto each = [&](auto&& visit) {
    for (const Value& v : values) {
      if (v.is(Kind::List) || v.is(Kind::Tuple))
        for (const Value& item : v.as<SeqObj>().items) visit(item);
      else
        visit(v);
    }
  };
  each(look);
  if (!several) return false;
  std::vector<const Value*> operands;
  each([&](const Value& v) {
    if (v.is(Kind::Tensor)) operands.push_back(&v);
  });
  std::vector<const Value*> moved = operands;
  std::vector<Value> copies;
  copies.reserve(moved.size());
  if (!alignOperandDevices(op, moved.data(), moved.size(), copies, copy)) return false;
  size_t next = 0;
  for (Value& v : values) {
    if (!v.is(Kind::List) && !v.is(Kind::Tuple)) {
      if (v.is(Kind::Tensor)) v = *moved[next++];
      continue;
    }
    // A new sequence: the caller's list keeps its tensors where they are.
    std::vector<Value> items = v.as<SeqObj>().items;
    for (Value& item : items)
      if (item.is(Kind::Tensor)) item = *moved[next++];
    v = v.is(Kind::List) ? makeList(std::move(items)) : makeTuple(std::move(items));
  }
  return true;
}

}  // namespace nn::rt
