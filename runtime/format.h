// Python's string formatting. The format-spec mini-language for f-string
// fields, [[fill]align][sign][#][0][width][,|_][.precision][type], for int,
// float, bool, str, a 0-d tensor and (with an empty spec) any value; and
// the two template forms built on it.
#pragma once

#include <string>
#include <vector>

#include "runtime/value.h"
#include "support/diagnostics.h"

namespace nn::rt {

std::string formatValue(const Value& v, const std::string& spec, SourceLoc loc);
// str.format: `fmt`'s {} fields filled from the positional and keyword
// arguments ({}, {0}, {name}, {0[1]}, !r/!s/!a, specs with nested fields).
std::string formatTemplate(const std::string& fmt, const std::vector<Value>& args,
                           const std::vector<std::string>& names, const std::vector<Value>& kwargs, SourceLoc loc);
// printf-style `fmt % values`: a tuple gives the arguments, a dict the
// %(key)s mapping, anything else is the one argument.
std::string percentFormat(const std::string& fmt, const Value& values, SourceLoc loc);

}  // namespace nn::rt
