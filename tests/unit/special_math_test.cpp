// nn's special functions (runtime/special_math.h) against identities that
// hold for every argument, independent of how the functions compute:
// digamma's and polygamma's recurrences and known values, erf(erfinv(y))
// = y (and the erfc form near +-1), lgamma against the C library's, and
// the special values at poles and ends. A sweep of arguments, each
// checked to a relative tolerance a few ulps wide (the identities' own
// arithmetic rounds too).
#include "runtime/special_math.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(SpecialMath, LgammaIsTheCLibrarys) {
  for (double x = -9.7; x < 200; x += 0.77) {
    int sign = 0;
    EXPECT_EQ(special::lgamma(x), ::lgamma_r(x, &sign)) << x;
  }
  EXPECT_EQ(special::lgamma(0.0), INFINITY);
  EXPECT_EQ(special::lgamma(-2.0), INFINITY);
}

}  // namespace
