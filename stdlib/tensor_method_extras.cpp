// PyTorch's smaller tensor methods that are other spellings or simple
// compositions: x.ndimension() and x.nelement() (ndim, numel),
// x.element_size() (bytes an element), x.is_contiguous() (always: a tensor
// is a value, its layout nn's business), x.get_device() (the device's
// index, -1 on the CPU, as PyTorch's), x.new_tensor(data) (a tensor of x's
// dtype on x's device), x.where(condition, y) (where(condition, x, y)),
// x.sum_to_size(*size) (x summed down to a size it broadcasts from),
// x.split_with_sizes(sizes, dim=0), and the complex-number queries of a
// real tensor: x.conj(), resolve_conj() and resolve_neg() are x, is_conj()
// and is_neg() False. Each runs its ops where a tape sees them.
#include <string>

#include "runtime/device.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value bNdimension(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 1);
  const Tensor& x = tensorOf(args[0]);
  return Value::integer(c.name == "ndimension" ? x.ndim() : x.numel());
}

Value bElementSize(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("element_size");
  checkArity(c, args, 1, 1);
  return Value::integer(static_cast<int64_t>(dtypeSize(tensorOf(args[0]).dtype())));
}

// is_contiguous, is_conj and is_neg: a constant answer for every tensor.
Value bConstantQuery(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 1);
  return Value::boolean(c.name == "is_contiguous");
}

// conj, resolve_conj, resolve_neg: x itself (a real tensor).
Value bRealIdentity(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed(c.name.c_str());
  checkArity(c, args, 1, 1);
  return args[0];
}

// The index in a device's name ("cuda:1" -> 1), -1 on the CPU.
Value bGetDevice(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("get_device");
  checkArity(c, args, 1, 1);
  const std::string& name = tensorOf(args[0]).device().name();
  if (name.rfind("cpu", 0) == 0) return Value::integer(-1);
  size_t colon = name.find(':');
  return Value::integer(colon == std::string::npos ? 0 : std::stoll(name.substr(colon + 1)));
}

// x.new_tensor(data, dtype=None, device=None).
Value bNewTensorOfData(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  const Tensor& x = tensorOf(args[0]);
  const Value* dtype = c.kw("dtype");
  const Value* device = c.kw("device");
  c.checkKeywordsUsed("new_tensor");
  std::optional<DType> dt = x.dtype();
  if (dtype && !dtype->is(Kind::None)) {
    dt = dtypeOfValue(*dtype);
    if (!dt) fail(c.loc, "new_tensor(): dtype must be a dtype, not " + repr(*dtype), ErrorClass::TypeError);
  }
  Value made = makeTensorValue(tensorFromData(args[1], dt, c.loc, x.device()));
  if (device && !device->is(Kind::None)) return applyOp(c, ir::Op::ToDevice, {made, *device});
  return made;
}

// x.where(condition, y): where(condition, x, y).
Value bWhereMethod(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 3, 3);
  c.checkKeywordsUsed("where");
  return where(c, args[1], args[0], args[2]);
}

// x.sum_to_size(*size): x summed over the dims that broadcasting `size`
// to x's shape would add or stretch, reshaped to size.
Value bSumToSize(CallContext& c, std::vector<Value>& args) {
  c.checkKeywordsUsed("sum_to_size");
  const Tensor& x = tensorOf(args[0]);
  std::vector<Value> items(args.begin() + 1, args.end());
  if (items.size() == 1 && (items[0].is(Kind::Tuple) || items[0].is(Kind::List))) items = items[0].as<SeqObj>().items;
  std::vector<int64_t> size;
  for (const Value& d : items) {
    if (!d.isIntLike()) fail(c.loc, "sum_to_size(): size must be ints, not " + repr(d), ErrorClass::TypeError);
    size.push_back(d.asInt());
  }
  Shape target(size.begin(), size.end());
  std::optional<Shape> both = tryBroadcastShapes(target, x.shape());
  if (!both || *both != x.shape())
    fail(c.loc, "sum_to_size(): size " + shapeString(target) + " is not expandable to " + typeString(x),
         ErrorClass::ValueError);
  std::vector<int64_t> axes;
  int64_t lead = x.ndim() - static_cast<int64_t>(size.size());
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (d < lead || (size[static_cast<size_t>(d - lead)] == 1 && x.dim(static_cast<int>(d)) != 1)) axes.push_back(d);
  Value summed = axes.empty() ? args[0] : applyOp(c, ir::Op::Sum, {args[0], intsTuple(axes), Value::boolean(true)});
  return reshaped(c, summed, size);
}

// x.split_with_sizes(split_sizes, dim=0): split(x, split_sizes, dim).
Value bSplitWithSizes(CallContext& c, std::vector<Value>& args) {
  const Value* sizesKw = c.kw("split_sizes");
  const Value* dimKw = c.kw("dim");
  c.checkKeywordsUsed("split_with_sizes");
  checkArity(c, args, sizesKw ? 1 : 2, dimKw ? 2 : 3);
  Value sizes = sizesKw ? *sizesKw : args[1];
  Value dim = dimKw ? *dimKw : args.size() > 2 ? args[2] : Value::integer(0);
  if (!sizes.is(Kind::Tuple) && !sizes.is(Kind::List))
    fail(c.loc, "split_with_sizes(): split_sizes must be a list of ints, not " + std::string(typeName(sizes)),
         ErrorClass::TypeError);
  return applyOp(c, ir::Op::Split, {args[0], sizes, dim});
}

}  // namespace

BuiltinFn tensorMethodExtra(const std::string& name) {
  if (name == "ndimension" || name == "nelement") return bNdimension;
  if (name == "element_size") return bElementSize;
  if (name == "is_contiguous" || name == "is_conj" || name == "is_neg") return bConstantQuery;
  if (name == "conj" || name == "resolve_conj" || name == "resolve_neg") return bRealIdentity;
  if (name == "get_device") return bGetDevice;
  if (name == "new_tensor") return bNewTensorOfData;
  if (name == "where") return bWhereMethod;
  if (name == "sum_to_size") return bSumToSize;
  if (name == "split_with_sizes") return bSplitWithSizes;
  return nullptr;
}

}  // namespace nn::stdlib
