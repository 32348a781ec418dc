// The builtins that name and test classes: type, isinstance, callable, the
// class Tensor, and the exception classes (ValueError("msg") makes an
// exception). isinstance accepts the builtin types, Tensor, the exception
// classes, and tuples of them, as Python does.
#include "ir/builtins.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value bType(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  return Value::str(typeName(args[0]));
}

// ValueError("msg") and every other exception class: an exception of the
// class the builtin is named for.
Value bException(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 1);
  return makeException(*errorClassNamed(c.name), args.empty() ? std::string() : str(args[0]));
}

// isinstance(x, cls) with a builtin type (int, float, bool, str, list,
// tuple, dict), an exception class, or a tuple of them.
bool instanceOf(CallContext& c, const Value& x, const Value& cls) {
  if (cls.is(Kind::Tuple)) {
    for (const Value& k : cls.as<SeqObj>().items)
      if (instanceOf(c, x, k)) return true;
    return false;
  }
  const std::string name = cls.is(Kind::Builtin) ? cls.as<BuiltinObj>().name : "";
  if (auto ec = errorClassNamed(name)) return x.is(Kind::Exception) && errorClassIsA(x.as<ExceptionObj>().errorClass, *ec);
  if (name == "int") return x.is(Kind::Int) || x.is(Kind::Bool);
  if (name == "float") return x.is(Kind::Float);
  if (name == "bool") return x.is(Kind::Bool);
  if (name == "str") return x.is(Kind::Str);
  if (name == "list") return x.is(Kind::List);
  if (name == "tuple") return x.is(Kind::Tuple);
  if (name == "dict") return x.is(Kind::Dict);
  if (name == "tensor" || name == "Tensor") return x.is(Kind::Tensor);
  fail(c.loc, std::string("isinstance() arg 2 must be a type, a tuple of types, or an exception class, not ") +
                  (name.empty() ? typeName(cls) : name),
       ErrorClass::TypeError);
}

Value bIsinstance(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  return Value::boolean(instanceOf(c, args[0], args[1]));
}

// Tensor is the class of tensors (isinstance, annotations). PyTorch's
// legacy constructor, torch.Tensor(data) or torch.Tensor(2, 3), is not
// provided: the functions that make tensors say what they make.
Value bTensorType(CallContext& c, std::vector<Value>&) {
  fail(c.loc,
       "Tensor is the class of tensors, not a constructor: make one with tensor(data), zeros(*shape), "
       "ones(*shape) or randn(*shape)",
       ErrorClass::TypeError);
}

Value bCallable(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  return Value::boolean(args[0].is(Kind::Function) || args[0].is(Kind::Builtin) || args[0].is(Kind::Method));
}

}  // namespace

void addTypeBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Type).name] = bType;
  table[ir::builtinInfo(ir::Builtin::Isinstance).name] = bIsinstance;
  table[ir::builtinInfo(ir::Builtin::TensorType).name] = bTensorType;
  table[ir::builtinInfo(ir::Builtin::Callable).name] = bCallable;
  for (const std::string& name : errorClassNames()) table[name] = bException;
}

}  // namespace nn::stdlib
