// Shortest round-trip float formatting with Python's layout rules.
#include "support/float_repr.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nn {
namespace {

// Lays out the digits of to_chars' shortest scientific form ("-d.ddde+XX").
std::string pythonLayout(std::string sci) {
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  int exp = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  int decpt = exp + 1;  // position of the decimal point relative to digits
  if (exp < -4 || exp >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  } else if (decpt <= 0) {
    out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  } else if (static_cast<size_t>(decpt) >= digits.size()) {
    out = digits + std::string(decpt - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  return neg ? "-" + out : out;
}

template <class F>
std::string repr(F value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  return pythonLayout(std::string(buf, res.ptr));
}

}  // namespace

std::string floatRepr(double value) { return repr(value); }
std::string floatReprF32(float value) { return repr(value); }

}  // namespace nn
