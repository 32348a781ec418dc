// format, hex, oct and bin: Python's builtins that write a value as text,
// all by the f-string format spec (runtime/format.h), so that format(x,
// ".3f") is f"{x:.3f}" and hex(i) is f"{i:#x}".
#include "ir/builtins.h"
#include "runtime/format.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value bFormat(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 2);
  std::string spec;
  if (args.size() == 2) {
    if (!args[1].is(Kind::Str))
      fail(c.loc, std::string("format() argument 2 must be str, not ") + typeName(args[1]), ErrorClass::TypeError);
    spec = args[1].asStr();
  }
  return Value::str(formatValue(args[0], spec, c.loc));
}

// An int (or bool) in base 16, 8 or 2 with its prefix: "-0x1f".
Value inBase(CallContext& c, std::vector<Value>& args, const char* spec) {
  checkArity(c, args, 1, 1);
  toIndex(args[0], c.loc);
  return Value::str(formatValue(args[0], spec, c.loc));
}
Value bHex(CallContext& c, std::vector<Value>& args) { return inBase(c, args, "#x"); }
Value bOct(CallContext& c, std::vector<Value>& args) { return inBase(c, args, "#o"); }
Value bBin(CallContext& c, std::vector<Value>& args) { return inBase(c, args, "#b"); }

}  // namespace

void addTextBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Format).name] = bFormat;
  table[ir::builtinInfo(ir::Builtin::Hex).name] = bHex;
  table[ir::builtinInfo(ir::Builtin::Oct).name] = bOct;
  table[ir::builtinInfo(ir::Builtin::Bin).name] = bBin;
}

}  // namespace nn::stdlib
