// Python's exception classes (error_class.def) as an enum with the class
// hierarchy, so that `except ValueError` catches what nn itself raises. An
// error raised without a class is classified from its message by the
// conventions nn's messages follow (Python's own wording: "... out of
// range" is an IndexError, "unsupported operand type(s)" a TypeError, a
// shape or dtype mismatch a ValueError); the sites whose wording is not
// enough name the class where they fail.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nn {

enum class ErrorClass : uint8_t {
  Unclassified,
#define ERROR_CLASS(name, base) name,
#include "support/error_class.def"
#undef ERROR_CLASS
};

const char* errorClassName(ErrorClass c);
// The class `name` names, if any.
std::optional<ErrorClass> errorClassNamed(std::string_view name);
// The class c derives from (BaseException: itself).
ErrorClass errorClassBase(ErrorClass c);
// Whether an error of class c is caught by `except base`.
bool errorClassIsA(ErrorClass c, ErrorClass base);
// The class of an error: `declared` unless Unclassified, else the class
// its message implies (RuntimeError when nothing does).
ErrorClass classifyError(ErrorClass declared, const std::string& message);
// Every class name, in declaration order (for builtins and suggestions).
std::vector<std::string> errorClassNames();

}  // namespace nn
