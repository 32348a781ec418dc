// The exception class table (error_class.def) and the classification of
// errors raised without a class from their message.
#include "support/error_class.h"

namespace nn {
namespace {

struct ClassInfo {
  const char* name;
  ErrorClass base;
};

const ClassInfo kClasses[] = {
    {"<unclassified>", ErrorClass::Unclassified},
#define ERROR_CLASS(name, base) {#name, ErrorClass::base},
#include "support/error_class.def"
#undef ERROR_CLASS
};

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

const char* errorClassName(ErrorClass c) { return kClasses[static_cast<size_t>(c)].name; }

ErrorClass errorClassBase(ErrorClass c) { return kClasses[static_cast<size_t>(c)].base; }

std::optional<ErrorClass> errorClassNamed(std::string_view name) {
  for (size_t i = 1; i < std::size(kClasses); ++i)
    if (name == kClasses[i].name) return static_cast<ErrorClass>(i);
  return std::nullopt;
}

bool errorClassIsA(ErrorClass c, ErrorClass base) {
  for (int depth = 0; depth < 8; ++depth) {
    if (c == base) return true;
    ErrorClass up = kClasses[static_cast<size_t>(c)].base;
    if (up == c) return false;
    c = up;
  }
  return false;
}

// The wording is Python's (and NumPy's) where nn's messages follow it; the
// first rule that matches decides.
ErrorClass classifyError(ErrorClass declared, const std::string& m) {
  if (declared != ErrorClass::Unclassified) return declared;
  if (has(m, "by zero")) return ErrorClass::ZeroDivisionError;
  if (has(m, "integer overflow") || has(m, "too large to convert") || has(m, "float infinity to integer"))
    return ErrorClass::OverflowError;
  if (has(m, "is not defined")) return ErrorClass::NameError;
  if (has(m, "has no attribute")) return ErrorClass::AttributeError;
  if (has(m, "No such file") || has(m, "cannot open") || has(m, "cannot read") || has(m, "cannot write"))
    return has(m, "No such file") ? ErrorClass::FileNotFoundError : ErrorClass::OSError;
  if (has(m, "No module named") || has(m, "not found (looked for")) return ErrorClass::ModuleNotFoundError;
  if (has(m, "cannot be raised to a negative power")) return ErrorClass::ZeroDivisionError;
  if (has(m, "single ellipsis")) return ErrorClass::IndexError;
  if (has(m, "maximum recursion depth")) return ErrorClass::RecursionError;
  if (has(m, "out of memory")) return ErrorClass::MemoryError;
  // Python's TypeErrors of operands and arguments of the wrong type.
  if (has(m, "not supported between instances") || has(m, "expected str instance") || has(m, "bad operand type") ||
      has(m, "doesn't define") || has(m, "can only assign") || has(m, "can't sum strings") ||
      has(m, "iteration over a 0-d tensor") || has(m, "len() of a 0-d tensor") || has(m, "cannot unpack a 0-d"))
    return ErrorClass::TypeError;
  if (has(m, "not supported")) return ErrorClass::NotImplementedError;
  // str.format, % and f-strings: a malformed field or spec (a spec the
  // value's type does not take is a TypeError).
  if (has(m, "unsupported format string")) return ErrorClass::TypeError;
  if (has(m, "format string") || has(m, "format specifier") || has(m, "format field") || has(m, "format code") ||
      has(m, "conversion specifier") || has(m, "precision too big") || has(m, "cannot specify ','") ||
      has(m, "before end of string"))
    return ErrorClass::ValueError;
  if (has(m, "index") && (has(m, "out of range") || has(m, "out of bounds"))) return ErrorClass::IndexError;
  if (has(m, "too many indices")) return ErrorClass::IndexError;
  // "must be" a type ("x must be an int, not str") is Python's TypeError
  // wording; "must be" a value (positive, in a range, of a shape) is not.
  bool mustBeType = has(m, "must be") && (has(m, ", not ") || has(m, "must be a ") || has(m, "must be an ") ||
                                          has(m, "must be str") || has(m, "must be integers"));
  if (has(m, "unsupported operand") || has(m, "not iterable") || has(m, "not callable") ||
      has(m, "not subscriptable") || has(m, "argument") || mustBeType || has(m, "object is not") ||
      has(m, "expects a") || has(m, "expected a") || has(m, "has no len()"))
    return ErrorClass::TypeError;
  if (has(m, "shape") || has(m, "dtype") || has(m, "broadcast") || has(m, "reshape") || has(m, "axis") ||
      has(m, "values to unpack") || has(m, "invalid") || has(m, "math domain") || has(m, "cannot convert") ||
      has(m, "mismatch") || has(m, "must have") || has(m, "empty") || has(m, "could not convert") ||
      has(m, "must not be zero") || has(m, "not in range(") || has(m, "cannot be zero") ||
      has(m, "negative shift count") || has(m, "update sequence element") || has(m, "is not a number") ||
      has(m, "malformed") || has(m, "negative integer powers") || has(m, "fractional power") ||
      has(m, "inconsistent") || has(m, "must be"))
    return ErrorClass::ValueError;
  return ErrorClass::RuntimeError;
}

std::vector<std::string> errorClassNames() {
  std::vector<std::string> out;
  for (size_t i = 1; i < std::size(kClasses); ++i) out.push_back(kClasses[i].name);
  return out;
}

}  // namespace nn
