// The functions through which the JIT's fused kernels call nn's special
// functions (runtime/special_math.h), by the names the JIT declares them
// with (codegen.h): the kernels' own code, so a fused chain gives their
// bits.
#include "runtime/jit/codegen.h"
#include "runtime/special_math.h"

namespace {

double nn_lgamma(double x) { return nn::rt::special::lgamma(x); }
double nn_digamma(double x) { return nn::rt::special::digamma(x); }
double nn_erfinv(double x) { return nn::rt::special::erfinv(x); }
float nn_erfinvf(float x) { return nn::rt::special::erfinv(x); }
double nn_polygamma(double n, double x) { return nn::rt::special::polygamma(n, x); }

}  // namespace

namespace nn::rt::jit {

const FunctionSymbol* specialFunctionSymbols(int* count) {
  static const FunctionSymbol symbols[] = {{"nn_lgamma", reinterpret_cast<void*>(&nn_lgamma)},
                                           {"nn_digamma", reinterpret_cast<void*>(&nn_digamma)},
                                           {"nn_erfinv", reinterpret_cast<void*>(&nn_erfinv)},
                                           {"nn_erfinvf", reinterpret_cast<void*>(&nn_erfinvf)},
                                           {"nn_polygamma", reinterpret_cast<void*>(&nn_polygamma)}};
  *count = static_cast<int>(sizeof(symbols) / sizeof(symbols[0]));
  return symbols;
}

}  // namespace nn::rt::jit
