// max, min, argmax and argmin over leading axes of a contiguous tensor,
// which reduce() scans in place (cpuLeadingExtremum): bit for bit what the
// same reduction gives through the permuted copy (taken for a strided view
// of the same values), for every element type with ties, NaNs and zeros of
// both signs, columns in whole and partial tiles, one and two leading axes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/tensor_ops.h"
#include "test_device.h"
#include "test_random.h"

namespace {

using namespace nn::rt;

XorShift64 leadingRandom{0x2545f4914f6cdd1dull};

// Few distinct values (ties); floats also NaN, -0.0 and +0.0.
template <class T>
T leadingValue() {
  uint64_t r = leadingRandom.next() % 16;
  if constexpr (std::is_floating_point_v<T>) {
    if (r == 0 && leadingRandom.next() % 8 == 0) return std::numeric_limits<T>::quiet_NaN();
    if (r == 1) return T(-0.0);
    if (r == 2) return T(0.0);
  }
  return static_cast<T>(static_cast<int64_t>(r) - 8);
}

// x of `shape` and the same values in a strided view (every other element
// of a wider tensor), which reduce() reads through the permuted copy.
template <class T>
std::pair<Tensor, Tensor> leadingPair(const Shape& shape) {
  Tensor x = Tensor::empty(dtypeOf<T>(), shape, testDevice());
  Shape wide = shape;
  wide.back() *= 2;
  Tensor w = Tensor::empty(dtypeOf<T>(), wide, testDevice());
  for (int64_t i = 0; i < x.numel(); ++i) {
    T v = leadingValue<T>();
    x.data<T>()[i] = v;
    w.data<T>()[2 * i] = v;
    w.data<T>()[2 * i + 1] = T(1);
  }
  Shape strides = w.strides();
  strides.back() = 2;
  return {x, w.view(shape, strides, w.offset())};
}

bool sameBytes(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype() || !a.isContiguous() || !b.isContiguous()) return false;
  return std::memcmp(a.bytes(), b.bytes(), static_cast<size_t>(a.numel()) * dtypeSize(a.dtype())) == 0;
}

template <class T>
void checkLeadingReductions(const Shape& shape, const std::vector<int64_t>& axes) {
  auto [x, strided] = leadingPair<T>(shape);
  ASSERT_TRUE(x.isContiguous());
  ASSERT_FALSE(strided.isContiguous());
  for (Reduction r : {Reduction::Max, Reduction::Min, Reduction::ArgMax, Reduction::ArgMin}) {
    bool arg = r == Reduction::ArgMax || r == Reduction::ArgMin;
    if (arg && axes.size() > 1) continue;
    for (bool keep : {false, true}) {
      Tensor inPlace = reduce(x, r, axes, keep, {}, "test");
      Tensor permuted = reduce(strided, r, axes, keep, {}, "test");
      EXPECT_TRUE(sameBytes(inPlace, permuted))
          << dtypeName(dtypeOf<T>()) << " reduction " << static_cast<int>(r) << " of " << shape.size() << "-d, "
          << shape[0] << " rows, keepdims " << keep;
    }
  }
}

template <class T>
void checkLeadingShapes() {
  checkLeadingReductions<T>({1000, 70}, {0});  // a whole tile and a partial one, on all cores
  checkLeadingReductions<T>({3, 16}, {0});
  checkLeadingReductions<T>({2, 17}, {0});
  checkLeadingReductions<T>({5, 200}, {-2});
  checkLeadingReductions<T>({4, 5, 40}, {0, 1});
  checkLeadingReductions<T>({4, 5, 40}, {0});
  checkLeadingReductions<T>({300, 8}, {0});  // too few columns: the permuted path itself
}

TEST(LeadingExtremum, InPlaceScansMatchThePermutedCopy) {
  checkLeadingShapes<float>();
  checkLeadingShapes<double>();
  checkLeadingShapes<int32_t>();
  checkLeadingShapes<int64_t>();
}

}  // namespace
