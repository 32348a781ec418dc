// vmath::apply (runtime/vector_math.h) against the scalar form (SLEEF's;
// nn's for erf), which the JIT's fused kernels call for the elements their
// vector loops leave: the same bits for every function over values at the
// edges (zeros of both signs, tiny and huge magnitudes, the functions'
// poles and overflow points, infinities, NaN), at every length up to three
// vectors (the padded or masked last vector included), in place too; every
// NaN result the default quiet NaN. vmath::fmod against libm's fmod: both
// exact, so the same bits for every pair of those values (NaN wherever
// libm's is), in both precisions, at every length with either operand a
// single value. vmath::boxMuller: each pair's bits at every length, and
// libm's values within 2 ULP.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/sleef_functions.h"
#include "runtime/vector_math.h"

namespace {

using nn::rt::vmath::Fn;

struct Function {
  const char* name;
  Fn fn;
  float (*scalar)(float);
};

const std::vector<Function>& functions() {
  static const std::vector<Function> all = {
#define SLEEF_FUNCTION(Name, f) {#f, Fn::Name, Sleef_cinz_##f##f1_u10purec},
#include "runtime/sleef_functions.def"
#undef SLEEF_FUNCTION
      {"erf", Fn::Erf, nn_erff1},
  };
  return all;
}

std::vector<float> edges() {
  using L = std::numeric_limits<float>;
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 1e-3f, -1e-3f, L::min(), -L::min(),
                          L::denorm_min(), -L::denorm_min(), L::max(), -L::max(), L::infinity(), -L::infinity(),
                          L::quiet_NaN(), -L::quiet_NaN(), 88.7f, 89.5f, -103.9f, 1e38f, 2e38f, 3.14159265f,
                          1.5707964f, 1e7f, -1e7f, 1e30f, 0.999999f, -0.999999f, 1.0000001f, 20.0f, -20.0f, 9.0f};
  for (int k = -40; k <= 40; ++k) v.push_back(std::ldexp(1.37f, k));
  return v;
}

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

uint32_t scalarBits(const Function& f, float x) {
  float r = f.scalar(x);
  return std::isnan(r) ? 0x7fc00000u : bits(r);
}

TEST(VectorMath, EveryFormGivesTheScalarFormsBits) {
  std::vector<float> xs = edges();
  for (const Function& f : functions()) {
    std::vector<float> ys(xs.size());
    nn::rt::vmath::apply(f.fn, xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_EQ(bits(ys[i]), scalarBits(f, xs[i])) << f.name << "(" << xs[i] << ")";
  }
}

TEST(VectorMath, EveryLengthAndInPlace) {
  std::vector<float> base = edges();
  for (const Function& f : functions()) {
    for (int64_t n = 0; n <= 48; ++n) {
      std::vector<float> xs(base.begin(), base.begin() + n);
      std::vector<float> ys(static_cast<size_t>(n) + 1, 7.0f);  // one past the end stays
      nn::rt::vmath::apply(f.fn, xs.data(), ys.data(), n);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(bits(ys[i]), scalarBits(f, xs[i])) << f.name << " n=" << n;
      EXPECT_EQ(ys[n], 7.0f) << f.name << " wrote past " << n;
      nn::rt::vmath::apply(f.fn, xs.data(), xs.data(), n);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(bits(xs[i]), bits(ys[i])) << f.name << " in place, n=" << n;
    }
  }
}

uint64_t bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The edges above and, for doubles, the same in double plus values no
// float holds.
template <class T>
std::vector<T> fmodOperands() {
  std::vector<T> v;
  for (float x : edges()) v.push_back(static_cast<T>(x));
  if constexpr (sizeof(T) == 8) {
    using L = std::numeric_limits<double>;
    for (double x : {L::max(), -L::max(), L::denorm_min(), 1e300, -3e-310, 0.1, -0.3, 1e17 + 2}) v.push_back(x);
  }
  return v;
}

// fmod(x[i], y[i]) for every i, each way of passing the operands, checked
// against libm. (SLEEF's own fmod is NaN where the quotient is huge, as
// in FLT_MAX % 0.5 or 1 % a denormal.)
template <class T>
void expectLibmRemainders(const std::vector<T>& x, bool xSingle, const std::vector<T>& y, bool ySingle) {
  int64_t n = static_cast<int64_t>(std::max(xSingle ? 1 : x.size(), ySingle ? 1 : y.size()));
  std::vector<T> out(static_cast<size_t>(n) + 1, T(7));
  nn::rt::vmath::fmod(x.data(), xSingle, y.data(), ySingle, out.data(), n);
  for (int64_t i = 0; i < n; ++i) {
    T a = x[xSingle ? 0 : static_cast<size_t>(i)], b = y[ySingle ? 0 : static_cast<size_t>(i)];
    T want = std::fmod(a, b);
    if (std::isnan(want)) ASSERT_TRUE(std::isnan(out[static_cast<size_t>(i)])) << a << " % " << b;
    else ASSERT_EQ(bits(out[static_cast<size_t>(i)]), bits(want)) << a << " % " << b << " n=" << n;
  }
  EXPECT_EQ(out[static_cast<size_t>(n)], T(7)) << "wrote past " << n;
}

template <class T>
void checkFmodEveryPair() {
  std::vector<T> v = fmodOperands<T>();
  for (T b : v) {
    std::vector<T> ys(v.size(), b);
    expectLibmRemainders(v, false, ys, false);
    expectLibmRemainders(v, false, {b}, true);
    expectLibmRemainders(std::vector<T>{b}, true, v, false);
  }
}

template <class T>
void checkFmodEveryLength() {
  std::vector<T> v = fmodOperands<T>();
  std::vector<T> w(v.rbegin(), v.rend());
  for (size_t n = 0; n <= 40; ++n) {
    std::vector<T> x(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<T> y(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(n));
    expectLibmRemainders(x, false, y, false);
    if (n) {
      expectLibmRemainders(x, false, {T(1.5)}, true);
      expectLibmRemainders(std::vector<T>{T(-7.25)}, true, y, false);
    }
  }
}

TEST(VectorMath, FmodIsLibmsFmodForEveryPair) {
  checkFmodEveryPair<float>();
  checkFmodEveryPair<double>();
}

TEST(VectorMath, FmodEveryLength) {
  checkFmodEveryLength<float>();
  checkFmodEveryLength<double>();
}

// Box-Muller over arrays of every length up to three vectors gives each
// pair's bits alone (a padded call), and libm's values within 2 ULP (of
// the larger of r and 1).
TEST(VectorMath, BoxMullerEveryLengthGivesEachPairsBits) {
  std::vector<double> u1, u2;
  for (int k = 0; k < 24; ++k) {
    u1.push_back(k == 0 ? 1.0 : std::ldexp(1.0, -3 * k) * (1.0 + k * 0.01));  // to 2^-69: r = 9.7
    u2.push_back(k / 24.0 + 0.013);
  }
  u1.push_back(std::ldexp(1.0, -53));  // the least u1: r = 8.57
  u2.push_back(0.999999);
  for (int64_t n = 0; n <= static_cast<int64_t>(u1.size()); ++n) {
    std::vector<double> first(static_cast<size_t>(n) + 1, 7.0), second(static_cast<size_t>(n) + 1, 7.0);
    nn::rt::vmath::boxMuller(u1.data(), u2.data(), first.data(), second.data(), n);
    EXPECT_EQ(first[n], 7.0) << "wrote past " << n;
    EXPECT_EQ(second[n], 7.0) << "wrote past " << n;
    for (int64_t i = 0; i < n; ++i) {
      double a, b;
      nn::rt::vmath::boxMuller(&u1[i], &u2[i], &a, &b, 1);
      ASSERT_EQ(bits(first[i]), bits(a)) << "n=" << n << " i=" << i;
      ASSERT_EQ(bits(second[i]), bits(b)) << "n=" << n << " i=" << i;
      double r = std::sqrt(-2.0 * std::log(u1[i])), t = 2.0 * M_PI * u2[i];
      double tolerance = 2 * std::numeric_limits<double>::epsilon() * std::max(r, 1.0);
      EXPECT_NEAR(a, r * std::cos(t), tolerance) << u1[i] << " " << u2[i];
      EXPECT_NEAR(b, r * std::sin(t), tolerance) << u1[i] << " " << u2[i];
    }
  }
}

}  // namespace
