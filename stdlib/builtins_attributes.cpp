// getattr and hasattr: Python's builtins that read an attribute named by a
// str, the same attribute `obj.name` reads (Interpreter::attributeOf): a
// module's global, a bound method, a tensor's shape or x.T. Only an
// AttributeError is "no such attribute"; any other error (x.mT of a
// vector) goes through, as in Python.
#include "ir/builtins.h"
#include "runtime/tape.h"
#include "stdlib/builtins.h"
#include "support/error_class.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

const std::string& attributeName(CallContext& c, const Value& name) {
  if (!name.is(Kind::Str))
    fail(c.loc, std::string("attribute name must be string, not '") + typeName(name) + "'", ErrorClass::TypeError);
  return name.asStr();
}

// obj.name, recorded on the tape where it is an op of a tracked tensor
// (x.T is a transpose), as the GetAttr node records it.
Value readAttribute(CallContext& c, const Value& obj, const std::string& name) {
  Value out = c.interp.attributeOf(obj, name, c.loc);
  if (Tape* tape = c.interp.tape(); tape && obj.is(Kind::Tensor))
    if (std::optional<ir::AttributeOp> op = ir::tensorAttributeOp(name)) {
      std::vector<Value> axes;
      for (int64_t a : op->axes) axes.push_back(Value::integer(a));
      tape->recordTensorOp(op->op, c.loc, {obj, makeTuple(std::move(axes))}, out);
    }
  return out;
}

bool isAttributeError(const NnError& e) {
  return classifyError(e.diag().errorClass, e.diag().message) == ErrorClass::AttributeError;
}

Value bGetattr(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 3);
  const std::string& name = attributeName(c, args[1]);
  if (args.size() == 2) return readAttribute(c, args[0], name);
  try {
    return readAttribute(c, args[0], name);
  } catch (NnError& e) {
    if (!isAttributeError(e)) throw;
    return args[2];
  }
}

Value bHasattr(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  const std::string& name = attributeName(c, args[1]);
  try {
    c.interp.attributeOf(args[0], name, c.loc);
    return Value::boolean(true);
  } catch (NnError& e) {
    if (!isAttributeError(e)) throw;
    return Value::boolean(false);
  }
}

}  // namespace

void addAttributeBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Getattr).name] = bGetattr;
  table[ir::builtinInfo(ir::Builtin::Hasattr).name] = bHasattr;
}

}  // namespace nn::stdlib
