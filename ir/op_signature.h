// The parameters of a tensor op, from the signature ops.def declares for it
// ("x, axis: ints? = None, keepdims: bool = False"). An untyped parameter is
// an operand; a typed one an attribute (its type one of AttrType, `?` when
// None is allowed); `= literal` gives a default; `*name: ints` takes the
// remaining positional ints (or a single tuple or list of them). The op
// table counts operands at compile time (countOperandParams); everything
// else reads the parsed form (signatureOf), made once and never changed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace nn::ir {

// The operand parameters of `signature`: all of them, or with
// `requiredOnly` those without a default.
constexpr int countOperandParams(const char* signature, bool requiredOnly) {
  int n = 0;
  const char* s = signature;
  while (*s) {
    bool typed = false, star = false, defaulted = false, named = false;
    for (; *s && *s != ','; ++s) {
      typed |= *s == ':';
      star |= *s == '*';
      defaulted |= *s == '=';
      named |= *s != ' ';
    }
    if (named && !typed && !star && !(requiredOnly && defaulted)) ++n;
    if (*s == ',') ++s;
  }
  return n;
}

enum class AttrType : uint8_t { Int, Float, Bool, Str, DType, Ints };

struct Param {
  std::string name;
  bool isAttr = false;   // a typed attribute, else an operand
  AttrType type = AttrType::Int;
  bool optional = false;  // `?`: None is allowed
  bool variadic = false;  // `*name`
  std::optional<std::string> defaultLiteral;
  // The default as a value: None for an operand; for an attribute its
  // literal read as the attribute's type (an `ints` default is one int).
  std::optional<Attr> defaultValue;
};

struct Signature {
  std::vector<Param> params;
  // The index of the parameter named `name`, or -1.
  int find(std::string_view name) const;
  // The parameter a keyword argument names: its own name or PyTorch's
  // spelling of it (dim for axis, keepdim for keepdims, input for x); -1.
  int findKeyword(std::string_view keyword) const;
};

// The parsed signature of a tensor op (empty for the language's own ops).
const Signature& signatureOf(Op op);

// Where each parameter's argument comes from in a call with `positional`
// positional arguments and the keywords `kwnames`, by Python's rules:
// positional arguments in order, the rest of them into a `*name`
// parameter, keywords by name, defaults for the others. The compiler
// (op_args.h) and the runtime (stdlib/op_call.h) both bind through it.
struct ArgSource {
  enum Kind : uint8_t { Default, Positional, Keyword, Rest } kind = Default;
  size_t index = 0;  // the positional or keyword argument; Rest: the first positional one it takes
};
struct ArgMatch {
  enum class Error : uint8_t { None, TooManyPositional, UnexpectedKeyword, DuplicateKeyword, MissingArgument };
  Error error = Error::None;
  std::string name;                 // the keyword or parameter the error is about
  std::vector<ArgSource> sources;   // one per parameter
};
ArgMatch matchArguments(const Signature& sig, size_t positional, const std::vector<std::string>& kwnames);

}  // namespace nn::ir
