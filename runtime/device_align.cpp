// Copies of operands on several devices at run time (see device_align.h).
#include "runtime/device_align.h"

#include "ir/placement.h"
#include "runtime/device.h"

namespace nn::rt {

bool alignOperandDevices(ir::Op op, const Value** operands, size_t count, std::vector<Value>& copies,
                         const std::function<Value(const Value&, Device&)>& copy) {
  if (!onSeveralDevices(operands, count) || !ir::followsOperands(op)) return false;
  copies.reserve(copies.size() + count);
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
  auto each = [&](auto&& visit) {
    for (const Value& v : values) {
      if (v.is(Kind::List) || v.is(Kind::Tuple))
        for (const Value& item : v.as<SeqObj>().items) visit(item);
      else
        visit(v);
    }
  };
  DeviceSpread spread;
  each([&](const Value& v) { spread.see(v); });
  if (!spread.several) return false;
  std::vector<const Value*> operands;
  each([&](const Value& v) {
    if (v.is(Kind::Tensor)) operands.push_back(&v);
  });
  std::vector<Value> copies;
  if (!alignOperandDevices(op, operands.data(), operands.size(), copies, copy)) return false;
  size_t next = 0;
  for (Value& v : values) {
    if (!v.is(Kind::List) && !v.is(Kind::Tuple)) {
      if (v.is(Kind::Tensor)) v = *operands[next++];
      continue;
    }
    // A new sequence: the caller's list keeps its tensors where they are.
    std::vector<Value> items = v.as<SeqObj>().items;
    for (Value& item : items)
      if (item.is(Kind::Tensor)) item = *operands[next++];
    v = v.is(Kind::List) ? makeList(std::move(items)) : makeTuple(std::move(items));
  }
  return true;
}

}  // namespace nn::rt
