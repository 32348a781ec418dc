// The special functions of nn's elementwise math that C's math library
// lacks or has only in a thread-unsafe form: lgamma (through lgamma_r: C's
// lgamma writes the global signgam), digamma, polygamma of order n >= 1
// (through the Hurwitz zeta function) and erfinv. Host and device functions
// (runtime/host_device.h), so the CPU kernels (float_unary.def), the CUDA
// plugin's kernels (cuda/element_math.h) and a Python float's math compute
// them with one definition; the JIT's fused kernels call the same code
// through the symbols of runtime/jit/special_symbols.cpp (f32 tensors'
// lgamma is SLEEF's, sleef_functions.def). Each computes in double, an
// f32 element rounded once at the end, but for erfinv, which has a
// single-precision form of its own. The special values are PyTorch's:
// digamma(+-0) = -+inf, digamma of a negative integer NaN, polygamma at a
// pole +-inf, erfinv(+-1) = +-inf and NaN past.
#pragma once

#include <cmath>

#include "runtime/host_device.h"

namespace nn::rt::special {

// log|gamma(x)|.
NN_HOST_DEVICE inline double lgamma(double x) {
#ifdef __CUDA_ARCH__
  return ::lgamma(x);
#else
  int sign = 0;
  return ::lgamma_r(x, &sign);
#endif
}

// psi(x) = gamma'(x) / gamma(x): the reflection psi(1 - x) - pi / tan(pi x)
// below 0 (the tangent of the fraction's angle, which is exact where pi x
// is not), then the recurrence psi(x) = psi(x + 1) - 1 / x up to 10, then
// the asymptotic series ln x - 1 / 2x - sum B_2k / (2k x^2k), whose
// seventh term is below 1e-15 of the result from 10 on.
NN_HOST_DEVICE inline double digamma(double x) {
  using std::log, std::signbit, std::tan, std::trunc;
  if (x == 0) return signbit(x) ? INFINITY : -INFINITY;
  double result = 0;
  if (x < 0) {
    if (x == trunc(x)) return NAN;
    double fraction = x - trunc(x);
    result = -M_PI / tan(M_PI * fraction);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  // B_2k / 2k for k = 1..7.
  const double y = 1 / (x * x);
  double series = 1.0 / 12;
  series = -691.0 / 32760 + y * series;
  series = 1.0 / 132 + y * series;
  series = -1.0 / 240 + y * series;
  series = 1.0 / 252 + y * series;
  series = -1.0 / 120 + y * series;
  series = 1.0 / 12 + y * series;
  return result + log(x) - 0.5 / x - y * series;
}

// zeta(s, q) = sum over k >= 0 of (q + k)^-s for an integer s >= 2 and
// q > 0, by Euler-Maclaurin summation: the first terms directly until
// q + k reaches w >= 10 + s (where the correction series below converges
// to double precision in twelve terms), then the integral of the rest,
// half its first term and the corrections B_2j / (2j)! *
// s (s + 1) ... (s + 2j - 2) * w^(1 - s - 2j).
NN_HOST_DEVICE inline double hurwitzZetaOfPositive(double s, double q) {
  using std::fabs, std::pow;
  // B_2j / (2j)! for j = 1..12.
  const double corrections[12] = {8.333333333333333e-02,  -1.388888888888889e-03,  3.306878306878307e-05,
                                  -8.267195767195768e-07, 2.08767569878681e-08,    -5.284190138687493e-10,
                                  1.3382536530684679e-11, -3.3896802963225827e-13, 8.586062056277845e-15,
                                  -2.174868698558062e-16, 5.5090028283602295e-18,  -1.3954464685812522e-19};
  // Past s = 200 every polygamma is 0, inf or NaN in double (n! overflows):
  // the bound keeps the direct sum short for any n.
  double reach = 10 + (s < 200 ? s : 200);
  double sum = 0;
  while (q < reach) {
    sum += pow(q, -s);
    q += 1;
  }
  double power = pow(q, -s);  // w^-s
  sum += q * power / (s - 1) + 0.5 * power;
  double rising = s;        // s (s + 1) ... (s + 2j - 2)
  double term = power / q;  // w^(1 - s - 2j)
  for (int j = 0; j < 12; ++j) {
    double add = corrections[j] * rising * term;
    sum += add;
    if (fabs(add) <= sum * 1e-17) break;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    term /= q * q;
  }
  return sum;
}

// zeta(s, q) for any q: infinite at 0, the negative integers and -inf
// (every double that large is an integer); below 0 the terms (q + k)^-s
// before q + k turns positive are the ones of zeta(s, 1 - f) up to
// zeta(s, K + 1 - f), for q = f - K with f in (0, 1), so zeta(s, q) =
// zeta(s, f) + (-1)^s (zeta(s, 1 - f) - zeta(s, K + 1 - f)) with positive
// arguments only (no sum of |q| terms).
NN_HOST_DEVICE inline double hurwitzZeta(double s, double q) {
  using std::floor, std::isinf;
  if (q != q) return q;
  if (q > 0) return isinf(q) ? 0.0 : hurwitzZetaOfPositive(s, q);
  double whole = floor(q);
  if (q == whole) return INFINITY;
  double f = q - whole, count = -whole;
  double sign = floor(s / 2) * 2 == s ? 1.0 : -1.0;
  return hurwitzZetaOfPositive(s, f) +
         sign * (hurwitzZetaOfPositive(s, 1 - f) - hurwitzZetaOfPositive(s, count + 1 - f));
}

// The n-th derivative of digamma, for an integer n >= 0 (as a double):
// (-1)^(n+1) n! zeta(n + 1, x) for n >= 1, as PyTorch writes it.
NN_HOST_DEVICE inline double polygamma(double n, double x) {
  using std::exp, std::floor;
  if (n == 0) return digamma(x);
  double sign = floor(n / 2) * 2 == n ? -1.0 : 1.0;
  return sign * exp(lgamma(n + 1)) * hurwitzZeta(n + 1, x);
}

// Giles' single-precision approximation of erfinv(a) for 0 < a < 1
// ("Approximating the erfinv function", 2010), evaluated in double.
NN_HOST_DEVICE inline double erfinvApproximation(double a) {
  using std::log, std::sqrt;
  double w = -log((1 - a) * (1 + a)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * a;
}

// The inverse of erf on (-1, 1): the approximation refined by Newton steps
// until a step is below the last bit (at most eight). For |y| <= 1/2 the
// steps solve erf(x) = |y|; above, log erfc(x) = log(1 - |y|) (1 - |y|
// exact), nearly linear in x^2, so the steps keep their digits near +-1
// and close in from the approximation's 0.5 error at 1 - 2^-53 in three.
NN_HOST_DEVICE inline double erfinv(double y) {
  using std::copysign, std::erf, std::erfc, std::exp, std::fabs, std::log;
  double a = fabs(y);
  if (!(a < 1)) return a == 1 ? copysign(HUGE_VAL, y) : NAN;
  if (a == 0) return y;
  double x = erfinvApproximation(a);
  double logTail = log(1 - a);
  for (int step = 0; step < 8; ++step) {
    double slope = M_2_SQRTPI * exp(-x * x);
    double change;
    if (a <= 0.5) {
      change = (erf(x) - a) / slope;
    } else {
      double tail = erfc(x);
      change = (logTail - log(tail)) * tail / slope;
    }
    x -= change;
    if (fabs(change) <= 1e-16 * x) break;
  }
  return copysign(x, y);
}

// In single precision: a float's |y| is at most 1 - 2^-24, where the
// approximation is within a few float ulps, so one Newton step in double
// (the residual through erfc above 1/2) leaves the error far below the
// float's rounding, at a third of the double's time.
NN_HOST_DEVICE inline float erfinv(float y) {
  using std::copysign, std::erf, std::erfc, std::exp, std::fabs;
  double a = fabs(y);
  if (!(a < 1)) return a == 1 ? copysign(HUGE_VALF, y) : NAN;
  if (a == 0) return y;
  double x = erfinvApproximation(a);
  double residual = a <= 0.5 ? erf(x) - a : (1 - a) - erfc(x);
  x -= residual / (M_2_SQRTPI * exp(-x * x));
  return copysign(static_cast<float>(x), y);
}

}  // namespace nn::rt::special
