// Python's repr() of a float: the shortest string that round-trips, written
// positionally for exponents in [-4, 16) and in scientific form otherwise
// ("0.1", "1.0", "1e-05", "1e+16", "inf", "nan"). Used by the runtime's
// printing and by the IR printer, so both agree. floatReprF32 applies the
// same layout to the shortest digits of a float32 (NumPy's scalar printing).
#pragma once

#include <string>

namespace nn {

std::string floatRepr(double value);
std::string floatReprF32(float value);

}  // namespace nn
