// SLEEF's forms of the functions sleef_functions.def lists, declared here
// rather than through <sleef.h>, which declares the AVX and AVX-512 forms
// only when the whole file is compiled for those instructions; nn's code
// is compiled for any x86-64 and calls them from functions compiled for
// them (vector_math.cpp), after asking the CPU. Also the forms this CPU
// runs, for the JIT.
#pragma once

#include <immintrin.h>

#include <string_view>
#include <vector>

extern "C" {
#define SLEEF_FUNCTION(Name, f)                         \
  float Sleef_cinz_##f##f1_u10purec(float);             \
  __m128 Sleef_cinz_##f##f4_u10sse2(__m128);            \
  __m256 Sleef_cinz_##f##f8_u10avx(__m256);             \
  __m512 Sleef_cinz_##f##f16_u10avx512fnofma(__m512);
#include "runtime/sleef_functions.def"
#undef SLEEF_FUNCTION
}

namespace nn::rt::sleef {

// The widest vector form this CPU runs: 16 (AVX-512), 8 (AVX) or 4 (SSE2,
// every x86-64). Every form gives the same bits, so the choice is speed's.
inline int widestForm() {
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx")) return 8;
  return 4;
}

// SLEEF's log1pf is infinite above 1e38 (where the true value is about
// 87.5): there log(x) is log1p(x) within 1 ULP, and the kernels and the JIT
// take that instead.
inline constexpr float kLog1pLargest = 1e38f;

// One form of one function: its symbol, address and width (1: the scalar).
struct Form {
  const char* symbol;
  void* address;
  int width;
};

// The forms of every function, or of SLEEF's function `only` ("exp", ...),
// with `usable`: only those this CPU runs. In increasing width, the scalar
// first.
inline std::vector<Form> forms(std::string_view only = {}, bool usable = false) {
  std::vector<Form> found;
  int cpu = usable ? widestForm() : 16;
#define SLEEF_FUNCTION(Name, f)                                                                                     \
  if (only.empty() || only == #f) {                                                                                 \
    Form each[] = {{"Sleef_cinz_" #f "f1_u10purec", reinterpret_cast<void*>(&Sleef_cinz_##f##f1_u10purec), 1},      \
                   {"Sleef_cinz_" #f "f4_u10sse2", reinterpret_cast<void*>(&Sleef_cinz_##f##f4_u10sse2), 4},        \
                   {"Sleef_cinz_" #f "f8_u10avx", reinterpret_cast<void*>(&Sleef_cinz_##f##f8_u10avx), 8},          \
                   {"Sleef_cinz_" #f "f16_u10avx512fnofma", reinterpret_cast<void*>(&Sleef_cinz_##f##f16_u10avx512fnofma), 16}}; \
    for (const Form& form : each)                                                                                   \
      if (!usable || form.width <= cpu) found.push_back(form);                                                      \
  }
#include "runtime/sleef_functions.def"
#undef SLEEF_FUNCTION
  return found;
}

}  // namespace nn::rt::sleef
