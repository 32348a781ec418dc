// Python's format-spec mini-language for f-string fields:
// [[fill]align][sign][#][0][width][,|_][.precision][type], for int, float,
// bool, str and (with an empty spec) any value.
#pragma once

#include <string>

#include "runtime/value.h"
#include "support/diagnostics.h"

namespace nn::rt {

std::string formatValue(const Value& v, const std::string& spec, SourceLoc loc);

}  // namespace nn::rt
