// The functions through which the JIT's fused kernels call nn's special
// functions (runtime/special_math.h), by the names the JIT declares them
// with (codegen.h): the kernels' own code, so a fused chain gives their
// bits.
#include <cstdint>

#include "runtime/jit/codegen.h"
#include "runtime/special_math.h"

namespace {

double nn_lgamma(double x) { return nn::rt::special::lgamma(x); }
double nn_digamma(double x) { return nn::rt::special::digamma(x); }
double nn_erfinv(double x) { return nn::rt::special::erfinv(x); }
float nn_erfinvf(float x) { return nn::rt::special::erfinv(x); }
double nn_polygamma(double n, double x) { return nn::rt::special::polygamma(n, x); }
double nn_zeta(double x, double q) { return nn::rt::special::zeta(x, q); }
double nn_gammainc(double a, double x) { return nn::rt::special::incompleteGamma(a, x, false); }
double nn_gammaincc(double a, double x) { return nn::rt::special::incompleteGamma(a, x, true); }
double nn_i0(double x) { return nn::rt::special::besselI(0, x); }
double nn_i0e(double x) { return nn::rt::special::besselIScaled(0, x); }
double nn_i1(double x) { return nn::rt::special::besselI(1, x); }
double nn_i1e(double x) { return nn::rt::special::besselIScaled(1, x); }
double nn_k0(double x) { return nn::rt::special::besselK(0, x); }
double nn_k0e(double x) { return nn::rt::special::besselKScaled(0, x); }
double nn_k1(double x) { return nn::rt::special::besselK(1, x); }
double nn_k1e(double x) { return nn::rt::special::besselKScaled(1, x); }
double nn_erfcx(double x) { return nn::rt::special::erfcx(x); }
double nn_ndtri(double x) { return nn::rt::special::ndtri(x); }
double nn_log_ndtr(double x) { return nn::rt::special::logNdtr(x); }
double nn_bessel_j0(double x) { return nn::rt::special::besselJ0(x); }
double nn_bessel_j1(double x) { return nn::rt::special::besselJ1(x); }
double nn_bessel_y0(double x) { return nn::rt::special::besselY0(x); }
double nn_bessel_y1(double x) { return nn::rt::special::besselY1(x); }
double nn_airy_ai(double x) { return nn::rt::special::airyAi(x); }
double nn_frexp_mantissa(double x) { return nn::rt::special::frexpMantissa(x); }
double nn_frexp_exponent(double x) { return nn::rt::special::frexpExponent(x); }
int32_t nn_gcd_i32(int32_t a, int32_t b) { return nn::rt::special::gcd(a, b); }
int64_t nn_gcd_i64(int64_t a, int64_t b) { return nn::rt::special::gcd(a, b); }
int32_t nn_lcm_i32(int32_t a, int32_t b) { return nn::rt::special::lcm(a, b); }
int64_t nn_lcm_i64(int64_t a, int64_t b) { return nn::rt::special::lcm(a, b); }

}  // namespace

namespace nn::rt::jit {

const FunctionSymbol* specialFunctionSymbols(int* count) {
  static const FunctionSymbol symbols[] = {{"nn_lgamma", reinterpret_cast<void*>(&nn_lgamma)},
                                           {"nn_digamma", reinterpret_cast<void*>(&nn_digamma)},
                                           {"nn_erfinv", reinterpret_cast<void*>(&nn_erfinv)},
                                           {"nn_erfinvf", reinterpret_cast<void*>(&nn_erfinvf)},
                                           {"nn_polygamma", reinterpret_cast<void*>(&nn_polygamma)},
                                           {"nn_zeta", reinterpret_cast<void*>(&nn_zeta)},
                                           {"nn_gammainc", reinterpret_cast<void*>(&nn_gammainc)},
                                           {"nn_gammaincc", reinterpret_cast<void*>(&nn_gammaincc)},
                                           {"nn_i0", reinterpret_cast<void*>(&nn_i0)},
                                           {"nn_i0e", reinterpret_cast<void*>(&nn_i0e)},
                                           {"nn_i1", reinterpret_cast<void*>(&nn_i1)},
                                           {"nn_i1e", reinterpret_cast<void*>(&nn_i1e)},
                                           {"nn_k0", reinterpret_cast<void*>(&nn_k0)},
                                           {"nn_k0e", reinterpret_cast<void*>(&nn_k0e)},
                                           {"nn_k1", reinterpret_cast<void*>(&nn_k1)},
                                           {"nn_k1e", reinterpret_cast<void*>(&nn_k1e)},
                                           {"nn_erfcx", reinterpret_cast<void*>(&nn_erfcx)},
                                           {"nn_ndtri", reinterpret_cast<void*>(&nn_ndtri)},
                                           {"nn_log_ndtr", reinterpret_cast<void*>(&nn_log_ndtr)},
                                           {"nn_bessel_j0", reinterpret_cast<void*>(&nn_bessel_j0)},
                                           {"nn_bessel_j1", reinterpret_cast<void*>(&nn_bessel_j1)},
                                           {"nn_bessel_y0", reinterpret_cast<void*>(&nn_bessel_y0)},
                                           {"nn_bessel_y1", reinterpret_cast<void*>(&nn_bessel_y1)},
                                           {"nn_airy_ai", reinterpret_cast<void*>(&nn_airy_ai)},
                                           {"nn_frexp_mantissa", reinterpret_cast<void*>(&nn_frexp_mantissa)},
                                           {"nn_frexp_exponent", reinterpret_cast<void*>(&nn_frexp_exponent)},
                                           {"nn_gcd_i32", reinterpret_cast<void*>(&nn_gcd_i32)},
                                           {"nn_gcd_i64", reinterpret_cast<void*>(&nn_gcd_i64)},
                                           {"nn_lcm_i32", reinterpret_cast<void*>(&nn_lcm_i32)},
                                           {"nn_lcm_i64", reinterpret_cast<void*>(&nn_lcm_i64)}};
  *count = static_cast<int>(sizeof(symbols) / sizeof(symbols[0]));
  return symbols;
}

}  // namespace nn::rt::jit
