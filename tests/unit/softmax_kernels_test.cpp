// The CPU's softmax and log_softmax kernels (runtime/kernels_cpu_softmax.cpp)
// along every axis: each f32 value within a few ULP of the exact result
// computed in long double from the same inputs (rows longer than one sum
// chunk, strips of columns with a partial last strip, a middle axis), the
// same bits on 1, 2 and 3 threads, and the special values: a slice
// holding a NaN is NaN throughout and leaves its neighbours alone, an all
// -inf slice is NaN, a +inf is NaN where it stands and 0 (-inf for
// log_softmax) elsewhere.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"
#include "test_device.h"
#include "test_random.h"

namespace {

using namespace nn::rt;

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor softmaxInput(const Shape& shape, DType dt, float scale) {
  Tensor t = Tensor::empty(DType::F32, shape, testDevice());
  XorShift64 random{0x9e3779b97f4a7c15ull};
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint64_t x = random.next();
    t.data<float>()[i] = (static_cast<float>(x >> 40) * 0x1.0p-24f - 0.5f) * scale;
  }
  return dt == DType::F32 ? t : astype(t, dt);
}

// The exact softmax (or log_softmax) of x along `axis`, in long double,
// with each element's condition: how many of its ULP the rounding of the
// inputs of exp and of the subtraction can move it (x - m, with m the
// slice's maximum, is rounded to the dtype, and exp multiplies an error in
// its argument into the same relative error of its value; f64 subtracts
// m + log(sum), rounded too).
struct Exact {
  std::vector<long double> value;
  std::vector<double> condition;
};

Exact exact(const Tensor& x, int64_t axis, bool log) {
  int64_t n = x.dim(axis), inner = 1;
  for (int64_t d = axis + 1; d < x.ndim(); ++d) inner *= x.dim(d);
  int64_t outer = x.numel() / (n * inner);
  Exact e{std::vector<long double>(static_cast<size_t>(x.numel())), std::vector<double>(static_cast<size_t>(x.numel()))};
  for (int64_t p = 0; p < outer; ++p)
    for (int64_t q = 0; q < inner; ++q) {
      auto at = [&](int64_t i) { return p * n * inner + i * inner + q; };
      long double m = -INFINITY, s = 0;
      for (int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<long double>(x.flatAsDouble(at(i))));
      for (int64_t i = 0; i < n; ++i) s += std::exp(static_cast<long double>(x.flatAsDouble(at(i))) - m);
      for (int64_t i = 0; i < n; ++i) {
        long double shifted = static_cast<long double>(x.flatAsDouble(at(i))) - m;
        long double v = log ? shifted - std::log(s) : std::exp(shifted) / s;
        double spread = static_cast<double>(std::fabs(shifted) + std::fabs(m) + std::log(s)) + 1;
        e.value[static_cast<size_t>(at(i))] = v;
        e.condition[static_cast<size_t>(at(i))] = log ? spread + std::fabs(static_cast<double>(v)) : spread * std::fabs(static_cast<double>(v));
      }
    }
  return e;
}

void expectNearExact(const Shape& shape, int64_t axis, DType dt, float scale) {
  Tensor x = softmaxInput(shape, dt, scale);
  double eps = dt == DType::F32 ? 0x1.0p-24 : 0x1.0p-53;
  for (bool log : {false, true}) {
    Tensor y = softmax(x, axis, log, {});
    Exact want = exact(x, axis, log);
    for (int64_t i = 0; i < y.numel(); ++i) {
      size_t k = static_cast<size_t>(i);
      ASSERT_LE(std::fabs(static_cast<double>(y.flatAsDouble(i) - want.value[k])), 3 * eps * want.condition[k])
          << (log ? "log_softmax" : "softmax") << " axis " << axis << " element " << i;
    }
  }
}

TEST(SoftmaxKernels, F32AlongEveryAxisIsWithinAFewUlpOfTheExactValue) {
  expectNearExact({3, 5000}, 1, DType::F32, 20.0f);   // rows of two sum chunks
  expectNearExact({37, 17}, 1, DType::F32, 8.0f);     // a row shorter than the lanes' step
  expectNearExact({300, 7}, 0, DType::F32, 8.0f);     // a narrow strip
  expectNearExact({40, 600}, 0, DType::F32, 8.0f);    // strips of 256, 256 and 88 columns
  expectNearExact({4, 30, 5}, 1, DType::F32, 8.0f);   // a middle axis
  expectNearExact({2, 3, 300}, 1, DType::F32, 30.0f); // a middle axis over strips
}

TEST(SoftmaxKernels, F64AlongEveryAxisIsWithinAFewUlpOfTheExactValue) {
  expectNearExact({3, 5000}, 1, DType::F64, 20.0f);
  expectNearExact({300, 7}, 0, DType::F64, 8.0f);
  expectNearExact({4, 30, 5}, 1, DType::F64, 8.0f);
}

std::vector<uint64_t> softmaxBits(const Tensor& t) {
  std::vector<uint64_t> bits;
  for (int64_t i = 0; i < t.numel(); ++i) bits.push_back(std::bit_cast<uint64_t>(t.flatAsDouble(i)));
  return bits;
}

TEST(SoftmaxKernels, OneTwoAndThreeThreadsGiveTheSameBits) {
  int before = omp_get_max_threads();
  for (auto [shape, axis] : std::vector<std::pair<Shape, int64_t>>{{{64, 3000}, 1}, {{700, 300}, 0}, {{8, 50, 300}, 1}})
    for (DType dt : {DType::F32, DType::F64})
      for (bool log : {false, true}) {
        Tensor x = softmaxInput(shape, dt, 10.0f);
        omp_set_num_threads(1);
        std::vector<uint64_t> one = softmaxBits(softmax(x, axis, log, {}));
        for (int threads : {2, 3}) {
          omp_set_num_threads(threads);
          EXPECT_EQ(softmaxBits(softmax(x, axis, log, {})), one) << threads << " threads, axis " << axis;
        }
      }
  omp_set_num_threads(before);
}

// Slices 0..3 along `axis` of a [4, 5] tensor (axis 1: rows; axis 0:
// columns, transposed here): a NaN, all -inf, a +inf, finite.
Tensor specials(int64_t axis, DType dt) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float slices[4][5] = {{1, nan, 2, 3, 4}, {-kInf, -kInf, -kInf, -kInf, -kInf}, {1, kInf, 2, -kInf, 3}, {0, 1, 2, 3, 4}};
  Tensor t = Tensor::empty(DType::F32, axis == 1 ? Shape{4, 5} : Shape{5, 4}, testDevice());
  for (int s = 0; s < 4; ++s)
    for (int i = 0; i < 5; ++i) t.data<float>()[axis == 1 ? s * 5 + i : i * 4 + s] = slices[s][i];
  return dt == DType::F32 ? t : astype(t, dt);
}

TEST(SoftmaxKernels, SpecialValuesAsPyTorch) {
  for (int64_t axis : {0, 1})
    for (DType dt : {DType::F32, DType::F64})
      for (bool log : {false, true}) {
        Tensor y = softmax(specials(axis, dt), axis, log, {});
        auto at = [&](int s, int i) { return y.flatAsDouble(axis == 1 ? s * 5 + i : i * 4 + s); };
        for (int i = 0; i < 5; ++i) {
          EXPECT_TRUE(std::isnan(at(0, i))) << "the NaN slice, axis " << axis;
          EXPECT_TRUE(std::isnan(at(1, i))) << "the -inf slice, axis " << axis;
        }
        EXPECT_TRUE(std::isnan(at(2, 1)));
        for (int i : {0, 2, 3}) EXPECT_EQ(at(2, i), log ? -kInf : 0.0) << "beside +inf, axis " << axis;
        EXPECT_EQ(at(2, 4), log ? -kInf : 0.0);
        double sum = 0;
        for (int i = 0; i < 5; ++i) sum += log ? std::exp(at(3, i)) : at(3, i);
        EXPECT_NEAR(sum, 1.0, 1e-6) << "the finite slice, axis " << axis;
      }
}

}  // namespace
