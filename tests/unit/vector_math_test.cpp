// vmath::apply (runtime/vector_math.h) against SLEEF's scalar form, which
// the JIT's fused kernels call for the elements their vector loops leave:
// the same bits for every function over values at the edges (zeros of both
// signs, tiny and huge magnitudes, the functions' poles and overflow
// points, infinities, NaN), at every length up to three vectors (the
// padded or masked last vector included), in place too; every NaN result
// the default quiet NaN.
#include <gtest/gtest.h>

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

}  // namespace
