// Single-precision math over arrays, through SLEEF (sleef_functions.def)
// and nn's erf (erf_f32.h): the transcendental functions of f32 tensors'
// kernels, in the widest vector form this CPU runs. libm computes one element at a time (tanhf
// takes 18 ns here); SLEEF's vector forms compute 8 or 16 at once, within
// 1 ULP, and give the same bits as its scalar form, which the JIT's fused
// kernels call for the elements their vector loops leave over.
#pragma once

#include <cstdint>

namespace nn::rt::vmath {

enum class Fn : uint8_t {
#define SLEEF_FUNCTION(Name, f) Name,
#include "runtime/sleef_functions.def"
#undef SLEEF_FUNCTION
  Erf,  // nn's own (erf_f32.h), in SLEEF's forms
};

// y[i] = fn(x[i]) for i < n, a NaN as the default quiet NaN (0x7fc00000,
// sleef_functions.def); y may be x.
void apply(Fn fn, const float* x, float* y, int64_t n);

// out[i] = fmod(x[i], y[i]) for i < n, exactly (the same bits as libm's
// fmod for every non-NaN result); with xSingle or ySingle, that operand is
// the one value x[0] or y[0] for every i. out must not overlap x or y.
void fmod(const float* x, bool xSingle, const float* y, bool ySingle, float* out, int64_t n);
void fmod(const double* x, bool xSingle, const double* y, bool ySingle, double* out, int64_t n);

// out[i] = atan2(x[i], y[i]) (within 1 ULP) and hypot(x[i], y[i]) (within
// 0.5 ULP) for i < n, SLEEF's, a NaN as the default quiet NaN; x and y as
// for fmod.
void atan2(const float* x, bool xSingle, const float* y, bool ySingle, float* out, int64_t n);
void hypot(const float* x, bool xSingle, const float* y, bool ySingle, float* out, int64_t n);

// Box-Muller in double, for i < n: r = sqrt(-2 log(u1[i])) and t = 2 pi
// u2[i] make first[i] = r cos(t) and second[i] = r sin(t), with SLEEF's
// log and sincos (within 1 ULP; the same bits at every vector width, so
// one pair gives what a whole array does).
void boxMuller(const double* u1, const double* u2, double* first, double* second, int64_t n);

// out[i] = log(exp(a[i]) + exp(b[i]) + exp(c[i])) for i < n, in double:
// the largest m of the three taken out (m + log(exp(a - m) + exp(b - m) +
// exp(c - m)), added in that order), with SLEEF's exp and log (within 1
// ULP; the same bits at every vector width); -inf where all three are,
// NaN where one is NaN or +inf (as PyTorch's CTC recursion).
void logSumExp3(const double* a, const double* b, const double* c, double* out, int64_t n);

}  // namespace nn::rt::vmath
