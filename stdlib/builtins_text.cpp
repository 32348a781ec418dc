// format, hex, oct and bin: Python's builtins that write a value as text,
// all by the f-string format spec (runtime/format.h), so that format(x,
// ".3f") is f"{x:.3f}" and hex(i) is f"{i:#x}"; and chr and ord, between a
// code point and its one-character (UTF-8) string.
#include "ir/builtins.h"
#include "runtime/format.h"
#include "stdlib/builtins.h"
#include "support/utf8.h"

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

Value bChr(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  int64_t cp = toIndex(args[0], c.loc);
  if (cp < 0 || cp > 0x10FFFF) fail(c.loc, "chr() arg not in range(0x110000)");
  std::string s;
  appendUtf8(static_cast<char32_t>(cp), s);
  return Value::str(s);
}

Value bOrd(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  if (!args[0].is(Kind::Str) || args[0].asStr().empty())
    fail(c.loc, "ord() expected a character");
  const std::string& s = args[0].asStr();
  unsigned char b0 = static_cast<unsigned char>(s[0]);
  size_t len = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  if (s.size() != len) fail(c.loc, "ord() expected a character, but string of length " + std::to_string(s.size()) + " found");
  uint32_t cp = len == 1 ? b0 : len == 2 ? b0 & 0x1F : len == 3 ? b0 & 0x0F : b0 & 0x07;
  for (size_t i = 1; i < len; ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
  return Value::integer(cp);
}

}  // namespace

void addTextBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Format).name] = bFormat;
  table[ir::builtinInfo(ir::Builtin::Hex).name] = bHex;
  table[ir::builtinInfo(ir::Builtin::Oct).name] = bOct;
  table[ir::builtinInfo(ir::Builtin::Bin).name] = bBin;
  table[ir::builtinInfo(ir::Builtin::Chr).name] = bChr;
  table[ir::builtinInfo(ir::Builtin::Ord).name] = bOrd;
}

}  // namespace nn::stdlib
