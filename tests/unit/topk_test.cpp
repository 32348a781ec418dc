// topk on the CPU (runtime/kernels_cpu_order.cpp): its kernel selects the
// first k of each line without sorting the line (one pass for a few, else
// nth_element), and must give exactly the first k of the stable sort: the
// same values and indices, ties in position order, NaN as the largest
// value, for both directions, along every axis, for every k from 0 to the
// line's length (across the one-pass limit), on lines with many ties, on
// sorted, reversed and constant lines, and for every dtype.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/tensor_ops.h"
#include "test_device.h"
#include "test_random.h"

namespace {

using namespace nn::rt;

// Lines of 40 along axis 1 of [4, 40] (or along axis 0 of its transpose):
// random with ties and NaNs, ascending, descending, constant.
Tensor lines(DType dt) {
  Tensor t = Tensor::empty(DType::F64, {4, 40}, testDevice());
  XorShift64 random{0x2545f4914f6cdd1dull};
  for (int64_t j = 0; j < 40; ++j) {
    uint64_t x = random.next();
    double r = static_cast<double>(x % 7) - 3;
    if (x % 11 == 0) r = std::numeric_limits<double>::quiet_NaN();
    double* d = t.data<double>();
    d[j] = r;
    d[40 + j] = static_cast<double>(j);
    d[80 + j] = static_cast<double>(40 - j);
    d[120 + j] = 2;
  }
  return astype(t, dt);
}

// The first k positions of a line in the stable sort's order, NaN as the
// largest value, written out plainly.
std::vector<int64_t> firstK(const std::vector<double>& line, int64_t k, bool largest) {
  std::vector<int64_t> order(line.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  auto key = [&](int64_t i) { return std::isnan(line[static_cast<size_t>(i)]) ? INFINITY : line[static_cast<size_t>(i)]; };
  auto nan = [&](int64_t i) { return std::isnan(line[static_cast<size_t>(i)]); };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    // NaN after +inf ascending, before it descending.
    if (key(a) == key(b)) return largest ? nan(a) && !nan(b) : !nan(a) && nan(b);
    return largest ? key(a) > key(b) : key(a) < key(b);
  });
  order.resize(static_cast<size_t>(k));
  return order;
}

TEST(TopK, IsTheFirstKOfTheStableSort) {
  for (DType dt : {DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool})
    for (int64_t axis : {0, 1})
      for (bool largest : {true, false}) {
        Tensor x = axis == 1 ? lines(dt) : transpose(lines(dt), {}, {}).contiguous();
        for (int64_t k = 0; k <= 40; ++k) {
          auto [values, indices] = topk(x, k, axis, largest, {});
          std::string what = std::string(dtypeName(dt)) + " axis " + std::to_string(axis) +
                             (largest ? " largest" : " smallest") + " k " + std::to_string(k);
          ASSERT_EQ(values.dim(static_cast<int>(axis)), k) << what;
          for (int64_t l = 0; l < 4; ++l) {
            auto at = [&](int64_t i) { return axis == 1 ? l * 40 + i : i * 4 + l; };
            auto atK = [&](int64_t i) { return axis == 1 ? l * k + i : i * 4 + l; };
            std::vector<double> line;
            for (int64_t i = 0; i < 40; ++i) line.push_back(x.flatAsDouble(at(i)));
            std::vector<int64_t> want = firstK(line, k, largest);
            for (int64_t i = 0; i < k; ++i) {
              int64_t from = want[static_cast<size_t>(i)];
              ASSERT_EQ(indices.flatAsDouble(atK(i)), static_cast<double>(from)) << what << " line " << l << " place " << i;
              ASSERT_EQ(std::bit_cast<uint64_t>(values.flatAsDouble(atK(i))), std::bit_cast<uint64_t>(line[static_cast<size_t>(from)]))
                  << what << " line " << l << " place " << i;
            }
          }
        }
      }
}

}  // namespace
