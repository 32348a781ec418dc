// SLEEF's forms of the functions sleef_functions.def lists, of fmod and
// of the two-argument atan2f and hypotf,
// declared here rather than through <sleef.h>, which declares the AVX and
// AVX-512 forms only when the whole file is compiled for those
// instructions; nn's code is compiled for any x86-64 and calls them from
// functions compiled for them (vector_math.cpp), after asking the CPU.
// Also the forms this CPU runs, for the JIT, with those of nn's own erf
// (erf_f32.h), which take the place of SLEEF's.
#pragma once

#include <immintrin.h>

#include <initializer_list>
#include <string_view>
#include <vector>

#include "runtime/erf_f32.h"

extern "C" {
#define SLEEF_FUNCTION(Name, f)                         \
  float Sleef_cinz_##f##f1_u10purec(float);             \
  __m128 Sleef_cinz_##f##f4_u10sse2(__m128);            \
  __m256 Sleef_cinz_##f##f8_u10avx(__m256);             \
  __m512 Sleef_cinz_##f##f16_u10avx512fnofma(__m512);
#include "runtime/sleef_functions.def"
#undef SLEEF_FUNCTION

// fmod of both precisions, exact (no rounding, so the same bits as libm's
// for every non-NaN result): the remainder behind % and //.
float Sleef_cinz_fmodf1_purec(float, float);
__m128 Sleef_cinz_fmodf4_sse2(__m128, __m128);
__m256 Sleef_cinz_fmodf8_avx(__m256, __m256);
__m512 Sleef_cinz_fmodf16_avx512fnofma(__m512, __m512);
// atan2 (within 1 ULP) and hypot (within 0.5 ULP) of floats: f32 atan2
// and hypot, as PyTorch's CPU kernels compute them.
#define NN_SLEEF_FLOAT_BINARY(f, u)                                \
  float Sleef_cinz_##f##f1_##u##purec(float, float);               \
  __m128 Sleef_cinz_##f##f4_##u##sse2(__m128, __m128);             \
  __m256 Sleef_cinz_##f##f8_##u##avx(__m256, __m256);              \
  __m512 Sleef_cinz_##f##f16_##u##avx512fnofma(__m512, __m512);
NN_SLEEF_FLOAT_BINARY(atan2, u10)
NN_SLEEF_FLOAT_BINARY(hypot, u05)
#undef NN_SLEEF_FLOAT_BINARY
double Sleef_cinz_fmodd1_purec(double, double);
__m128d Sleef_cinz_fmodd2_sse2(__m128d, __m128d);
__m256d Sleef_cinz_fmodd4_avx(__m256d, __m256d);
__m512d Sleef_cinz_fmodd8_avx512fnofma(__m512d, __m512d);

// Double exp, log and sincos ((sin, cos) in a pair of the argument's
// type), within 1 ULP: randn's Box-Muller (vmath::boxMuller) and
// ctc_loss's recursion (vmath::logSumExp3).
struct SleefDouble2 {
  double sin, cos;
};
struct SleefM128d2 {
  __m128d sin, cos;
};
struct SleefM256d2 {
  __m256d sin, cos;
};
struct SleefM512d2 {
  __m512d sin, cos;
};
double Sleef_cinz_logd1_u10purec(double);
__m128d Sleef_cinz_logd2_u10sse2(__m128d);
__m256d Sleef_cinz_logd4_u10avx(__m256d);
__m512d Sleef_cinz_logd8_u10avx512fnofma(__m512d);
__m128d Sleef_cinz_expd2_u10sse2(__m128d);
__m256d Sleef_cinz_expd4_u10avx(__m256d);
__m512d Sleef_cinz_expd8_u10avx512fnofma(__m512d);
SleefDouble2 Sleef_cinz_sincosd1_u10purec(double);
SleefM128d2 Sleef_cinz_sincosd2_u10sse2(__m128d);
SleefM256d2 Sleef_cinz_sincosd4_u10avx(__m256d);
SleefM512d2 Sleef_cinz_sincosd8_u10avx512fnofma(__m512d);
}

namespace nn::rt::sleef {

// The widest vector form this CPU runs: 16 (AVX-512), 8 (AVX2 and FMA:
// SLEEF's need AVX, nn's erf AVX2 and FMA) or 4 (SSE2, every x86-64).
// Every form gives the same bits, so the choice is speed's.
inline int widestForm() {
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
  return 4;
}

// SLEEF's log1pf is infinite above 1e38 (where the true value is about
// 87.5): there log(x) is log1p(x) within 1 ULP, and the kernels and the JIT
// take that instead.
inline constexpr float kLog1pLargest = 1e38f;

// One form of one function: its symbol, address, width (elements per
// call; 1: the scalar), number of arguments, and element type.
struct Form {
  const char* symbol;
  void* address;
  int width;
  int arity = 1;
  bool f64 = false;
};

// The forms of every function, or of the function `only` ("exp", ...;
// "erf": nn's; "fmodf" and "fmod": fmod of floats and of doubles;
// "atan2f", "hypotf"), with
// `usable`: only those this CPU runs. In increasing width, the scalar
// first.
inline std::vector<Form> forms(std::string_view only = {}, bool usable = false) {
  std::vector<Form> found;
  int cpuBits = (usable ? widestForm() : 16) * 32;
  auto add = [&](std::initializer_list<Form> each) {
    for (const Form& form : each)
      if (!usable || form.width * (form.f64 ? 64 : 32) <= cpuBits) found.push_back(form);
  };
#define SLEEF_FUNCTION(Name, f)                                                                     \
  if (only.empty() || only == #f)                                                                   \
    add({{"Sleef_cinz_" #f "f1_u10purec", reinterpret_cast<void*>(&Sleef_cinz_##f##f1_u10purec), 1}, \
         {"Sleef_cinz_" #f "f4_u10sse2", reinterpret_cast<void*>(&Sleef_cinz_##f##f4_u10sse2), 4},   \
         {"Sleef_cinz_" #f "f8_u10avx", reinterpret_cast<void*>(&Sleef_cinz_##f##f8_u10avx), 8},     \
         {"Sleef_cinz_" #f "f16_u10avx512fnofma", reinterpret_cast<void*>(&Sleef_cinz_##f##f16_u10avx512fnofma), 16}});
#include "runtime/sleef_functions.def"
#undef SLEEF_FUNCTION
  if (only.empty() || only == "erf")
    add({{"nn_erff1", reinterpret_cast<void*>(&nn_erff1), 1},
         {"nn_erff4", reinterpret_cast<void*>(&nn_erff4), 4},
         {"nn_erff8", reinterpret_cast<void*>(&nn_erff8), 8},
         {"nn_erff16", reinterpret_cast<void*>(&nn_erff16), 16}});
  if (only.empty() || only == "fmodf")
    add({{"Sleef_cinz_fmodf1_purec", reinterpret_cast<void*>(&Sleef_cinz_fmodf1_purec), 1, 2},
         {"Sleef_cinz_fmodf4_sse2", reinterpret_cast<void*>(&Sleef_cinz_fmodf4_sse2), 4, 2},
         {"Sleef_cinz_fmodf8_avx", reinterpret_cast<void*>(&Sleef_cinz_fmodf8_avx), 8, 2},
         {"Sleef_cinz_fmodf16_avx512fnofma", reinterpret_cast<void*>(&Sleef_cinz_fmodf16_avx512fnofma), 16, 2}});
#define NN_SLEEF_FLOAT_BINARY(f, u)                                                                              \
  if (only.empty() || only == #f "f")                                                                            \
    add({{"Sleef_cinz_" #f "f1_" #u "purec", reinterpret_cast<void*>(&Sleef_cinz_##f##f1_##u##purec), 1, 2},     \
         {"Sleef_cinz_" #f "f4_" #u "sse2", reinterpret_cast<void*>(&Sleef_cinz_##f##f4_##u##sse2), 4, 2},       \
         {"Sleef_cinz_" #f "f8_" #u "avx", reinterpret_cast<void*>(&Sleef_cinz_##f##f8_##u##avx), 8, 2},         \
         {"Sleef_cinz_" #f "f16_" #u "avx512fnofma", reinterpret_cast<void*>(&Sleef_cinz_##f##f16_##u##avx512fnofma), 16, 2}});
  NN_SLEEF_FLOAT_BINARY(atan2, u10)
  NN_SLEEF_FLOAT_BINARY(hypot, u05)
#undef NN_SLEEF_FLOAT_BINARY
  if (only.empty() || only == "fmod")
    add({{"Sleef_cinz_fmodd1_purec", reinterpret_cast<void*>(&Sleef_cinz_fmodd1_purec), 1, 2, true},
         {"Sleef_cinz_fmodd2_sse2", reinterpret_cast<void*>(&Sleef_cinz_fmodd2_sse2), 2, 2, true},
         {"Sleef_cinz_fmodd4_avx", reinterpret_cast<void*>(&Sleef_cinz_fmodd4_avx), 4, 2, true},
         {"Sleef_cinz_fmodd8_avx512fnofma", reinterpret_cast<void*>(&Sleef_cinz_fmodd8_avx512fnofma), 8, 2, true}});
  return found;
}

}  // namespace nn::rt::sleef
