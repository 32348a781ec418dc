// PyTorch's predicates of tensors, answered as Python bools: equal(a, b)
// (the same shape and the same elements; a NaN equals nothing), and of one
// tensor is_floating_point, is_complex (never: nn has no complex dtype),
// is_signed, is_nonzero (of one element) and is_same_size(a, b). The ones
// PyTorch has as tensor methods are methods too. equal reads the
// comparison's result on the host, as bool(x) does.
#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value bEqual(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = argument(c, args, 0, "input", nullptr), b = argument(c, args, 1, "other", nullptr);
  c.checkKeywordsUsed("equal");
  const Tensor &x = tensorArg(c, a, "input"), &y = tensorArg(c, b, "other");
  if (x.shape() != y.shape()) return Value::boolean(false);
  if (x.numel() == 0) return Value::boolean(true);
  Value same = binary(c, ir::Op::Eq, a, b);
  Value all = applyOp(c, ir::Op::All, {same, Value::none(), Value::boolean(false)});
  return Value::boolean(readableOnHost(tensorOf(all), c.loc).flatAsInt(0) != 0);
}

// A predicate of the dtype, or is_nonzero's of the one element.
Value bOfOne(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value v = argument(c, args, 0, "input", nullptr);
  c.checkKeywordsUsed(c.name.c_str());
  const Tensor& t = tensorArg(c, v, "input");
  if (c.name == "is_floating_point") return Value::boolean(isFloating(t.dtype()));
  if (c.name == "is_complex") return Value::boolean(false);
  if (c.name == "is_signed") return Value::boolean(t.dtype() != DType::Bool);
  if (t.numel() != 1)
    fail(c.loc, "is_nonzero(): a tensor of " + std::to_string(t.numel()) + " elements is ambiguous; it needs one",
         ErrorClass::RuntimeError);
  return Value::boolean(readableOnHost(t, c.loc).flatAsDouble(0) != 0);
}

Value bIsSameSize(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = argument(c, args, 0, "input", nullptr), b = argument(c, args, 1, "other", nullptr);
  c.checkKeywordsUsed("is_same_size");
  return Value::boolean(tensorArg(c, a, "input").shape() == tensorArg(c, b, "other").shape());
}

}  // namespace

BuiltinFn tensorPredicateMethod(const std::string& name) {
  if (name == "equal") return bEqual;
  if (name == "is_floating_point" || name == "is_complex" || name == "is_signed" || name == "is_nonzero") return bOfOne;
  if (name == "is_same_size") return bIsSameSize;
  return nullptr;
}

void addTensorPredicates(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::Equal, Builtin::IsFloatingPoint, Builtin::IsComplex, Builtin::IsSigned, Builtin::IsNonzero,
                    Builtin::IsSameSize})
    table[ir::builtinInfo(b).name] = tensorPredicateMethod(ir::builtinInfo(b).name);
}

}  // namespace nn::stdlib
