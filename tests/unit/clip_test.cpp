// clip(x, lo, hi) of a float tensor between two numbers, which the CPU
// computes in one pass (cpuClip), against maximum then minimum op by op,
// bit for bit: NaNs (quiet and signalling, with payloads), zeros of both
// signs, infinities and values equal to a bound, with bounds that are
// zeros of either sign, equal, crossed (lo > hi), infinite or ints, in f32
// and f64, long enough to run on all cores; a NaN bound and a strided x
// take the steps op by op themselves.
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
using nn::ir::Op;

XorShift64 clipRandom{0x1d8e4e27c47d124full};

// Special values and values equal to the bounds among random ones.
template <class T>
Tensor clipInput(int64_t n, const std::vector<double>& bounds) {
  Tensor t = Tensor::empty(dtypeOf<T>(), {n}, testDevice());
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const Bits signalling = sizeof(T) == 4 ? Bits(0x7f800001u) : Bits(0x7ff0000000000001ull);
  const Bits payload = sizeof(T) == 4 ? Bits(0xffc01234u) : Bits(0xfff8000000001234ull);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = clipRandom.next();
    T v;
    switch (r % 12) {
      case 0: v = std::numeric_limits<T>::quiet_NaN(); break;
      case 1: std::memcpy(&v, &signalling, sizeof v); break;
      case 2: std::memcpy(&v, &payload, sizeof v); break;
      case 3: v = T(0.0); break;
      case 4: v = T(-0.0); break;
      case 5: v = (r >> 8) % 2 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity(); break;
      case 6: v = static_cast<T>(bounds[(r >> 8) % bounds.size()]); break;
      default: v = static_cast<T>(static_cast<double>(static_cast<int64_t>(r >> 11) % 4000 - 2000) / 1000.0);
    }
    t.data<T>()[i] = v;
  }
  return t;
}

bool sameClipBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.isContiguous() && b.isContiguous() &&
         std::memcmp(a.bytes(), b.bytes(), static_cast<size_t>(a.numel()) * dtypeSize(a.dtype())) == 0;
}

Value clipBound(double v, bool asInt) { return asInt ? Value::integer(static_cast<int64_t>(v)) : Value::real(v); }

template <class T>
void checkClipOf(const Tensor& x, double lo, double hi, bool intBounds) {
  Value xv = makeTensorValue(x), l = clipBound(lo, intBounds), h = clipBound(hi, intBounds);
  Tensor clipped = tensorOf(clipOp(xv, l, h, {}));
  Tensor stepwise = tensorOf(mathBinary(Op::Minimum, mathBinary(Op::Maximum, xv, l, {}), h, {}));
  EXPECT_TRUE(sameClipBits(clipped, stepwise))
      << dtypeName(x.dtype()) << " clip between " << lo << " and " << hi << (intBounds ? " (ints)" : "") << ", "
      << x.numel() << " elements" << (x.isContiguous() ? "" : ", strided");
}

template <class T>
void checkClipBounds() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::pair<double, double>> bounds = {
      {-0.5, 0.5}, {0.0, 6.0}, {-0.0, 1.0}, {-1.0, 0.0}, {-1.0, -0.0}, {0.0, 0.0}, {-0.0, -0.0},
      {0.25, 0.25}, {1.0, -1.0}, {0.1, 0.7}, {-inf, 0.3}, {-0.3, inf}, {1e30, 1e300}};
  for (auto [lo, hi] : bounds)
    for (int64_t n : {int64_t(1), int64_t(37), int64_t(100000)}) {
      Tensor x = clipInput<T>(n, {lo, hi, -lo, -hi});
      checkClipOf<T>(x, lo, hi, false);
      // Every other element: strided, the steps op by op.
      Tensor wide = clipInput<T>(2 * n, {lo, hi});
      checkClipOf<T>(wide.view({n}, {2}, wide.offset()), lo, hi, false);
    }
  Tensor x = clipInput<T>(1000, {-3.0, 2.0});
  checkClipOf<T>(x, -3, 2, true);
  checkClipOf<T>(x, 0, 0, true);
  // A NaN bound: every element NaN, as maximum and minimum make it.
  checkClipOf<T>(x, std::nan(""), 1.0, false);
  checkClipOf<T>(x, -1.0, std::nan(""), false);
}

TEST(Clip, OnePassMatchesMaximumThenMinimumBitForBit) {
  checkClipBounds<float>();
  checkClipBounds<double>();
}

}  // namespace
