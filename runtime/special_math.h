// The special functions of nn's elementwise math that C's math library
// lacks or has only in a thread-unsafe form: lgamma (through lgamma_r: C's
// lgamma writes the global signgam), digamma, polygamma of order n >= 1
// and zeta (the Hurwitz zeta function), the incomplete gamma functions,
// erfinv and ndtri, erfcx and log_ndtr, the modified Bessel functions i0,
// i0e, i1, i1e, k0, k0e, k1, k1e, C's Bessel functions j0, j1, y0, y1,
// frexp's parts, and the gcd and lcm of integers. Host and device
// functions (runtime/host_device.h), so the CPU kernels (float_unary.def,
// kernels_cpu_elementwise.cpp), the CUDA plugin's kernels
// (cuda/element_math.h) and a Python float's math compute them with one
// definition; the JIT's fused kernels call the same code through the
// symbols of runtime/jit/special_symbols.cpp (f32 tensors' lgamma is
// SLEEF's, sleef_functions.def). Each computes in double, an f32 element
// rounded once at the end, but for erfinv, which has a single-precision
// form of its own, and frexp and nextafter, exact in the element's type. The special values are PyTorch's (digamma(+-0)
// =
// -+inf, digamma of a negative integer NaN, polygamma at a pole +-inf,
// erfinv(+-1) = +-inf and NaN past) but where the limit is finite and
// PyTorch's NaN or overflow (i0 past 709.78, j0(inf), zeta(inf, q)).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/airy_chebyshev.h"
#include "runtime/bessel_chebyshev.h"
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

// The standard normal distribution's quantile, by Wichura's algorithm
// AS 241 (PPND16, Applied Statistics 37(3), 1988): rational functions of
// degree 7 over 7, within about 1e-16 of the quantile, of r = 0.180625 -
// (p - 1/2)^2 for |p - 1/2| <= 0.425, else of r = sqrt(-log(tail)) with
// the tail min(p, 1 - p) (exact), one form up to r = 5 and one past:
// within 2.5 ulp down to the smallest double's tail (-38.47), so exact in
// the far tails where sqrt(2) erfinv(2p - 1) would round 2p - 1 to -1.
NN_HOST_DEVICE inline double ndtri(double p) {
  // Numerator and denominator coefficients of r^0 .. r^7 of the three forms.
  static constexpr double a[8] = {3.3871328727963666080,   1.3314166789178437745e2, 1.9715909503065514427e3,
                                  1.3731693765509461125e4, 4.5921953931549871457e4, 6.7265770927008700853e4,
                                  3.3430575583588128105e4, 2.5090809287301226727e3};
  static constexpr double b[8] = {1.0,
                                  4.2313330701600911252e1,
                                  6.8718700749205790830e2,
                                  5.3941960214247511077e3,
                                  2.1213794301586595867e4,
                                  3.9307895800092710610e4,
                                  2.8729085735721942674e4,
                                  5.2264952788528545610e3};
  static constexpr double c[8] = {1.42343711074968357734,    4.63033784615654529590,   5.76949722146069140550,
                                  3.64784832476320460504,    1.27045825245236838258,   2.41780725177450611770e-1,
                                  2.27238449892691845833e-2, 7.74545014278341407640e-4};
  static constexpr double d[8] = {1.0,
                                  2.05319162663775882187,
                                  1.67638483018380384940,
                                  6.89767334985100004550e-1,
                                  1.48103976427480074590e-1,
                                  1.51986665636164571966e-2,
                                  5.47593808499534494600e-4,
                                  1.05075007164441684324e-9};
  static constexpr double e[8] = {6.65790464350110377720,    5.46378491116411436990,    1.78482653991729133580,
                                  2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
                                  2.71155556874348757815e-5, 2.01033439929228813265e-7};
  static constexpr double f[8] = {1.0,
                                  5.99832206555887937690e-1,
                                  1.36929880922735805310e-1,
                                  1.48753612908506148525e-2,
                                  7.86869131145613259100e-4,
                                  1.84631831751005468180e-5,
                                  1.42151175831644588870e-7,
                                  2.04426310338993978564e-15};
  auto polynomial = [](const double* k, double r) {
    double v = k[7];
    for (int i = 6; i >= 0; --i) v = v * r + k[i];
    return v;
  };
  if (!(p > 0 && p < 1)) return p == 0 ? -HUGE_VAL : p == 1 ? HUGE_VAL : NAN;
  double q = p - 0.5;
  if (std::fabs(q) <= 0.425) {
    double r = 0.180625 - q * q;
    return q * polynomial(a, r) / polynomial(b, r);
  }
  double r = std::sqrt(-std::log(q < 0 ? p : 1 - p));
  double x = r <= 5 ? polynomial(c, r - 1.6) / polynomial(d, r - 1.6) : polynomial(e, r - 5) / polynomial(f, r - 5);
  return q < 0 ? -x : x;
}

// e^(x^2), with the rounding error of x^2 (an fma) put back: at x = 20 it
// would cost 4e-14 of the result.
NN_HOST_DEVICE inline double expOfSquare(double x) {
  double square = x * x;
  if (std::isinf(square)) return square;  // the error term inf - inf
  return std::exp(square) * (1 + std::fma(x, x, -square));
}

// The scaled complementary error function e^(x^2) erfc(x): the product
// below 26 (erfc's result still a normal double there), past it the
// asymptotic series 1 / (x sqrt(pi)) sum (-1)^k (2k - 1)!! / (2x^2)^k
// (its terms shrink by 1/1352 and more from 26 on); below 0 the
// reflection 2 e^(x^2) - erfcx(-x), infinite past -26.6.
NN_HOST_DEVICE inline double erfcx(double x) {
  using std::erfc, std::fabs;
  if (x != x) return x;
  double a = fabs(x), r;
  if (a < 26) {
    r = expOfSquare(a) * erfc(a);
  } else {
    double step = 1 / (2 * a * a), term = 1, sum = 1;
    for (int k = 1; k < 16; ++k) {
      term *= -(2 * k - 1) * step;
      sum += term;
      if (fabs(term) <= 1e-17 * sum) break;
    }
    r = sum / (a * (2 / M_2_SQRTPI));
  }
  return x < 0 ? 2 * expOfSquare(x) - r : r;
}

// log of the standard normal distribution function, PyTorch's formula:
// below -1 through erfcx (log(erfcx(-x / sqrt 2) / 2) - x^2 / 2, where the
// distribution function itself underflows), else log1p of its tail.
NN_HOST_DEVICE inline double logNdtr(double x) {
  if (x != x) return x;  // as it is, not negated by the formula
  if (x < -1) return std::log(erfcx(-x * M_SQRT1_2) / 2) - x * x / 2;
  return std::log1p(-std::erfc(x * M_SQRT1_2) / 2);
}

// The modified Bessel functions of the first kind of order nu = 0 and 1
// (i0, i1) and the same scaled by e^-|x| (i0e, i1e), of a = |x| (i1 is
// odd), by Chebyshev series in the manner of Cephes (bessel_chebyshev.h,
// generated): e^-a I0(a) and e^-a I1(a) / a up to 8, sqrt(a) e^-a I(a)
// in 16 / a past it; within 5 ulp of the functions (a mean under 1).
NN_HOST_DEVICE inline double besselIScaled(int nu, double x) {
  if (x != x) return x;
  double a = std::fabs(x), r;
  if (a <= 8) {
    double u = a / 4 - 1;
    r = nu == 0 ? chebyshev::i0Small(u) : a * chebyshev::i1Small(u);
  } else {
    double u = 16 / a - 1;
    r = (nu == 0 ? chebyshev::i0Large(u) : chebyshev::i1Large(u)) / std::sqrt(a);
  }
  return nu == 1 && x < 0 ? -r : r;
}

// e^a in two halves, since i0(713) is a finite double while e^713 is not.
NN_HOST_DEVICE inline double besselI(int nu, double x) {
  if (x != x) return x;
  double a = std::fabs(x);
  if (std::isinf(a)) return nu == 1 && x < 0 ? -HUGE_VAL : HUGE_VAL;
  double half = std::exp(a / 2);
  return besselIScaled(nu, x) * half * half;
}

// The Hurwitz zeta function zeta(x, q) = sum over k >= 0 of (q + k)^-x on
// Cephes' domain, as PyTorch's: infinite at x = 1, NaN below; for q <= 0
// infinite at the integers and NaN for a fractional x ((q + k)^-x is not
// real). zeta(inf, q) is the limit: 0, 1 or inf for q above, at or below 1.
NN_HOST_DEVICE inline double zeta(double x, double q) {
  using std::floor, std::isinf;
  if (x != x || q != q) return NAN;
  if (x == 1) return HUGE_VAL;
  if (x < 1) return NAN;
  if (q <= 0) {
    if (q == floor(q)) return HUGE_VAL;
    if (x != floor(x)) return NAN;
  }
  if (isinf(x)) return q > 1 ? 0.0 : q == 1 ? 1.0 : q > 0 ? HUGE_VAL : NAN;
  return hurwitzZeta(x, q);
}

// log(e^-x x^a / gamma(a)), the incomplete gamma functions' prefactor.
// Below a = 20 as written; from 20 on, with Stirling's series for
// lgamma(a) = (a - 1/2) log a - a + log(2 pi) / 2 + S(a), as
// a (log(1 + t) - t) + log(a / 2 pi) / 2 - S(a) for t = (x - a) / a: the
// three terms of size a log x that cancel near x = a (a double's error
// times a, 1e-12 at a = 1e4) become one of size a t^2, computed without
// the cancellation: log(1 + t) - t = -2u^2 / (1 - u) + 2 (u^3 / 3 + u^5 /
// 5 + ...) for u = t / (2 + t), |u| <= 1/3 for t in [-1/2, 1] (outside,
// the difference is no cancellation).
NN_HOST_DEVICE inline double incompleteGammaLogPrefactor(double a, double x) {
  using std::fabs, std::log;
  if (a < 20) return a * log(x) - x - lgamma(a);
  double t = (x - a) / a, logRatio;  // log(1 + t) - t
  if (t >= -0.5 && t <= 1) {
    double u = t / (2 + t), u2 = u * u, power = u * u2, series = 0;
    for (int k = 3; k < 80; k += 2) {
      double term = power / k;
      series += term;
      if (fabs(term) <= 1e-17 * fabs(series)) break;
      power *= u2;
    }
    logRatio = -2 * u2 / (1 - u) + 2 * series;
  } else {
    logRatio = std::log1p(t) - t;
  }
  // S(a) = sum B_2k / (2k (2k - 1) a^(2k - 1)), six terms below 1e-17 from 20 on.
  double inverse = 1 / a, square = inverse * inverse;
  double stirling =
      inverse *
      (1.0 / 12 +
       square * (-1.0 / 360 +
                 square * (1.0 / 1260 + square * (-1.0 / 1680 + square * (1.0 / 1188 - square * 691.0 / 360360)))));
  return a * logRatio + 0.5 * log(a / (2 * M_PI)) - stirling;
}

// The regularized incomplete gamma functions P(a, x) = gammainc and
// Q(a, x) = 1 - P = gammaincc, each computed from the one that is the
// smaller (so 1 - it loses nothing): below x = a + 1 P's series
// e^-x x^a / gamma(a) sum x^n / (a (a + 1) ... (a + n)), past it Q's
// continued fraction e^-x x^a / gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3
// - a - 2 (2 - a) / (x + 5 - a - ...))) by the modified Lentz method. Both
// converge in O(sqrt(a)) terms near x = a; the bound on the terms keeps
// an a past 1e9 from running long (its result then loses digits). The
// domain is PyTorch's: NaN for a or x below 0 and at a = x = 0,
// P(0, x) = 1, P(a, 0) = 0, P(inf, x) = 0 and P(a, inf) = 1 (NaN for
// both infinite).
NN_HOST_DEVICE inline double incompleteGamma(double a, double x, bool upper) {
  using std::exp, std::fabs, std::isinf, std::log;
  if (a != a || x != x || a < 0 || x < 0 || (a == 0 && x == 0) || (isinf(a) && isinf(x))) return NAN;
  double lower;  // P, where it is known without summing
  if (a == 0 || isinf(x)) {
    lower = 1;
  } else if (x == 0 || isinf(a)) {
    lower = 0;
  } else {
    double prefactor = exp(incompleteGammaLogPrefactor(a, x));
    const double tiny = 1e-300, epsilon = 1e-16;
    if (x < a + 1) {
      double denominator = a, term = 1 / a, sum = term;
      for (int n = 1; n < 100000; ++n) {
        denominator += 1;
        term *= x / denominator;
        sum += term;
        if (fabs(term) < fabs(sum) * epsilon) break;
      }
      lower = sum * prefactor;
    } else {
      double b = x + 1 - a, c = 1 / tiny, d = 1 / b, fraction = d;
      for (int n = 1; n < 100000; ++n) {
        double an = -n * (n - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        fraction *= d * c;
        if (fabs(d * c - 1) < epsilon) break;
      }
      double upperValue = fraction * prefactor;
      return upper ? upperValue : 1 - upperValue;
    }
  }
  return upper ? 1 - lower : lower;
}

// The modified Bessel functions of the second kind of order nu = 0 and 1
// (k0, k1) and the same scaled by e^x (k0e, k1e), for x > 0 (infinite at
// 0, NaN below), by Chebyshev series (bessel_chebyshev.h): up to 2 of
// the smooth parts K0(x) + log(x/2) I0(x) and x (K1(x) - log(x/2) I1(x))
// in x^2, past 2 of sqrt(x) e^x K(x) in 4 / x; within 4 ulp of the
// functions (a mean under 1). (Cephes' k0 and k1 take the same forms.)
NN_HOST_DEVICE inline double besselKOfSmall(int nu, double x) {  // unscaled, 0 < x <= 2
  double u = x * x / 2 - 1, logHalf = std::log(x / 2);
  if (nu == 0) return chebyshev::k0Small(u) - logHalf * besselI(0, x);
  return chebyshev::k1Small(u) / x + logHalf * besselI(1, x);
}

NN_HOST_DEVICE inline double besselKScaled(int nu, double x) {
  if (x != x) return x;
  if (x < 0) return NAN;
  if (x == 0) return HUGE_VAL;
  if (x <= 2) return besselKOfSmall(nu, x) * std::exp(x);
  double u = 4 / x - 1;
  return (nu == 0 ? chebyshev::k0Large(u) : chebyshev::k1Large(u)) / std::sqrt(x);
}

// The unscaled functions: e^-x times the scaled ones past 2 (0 past 705
// or so, where they underflow).
NN_HOST_DEVICE inline double besselK(int nu, double x) {
  if (x != x || x <= 0) return besselKScaled(nu, x);
  return x <= 2 ? besselKOfSmall(nu, x) : besselKScaled(nu, x) * std::exp(-x);
}

// The Bessel functions of the first and second kind of orders 0 and 1:
// C's (POSIX) j0, j1, y0, y1 on both devices (y0 and y1 are -inf at 0,
// NaN below).
NN_HOST_DEVICE inline double besselJ0(double x) { return ::j0(x); }
NN_HOST_DEVICE inline double besselJ1(double x) { return ::j1(x); }
NN_HOST_DEVICE inline double besselY0(double x) { return ::y0(x); }
NN_HOST_DEVICE inline double besselY1(double x) { return ::y1(x); }

// Airy's function Ai (airy_chebyshev.h has its series and says what each
// is): a series on [-2, 2]; past 2, P e^-zeta / (2 sqrt(pi) x^(1/4)); below
// -2, (M sin(theta) - N cos(theta)) / (sqrt(pi) z^(1/4)), z = -x, zeta =
// 2/3 z^(3/2), theta = zeta + pi/4 (its sine and cosine from zeta's, so
// that pi/4 adds no rounding), P, M and N series in 1 / zeta. As PyTorch's,
// NaN at -inf and inf (its limits there are 0). The pieces past |x| = 2
// are functions of their own, which the CPU kernel that sums the series
// over a block of elements (kernels_cpu_bessel.cpp) shares.
struct AiryFar {
  double u, zeta, root;  // the series' variable, zeta and z^(1/4)
};

NN_HOST_DEVICE inline AiryFar airyFar(double z) {
  using std::sqrt;
  constexpr double kZeta2 = 1.8856180831641267;  // zeta(2) = 2/3 2^(3/2)
  double zeta = 2.0 / 3.0 * z * sqrt(z);
  return {2 * (kZeta2 / zeta) - 1, zeta, sqrt(sqrt(z))};
}

// Ai(x), x > 2, from P's series at f.u.
NN_HOST_DEVICE inline double airyDecaying(double p, const AiryFar& f) {
  constexpr double kSqrtPi = 1.7724538509055160;
  return p * std::exp(-f.zeta) / (2 * kSqrtPi * f.root);
}

// Ai(x), x < -2, from M's and N's series at f.u.
NN_HOST_DEVICE inline double airyOscillating(double m, double n, const AiryFar& f) {
  constexpr double kSqrtPi = 1.7724538509055160;
  double s = std::sin(f.zeta), c = std::cos(f.zeta);
  double sine = (s + c) * M_SQRT1_2, cosine = (c - s) * M_SQRT1_2;
  return (m * sine - n * cosine) / (kSqrtPi * f.root);
}

NN_HOST_DEVICE inline double airyAi(double x) {
  if (x != x || x - x != 0) return NAN;
  double z = std::fabs(x);
  if (z <= 2) return chebyshev::airyMiddle(x / 2);
  AiryFar f = airyFar(z);
  if (x > 0) return airyDecaying(chebyshev::airyPositive(f.u), f);
  return airyOscillating(chebyshev::airyNegativeSine(f.u), chebyshev::airyNegativeCosine(f.u), f);
}

// The bits of a float or double as the unsigned integer of its width, and
// back (memcpy: a bit cast on the host and on a GPU alike).
template <class T>
using FloatBits = typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type;
template <class T>
NN_HOST_DEVICE inline FloatBits<T> bitsOf(T x) {
  FloatBits<T> b;
  memcpy(&b, &x, sizeof b);
  return b;
}
template <class T>
NN_HOST_DEVICE inline T fromBits(FloatBits<T> b) {
  T x;
  memcpy(&x, &b, sizeof x);
  return x;
}

// frexp's parts: x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1; zeros,
// infinities and NaN their own mantissa with exponent 0 (glibc's choice,
// which C leaves unspecified). From the bits, as selects (a subnormal
// first scaled into the normal range, exactly), so a loop of them
// vectorises; the exponent as a T.
template <class T>
struct FrexpParts {
  T mantissa, exponent;
};
template <class T>
NN_HOST_DEVICE inline FrexpParts<T> frexpParts(T x) {
  using U = FloatBits<T>;
  constexpr int kMantissaBits = sizeof(T) == 4 ? 23 : 52, kScale = sizeof(T) == 4 ? 25 : 54;
  constexpr U kExponentMask = sizeof(T) == 4 ? 0xff : 0x7ff, kHalf = sizeof(T) == 4 ? 126 : 1022;
  bool subnormal = ((bitsOf(x) >> kMantissaBits) & kExponentMask) == 0;
  T scaled = subnormal ? x * static_cast<T>(U(1) << kScale) : x;
  U bits = bitsOf(scaled);
  T exponent = static_cast<T>(static_cast<int>((bits >> kMantissaBits) & kExponentMask) - static_cast<int>(kHalf) -
                              (subnormal ? kScale : 0));
  T mantissa = fromBits<T>((bits & ~(kExponentMask << kMantissaBits)) | (kHalf << kMantissaBits));
  bool itself = x == 0 || !(x - x == 0);  // zero, infinite or NaN
  return {itself ? x : mantissa, itself ? T(0) : exponent};
}
template <class T>
NN_HOST_DEVICE inline T frexpMantissa(T x) {
  return frexpParts(x).mantissa;
}
template <class T>
NN_HOST_DEVICE inline T frexpExponent(T x) {
  return frexpParts(x).exponent;
}

// C's nextafter(x, y), the next value after x towards y (y where they are
// equal, x + y where either is NaN), from the bits as selects, so a loop
// of them vectorises.
template <class T>
NN_HOST_DEVICE inline T nextAfter(T x, T y) {
  using U = FloatBits<T>;
  U bits = bitsOf(x);
  U away = (x < y) == (x > 0) ? bits + 1 : bits - 1;  // the magnitude grows or shrinks by one step
  U signOfY = bitsOf(y) & (U(1) << (sizeof(T) * 8 - 1));
  T next = fromBits<T>(x == 0 ? signOfY | 1 : away);  // from zero, the least subnormal of y's sign
  next = x == y ? y : next;
  return x != x || y != y ? x + y : next;
}

// The greatest common divisor and least common multiple of two integers
// of type T, as PyTorch's: of the magnitudes (Euclid's algorithm on the
// unsigned type, so the most negative value's magnitude is no overflow),
// never negative but where the result wraps around (|INT64_MIN|; an lcm
// past T's range, as PyTorch's |a / g * b| wraps). gcd(0, 0) = 0, lcm
// with a 0 is 0.
template <class T>
NN_HOST_DEVICE inline T gcd(T a, T b) {
  using U = typename std::make_unsigned<T>::type;
  U x = a < 0 ? U(0) - static_cast<U>(a) : static_cast<U>(a);
  U y = b < 0 ? U(0) - static_cast<U>(b) : static_cast<U>(b);
  while (x != 0) {
    U r = y % x;
    y = x;
    x = r;
  }
  return static_cast<T>(y);
}
template <class T>
NN_HOST_DEVICE inline T lcm(T a, T b) {
  using U = typename std::make_unsigned<T>::type;
  T g = gcd(a, b);
  if (g == 0) return 0;
  U x = a < 0 ? U(0) - static_cast<U>(a) : static_cast<U>(a);
  U y = b < 0 ? U(0) - static_cast<U>(b) : static_cast<U>(b);
  T m = static_cast<T>(x / static_cast<U>(g) * y);
  return m < 0 ? static_cast<T>(U(0) - static_cast<U>(m)) : m;
}

}  // namespace nn::rt::special
