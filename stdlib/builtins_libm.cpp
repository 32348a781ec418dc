// _libm(name, x[, y]): the C math library's functions that stdlib/lib/math.nn
// cannot build from the tensor builtins bit for bit (atan2, copysign, fmod,
// remainder, frexp, ldexp, modf, cbrt, exp2, nextafter), called as CPython's
// math module calls them. math.nn converts the arguments (floats; ldexp's
// exponent an int) and raises Python's errors for results outside the
// domain or range; here only the special cases CPython handles itself.
#include <cmath>

#include "ir/builtins.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value bLibm(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 3);
  if (!args[0].is(Kind::Str) || !args[1].isNumber() || (args.size() == 3 && !args[2].isNumber()))
    fail(c.loc, "_libm(name, x[, y]) takes a function name and numbers", ErrorClass::TypeError);
  const std::string& name = args[0].asStr();
  double x = args[1].asFloat();
  bool binary = args.size() == 3;
  double y = binary ? args[2].asFloat() : 0.0;
  if (!binary) {
    if (name == "cbrt") return Value::real(std::cbrt(x));
    if (name == "exp2") return Value::real(std::exp2(x));
    if (name == "modf") {
      double whole = 0.0;
      double fraction = std::modf(x, &whole);
      return makeTuple({Value::real(fraction), Value::real(whole)});
    }
    if (name == "frexp") {
      // CPython returns (x, 0) for inf and nan, where C leaves the exponent unspecified.
      if (!std::isfinite(x) || x == 0.0) return makeTuple({Value::real(x), Value::integer(0)});
      int exponent = 0;
      double mantissa = std::frexp(x, &exponent);
      return makeTuple({Value::real(mantissa), Value::integer(exponent)});
    }
  } else {
    if (name == "atan2") return Value::real(std::atan2(x, y));
    if (name == "copysign") return Value::real(std::copysign(x, y));
    if (name == "fmod") {
      // fmod(x, inf) is x for a finite x (C says so too; CPython checks it first).
      if (std::isinf(y) && std::isfinite(x)) return Value::real(x);
      return Value::real(std::fmod(x, y));
    }
    if (name == "remainder") return Value::real(std::remainder(x, y));
    if (name == "nextafter") return Value::real(std::nextafter(x, y));
    if (name == "ldexp") {
      if (!args[2].isIntLike()) fail(c.loc, "Expected an int as second argument to ldexp.", ErrorClass::TypeError);
      // Past +-2**16 every finite non-zero x is 0 or inf either way, and the
      // exponent fits C's int.
      int64_t e = args[2].asInt();
      int clamped = static_cast<int>(e < -65536 ? -65536 : e > 65536 ? 65536 : e);
      return Value::real(std::ldexp(x, clamped));
    }
  }
  fail(c.loc, "_libm(): no function '" + name + "' of " + (binary ? "two" : "one") + " argument" +
                  (binary ? "s" : ""),
       ErrorClass::ValueError);
}

}  // namespace

void addLibmBuiltin(BuiltinTable& table) { table[ir::builtinInfo(ir::Builtin::Libm).name] = bLibm; }

}  // namespace nn::stdlib
