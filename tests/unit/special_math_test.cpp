// nn's special functions (runtime/special_math.h) against identities that
// hold for every argument, independent of how the functions compute:
// digamma's and polygamma's recurrences and known values, erf(erfinv(y))
// = y (and the erfc form near +-1), lgamma against the C library's, the
// Bessel, erfcx, normal-distribution and zeta functions against their
// definitions, values to 40 digits (mpmath) and each other, and the
// special values at poles and ends. A sweep of arguments, each
// checked to a relative tolerance a few ulps wide (the identities' own
// arithmetic rounds too). frexp's parts and nextafter, computed from the
// bits, against the C library's; gcd and lcm against Euclid.
#include "runtime/special_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

namespace special = nn::rt::special;

constexpr double kEulerGamma = 0.57721566490153286061;

void expectRelativelyClose(double got, double want, double relative, const char* what, double at) {
  EXPECT_LE(std::fabs(got - want), relative * std::fabs(want) + 1e-300)
      << what << " at " << at << ": " << got << " vs " << want;
}

TEST(SpecialMath, DigammaKnownValuesAndRecurrence) {
  expectRelativelyClose(special::digamma(1.0), -kEulerGamma, 1e-15, "digamma", 1.0);
  expectRelativelyClose(special::digamma(0.5), -kEulerGamma - 2 * M_LN2, 1e-15, "digamma", 0.5);
  // psi(x + 1) = psi(x) + 1 / x, on both sides of 0 and across 10 (where
  // the series takes over from the recurrence).
  for (double x = -7.93; x < 30; x += 0.173) {
    double left = special::digamma(x + 1), right = special::digamma(x) + 1 / x;
    EXPECT_LE(std::fabs(left - right), 1e-13 * (std::fabs(left) + std::fabs(1 / x) + 1)) << x;
  }
  // psi(1 - x) - psi(x) = pi / tan(pi x).
  for (double x = 0.05; x < 4; x += 0.21)
    expectRelativelyClose(special::digamma(1 - x) - special::digamma(x), M_PI / std::tan(M_PI * x), 1e-12, "reflection",
                          x);
  EXPECT_EQ(special::digamma(0.0), -INFINITY);
  EXPECT_EQ(special::digamma(-0.0), INFINITY);
  EXPECT_TRUE(std::isnan(special::digamma(-3.0)));
  EXPECT_TRUE(std::isnan(special::digamma(-INFINITY)));
  EXPECT_EQ(special::digamma(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(special::digamma(NAN)));
}

TEST(SpecialMath, PolygammaKnownValuesAndRecurrence) {
  expectRelativelyClose(special::polygamma(1, 1.0), M_PI * M_PI / 6, 1e-15, "trigamma", 1.0);
  expectRelativelyClose(special::polygamma(1, 0.5), M_PI * M_PI / 2, 1e-15, "trigamma", 0.5);
  expectRelativelyClose(special::polygamma(2, 1.0), -2 * 1.2020569031595942854, 1e-15, "polygamma(2)", 1.0);
  EXPECT_EQ(special::polygamma(0, 2.5), special::digamma(2.5));
  // psi_n(x + 1) = psi_n(x) + (-1)^n n! / x^(n + 1), for q below 0 (the
  // reflected sums), near 0 and past the direct terms.
  for (int n = 1; n <= 6; ++n)
    for (double x = -4.87; x < 40; x += 0.311) {
      double step = (n % 2 ? -1.0 : 1.0) * std::tgamma(n + 1.0) / std::pow(x, n + 1);
      double left = special::polygamma(n, x + 1), right = special::polygamma(n, x) + step;
      EXPECT_LE(std::fabs(left - right), 1e-12 * (std::fabs(left) + std::fabs(step))) << n << " " << x;
    }
  EXPECT_EQ(special::polygamma(1, 0.0), INFINITY);
  EXPECT_EQ(special::polygamma(2, -2.0), -INFINITY);
  EXPECT_EQ(special::polygamma(1, INFINITY), 0.0);
  EXPECT_TRUE(std::isnan(special::polygamma(3, NAN)));
  // Orders far past n! overflowing end (no sum as long as the order).
  EXPECT_TRUE(std::isinf(special::polygamma(1e9, 0.5)) || std::isnan(special::polygamma(1e9, 0.5)));
}

TEST(SpecialMath, ErfinvInvertsErf) {
  for (double y = -0.999; y < 1; y += 0.0137) {
    double x = special::erfinv(y);
    EXPECT_LE(std::fabs(std::erf(x) - y), 4e-16) << y;
  }
  // Near 1, through erfc: 1 - y exactly.
  for (double tail = 1e-3; tail > 1e-16; tail *= 0.37) {
    double y = 1 - tail;
    double x = special::erfinv(y);
    expectRelativelyClose(std::erfc(x), 1 - y, 1e-13, "erfc(erfinv)", y);
    EXPECT_EQ(special::erfinv(-y), -x);
  }
  EXPECT_EQ(special::erfinv(1.0), INFINITY);
  EXPECT_EQ(special::erfinv(-1.0), -INFINITY);
  EXPECT_TRUE(std::isnan(special::erfinv(1.5)));
  EXPECT_TRUE(std::isnan(special::erfinv(NAN)));
  EXPECT_TRUE(std::signbit(special::erfinv(-0.0)));
  expectRelativelyClose(special::erfinv(1e-300), 1e-300 * std::sqrt(M_PI) / 2, 1e-15, "erfinv", 1e-300);
}

// The single-precision erfinv: within one float ulp of the double's
// result rounded, across (-1, 1) and up to the largest float below 1.
TEST(SpecialMath, FloatErfinvIsTheDoublesRounded) {
  int differ = 0, total = 0;
  for (float y = -0.99999f; y < 1; y += 0.00037f) {
    float got = special::erfinv(y), want = static_cast<float>(special::erfinv(static_cast<double>(y)));
    EXPECT_LE(std::fabs(got - want), std::fabs(std::nextafter(want, INFINITY) - want)) << y;
    differ += got != want, ++total;
  }
  EXPECT_LE(differ, total / 100);
  float top = std::nextafter(1.0f, 0.0f);
  EXPECT_EQ(special::erfinv(top), static_cast<float>(special::erfinv(static_cast<double>(top))));
  EXPECT_EQ(special::erfinv(1.0f), INFINITY);
  EXPECT_TRUE(std::isnan(special::erfinv(1.5f)));
}

// i0, i1 and their scaled forms against values to 40 digits (mpmath), the
// power series summed in long double up to 30 (across the Chebyshev
// series' common end at 8), the symmetries and the scaling.
TEST(SpecialMath, BesselIKnownValuesAndBranchesAgree) {
  expectRelativelyClose(special::besselI(0, 1.0), 1.2660658777520083356, 4e-16, "i0", 1.0);
  expectRelativelyClose(special::besselI(1, 1.0), 0.56515910399248502721, 4e-16, "i1", 1.0);
  expectRelativelyClose(special::besselI(0, 30.0), 781672297823.97748972, 1e-15, "i0", 30.0);
  expectRelativelyClose(special::besselI(1, -7.5), -249.58436542268813610, 1e-15, "i1", -7.5);
  expectRelativelyClose(special::besselIScaled(0, 500.0), 0.017845706500153167237, 4e-16, "i0e", 500.0);
  expectRelativelyClose(special::besselIScaled(1, -500.0), -0.017827851852898056461, 4e-16, "i1e", -500.0);
  expectRelativelyClose(special::besselI(0, 713.0), 6.7051282636709966729e307, 1e-15, "i0", 713.0);
  for (int nu = 0; nu <= 1; ++nu)
    for (double a = 0.01; a < 30; a *= 1.13) {
      long double quarterSquare = (long double)a * a / 4, term = nu ? (long double)a / 2 : 1, sum = term;
      for (int k = 1; k < 200 && term > 1e-22L * sum; ++k) sum += term *= quarterSquare / (k * (k + nu));
      expectRelativelyClose(special::besselI(nu, a), static_cast<double>(sum), 1.5e-15, "the power series", a);
    }
  for (double x = 0.1; x < 60; x *= 1.7) {
    EXPECT_EQ(special::besselI(0, -x), special::besselI(0, x));
    EXPECT_EQ(special::besselI(1, -x), -special::besselI(1, x));
    expectRelativelyClose(special::besselIScaled(0, x), special::besselI(0, x) * std::exp(-x), 1e-15, "i0e", x);
    expectRelativelyClose(special::besselIScaled(1, -x), -special::besselI(1, x) * std::exp(-x), 1e-15, "i1e", x);
  }
  EXPECT_EQ(special::besselI(0, 714.0), INFINITY);
  EXPECT_EQ(special::besselI(1, -INFINITY), -INFINITY);
  EXPECT_EQ(special::besselIScaled(0, INFINITY), 0.0);
  EXPECT_TRUE(std::isnan(special::besselI(1, NAN)));
}

// k0, k1 against the Wronskian I0 K1 + I1 K0 = 1 / x across the three
// methods' ranges (series, trapezoidal rule, asymptotic series), values to
// 40 digits (mpmath) and the scaling.
TEST(SpecialMath, BesselKWronskianAndKnownValues) {
  for (double x = 1e-4; x < 600; x *= 1.21) {
    double w = special::besselIScaled(0, x) * special::besselKScaled(1, x) +
               special::besselIScaled(1, x) * special::besselKScaled(0, x);
    expectRelativelyClose(w, 1 / x, 4e-15, "I0 K1 + I1 K0", x);
    expectRelativelyClose(special::besselK(0, x), special::besselKScaled(0, x) * std::exp(-x), 1e-15, "k0e", x);
  }
  expectRelativelyClose(special::besselK(0, 0.5), 0.92441907122766586178, 1e-15, "k0", 0.5);
  expectRelativelyClose(special::besselK(1, 1.5), 0.27738780045684381609, 1e-15, "k1", 1.5);
  expectRelativelyClose(special::besselKScaled(0, 30.0), 0.22788666561625373042, 1e-15, "k0e", 30.0);
  expectRelativelyClose(special::besselKScaled(1, 4.0), 0.68157594518567098334, 1e-15, "k1e", 4.0);
  EXPECT_EQ(special::besselK(0, 0.0), INFINITY);
  EXPECT_TRUE(std::isnan(special::besselK(1, -1.0)));
  EXPECT_EQ(special::besselK(1, INFINITY), 0.0);
}

// erfcx(x) = e^(x^2) erfc(x) where the product is representable, its
// asymptotic branch against values to 40 digits, and the sides of 26.
TEST(SpecialMath, ErfcxIsTheScaledErfc) {
  for (double x = -5; x < 5; x += 0.093)
    expectRelativelyClose(special::erfcx(x), std::exp(x * x) * std::erfc(x), 2e-14, "erfcx", x);
  expectRelativelyClose(special::erfcx(30.0), 0.018795888861416751497, 4e-16, "erfcx", 30.0);
  expectRelativelyClose(special::erfcx(1000.0), 0.00056418930145338765420, 4e-16, "erfcx", 1000.0);
  expectRelativelyClose(special::erfcx(-3.0), 16205.988853999586625, 4e-16, "erfcx", -3.0);
  expectRelativelyClose(special::erfcx(std::nextafter(26.0, 0.0)), special::erfcx(26.0), 4e-16, "erfcx", 26.0);
  EXPECT_EQ(special::erfcx(INFINITY), 0.0);
  EXPECT_EQ(special::erfcx(-INFINITY), INFINITY);
  EXPECT_EQ(special::erfcx(-27.0), INFINITY);
}

// ndtri inverts the normal distribution function (1/2 erfc(-y / sqrt 2))
// from p = 1e-300 to 1 - 1e-16, and log_ndtr is its log, down to where
// the function underflows.
TEST(SpecialMath, NdtriAndLogNdtrAgreeWithTheDistribution) {
  auto ndtr = [](double y) { return 0.5 * std::erfc(-y * M_SQRT1_2); };
  for (double p = 1e-300; p < 0.5; p *= 3.7) {
    double y = special::ndtri(p);
    // AS 241 is within 2.5 ulp, which erfc's argument carries times y.
    expectRelativelyClose(ndtr(y), p, 1e-15 * (1 + y * y), "ndtr(ndtri)", p);
    // Odd about 1/2: 1 - q and 2q - 1 are exact for q = 1 - p rounded.
    double q = 1 - p;
    EXPECT_EQ(special::ndtri(q), -special::ndtri(1 - q)) << p;
  }
  for (double tail = 1e-2; tail > 1e-16; tail *= 0.29) {
    double q = 1 - tail, y = special::ndtri(q);
    expectRelativelyClose(0.5 * std::erfc(y * M_SQRT1_2), 1 - q, 1e-15 * (1 + y * y), "upper tail", q);
  }
  EXPECT_EQ(special::ndtri(0.5), 0.0);
  EXPECT_EQ(special::ndtri(0.0), -INFINITY);
  EXPECT_EQ(special::ndtri(1.0), INFINITY);
  EXPECT_TRUE(std::isnan(special::ndtri(1.5)));
  for (double x = -30; x < 6; x += 0.31)
    expectRelativelyClose(std::exp(special::logNdtr(x)), ndtr(x), 1e-13 * (1 + x * x), "exp(log_ndtr)", x);
  expectRelativelyClose(special::logNdtr(-40.0), -804.60844201375378817, 4e-16, "log_ndtr", -40.0);
  expectRelativelyClose(special::logNdtr(-1e5), -5000000012.4318639983, 4e-16, "log_ndtr", -1e5);
  EXPECT_EQ(special::logNdtr(-INFINITY), -INFINITY);
}

// zeta(s, q) - zeta(s, q + 1) = q^-s for real orders, zeta(2, 1) and
// zeta(4, 1), and Cephes' domain.
TEST(SpecialMath, ZetaRecurrenceAndDomain) {
  for (double s = 1.5; s < 9; s += 0.7)
    for (double q = 0.1; q < 60; q *= 1.9) {
      double step = std::pow(q, -s);
      double left = special::zeta(s, q) - special::zeta(s, q + 1);
      EXPECT_LE(std::fabs(left - step), 1e-13 * (special::zeta(s, q) + step)) << s << " " << q;
    }
  expectRelativelyClose(special::zeta(2.0, 1.0), M_PI * M_PI / 6, 4e-16, "zeta", 2.0);
  expectRelativelyClose(special::zeta(4.0, 1.0), std::pow(M_PI, 4) / 90, 1e-15, "zeta", 4.0);
  EXPECT_EQ(special::zeta(1.0, 3.0), INFINITY);
  EXPECT_TRUE(std::isnan(special::zeta(0.5, 3.0)));
  EXPECT_EQ(special::zeta(2.0, -3.0), INFINITY);
  EXPECT_TRUE(std::isnan(special::zeta(2.5, -1.5)));
  expectRelativelyClose(special::zeta(2.0, -1.5), special::zeta(2.0, 0.5) + 4 + 4.0 / 9, 1e-15, "zeta", -1.5);
  EXPECT_EQ(special::zeta(INFINITY, 2.0), 0.0);
}

// P(a, x) + Q(a, x) = 1, the recurrence P(a + 1, x) = P(a, x) - x^a e^-x /
// gamma(a + 1) on both sides of x = a + 1 (series and continued fraction)
// and of a = 20 (the prefactor's two forms), P(1, x) = 1 - e^-x, and
// values to 40 digits (mpmath) near the peak of a large a.
TEST(SpecialMath, IncompleteGammaIdentities) {
  for (double a = 0.05; a < 300; a *= 1.7)
    for (double f = 0.05; f < 6; f *= 1.45) {
      double x = a * f;
      double lower = special::incompleteGamma(a, x, false), upper = special::incompleteGamma(a, x, true);
      EXPECT_LE(std::fabs(lower + upper - 1), 4e-16) << a << " " << x;
      double step = std::exp(a * std::log(x) - x - std::lgamma(a + 1));
      double next = special::incompleteGamma(a + 1, x, false);
      // Far below the peak (P ~ 1e-150) the prefactor's exponent, some
      // hundreds, carries its rounding (and lgamma's) into the result.
      EXPECT_LE(std::fabs(next - (lower - step)), 1e-12 * (lower + step) + 1e-300) << a << " " << x;
    }
  for (double x = 0.01; x < 30; x *= 1.9)
    expectRelativelyClose(special::incompleteGamma(1, x, false), -std::expm1(-x), 1e-15, "P(1, x)", x);
  expectRelativelyClose(special::incompleteGamma(100, 110, false), 0.84172132993991290620, 1e-15, "P(100, 110)", 110);
  expectRelativelyClose(special::incompleteGamma(1e4, 1.005e4, false), 0.69234244070256555786, 1e-15, "P(1e4, 1.005e4)",
                        1.005e4);
  EXPECT_EQ(special::incompleteGamma(0, 1, false), 1.0);
  EXPECT_EQ(special::incompleteGamma(2, 0, true), 1.0);
  EXPECT_EQ(special::incompleteGamma(2, INFINITY, false), 1.0);
  EXPECT_TRUE(std::isnan(special::incompleteGamma(-1, 1, false)));
  EXPECT_TRUE(std::isnan(special::incompleteGamma(0, 0, true)));
}

TEST(SpecialMath, LgammaIsTheCLibrarys) {
  for (double x = -9.7; x < 200; x += 0.77) {
    int sign = 0;
    EXPECT_EQ(special::lgamma(x), ::lgamma_r(x, &sign)) << x;
  }
  EXPECT_EQ(special::lgamma(0.0), INFINITY);
  EXPECT_EQ(special::lgamma(-2.0), INFINITY);
}

// frexp's parts and nextafter from the bits are the C library's, bit for
// bit, on random bit patterns (subnormals, infinities and NaNs among them)
// and the edges of each range; gcd and lcm against Euclid on small values.
template <class T>
void checkBitFunctionsAgainstLibm() {
  using U = special::FloatBits<T>;
  std::mt19937_64 rng(7);
  std::vector<T> xs = {T(0),
                       -T(0),
                       T(1),
                       -T(1),
                       std::numeric_limits<T>::min(),
                       std::numeric_limits<T>::denorm_min(),
                       -std::numeric_limits<T>::denorm_min(),
                       std::numeric_limits<T>::max(),
                       -std::numeric_limits<T>::max(),
                       T(INFINITY),
                       T(-INFINITY),
                       T(NAN),
                       T(0.5),
                       T(3) / 4};
  for (int i = 0; i < 20000; ++i) xs.push_back(special::fromBits<T>(static_cast<U>(rng())));
  auto same = [](T a, T b) { return (a != a && b != b) || special::bitsOf(a) == special::bitsOf(b); };
  for (size_t i = 0; i < xs.size(); ++i) {
    T x = xs[i];
    int e = 0;
    T m = std::frexp(x, &e);
    EXPECT_TRUE(same(special::frexpMantissa(x), m)) << x;
    if (std::isfinite(x))
      EXPECT_EQ(special::frexpExponent(x), T(e)) << x;
    else
      EXPECT_EQ(special::frexpExponent(x), T(0)) << x;
    for (T y : {xs[(i * 7 + 3) % xs.size()], T(0), -T(0), T(INFINITY), T(-INFINITY), x})
      EXPECT_TRUE(same(special::nextAfter(x, y), std::nextafter(x, y))) << x << " towards " << y;
  }
}

TEST(SpecialMath, FrexpAndNextafterAreTheCLibrarys) {
  checkBitFunctionsAgainstLibm<float>();
  checkBitFunctionsAgainstLibm<double>();
}

TEST(SpecialMath, GcdAndLcmOfSmallIntegers) {
  for (int64_t a = -30; a <= 30; ++a)
    for (int64_t b = -30; b <= 30; ++b) {
      int64_t g = 0;
      for (int64_t d = 1; d <= 30; ++d)
        if (a % d == 0 && b % d == 0) g = d;
      if (a == 0 && b == 0)
        g = 0;
      else if (a == 0 || b == 0)
        g = std::abs(a == 0 ? b : a);
      EXPECT_EQ(special::gcd(a, b), g) << a << " " << b;
      EXPECT_EQ(special::lcm(a, b), g == 0 ? 0 : std::abs(a * b) / g) << a << " " << b;
      EXPECT_EQ(special::gcd(static_cast<int32_t>(a), static_cast<int32_t>(b)), static_cast<int32_t>(g));
    }
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(special::gcd(kMin, int64_t{6}), 2);                                 // the true gcd (PyTorch's wraps to -2)
  EXPECT_EQ(special::gcd(kMin, int64_t{0}), kMin);                              // 2^63, wrapped
  EXPECT_EQ(special::lcm(std::numeric_limits<int64_t>::max(), int64_t{2}), 2);  // 2^64 - 2, wrapped and negated
}

}  // namespace
