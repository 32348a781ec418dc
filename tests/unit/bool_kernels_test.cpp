// The CPU kernels' loops that read bool tensors as bytes (kernel_loops.h's
// Stored): astype from bool to every element type, contiguous and through
// a transposed view, and sum, mean, max, min, argmax, any and all of bools
// along each axis and over all, at lengths around the vector widths and
// large enough to run on all cores, each against the element-by-element
// answer.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "runtime/tensor_ops.h"
#include "test_device.h"
#include "test_random.h"

namespace {

using namespace nn::rt;

XorShift64 boolRandom{0x9e3779b97f4a7c15ull};

// rows x cols bools, true about once in `oneIn`.
Tensor randomBools(int64_t rows, int64_t cols, uint64_t oneIn) {
  Tensor t = Tensor::empty(DType::Bool, {rows, cols}, testDevice());
  for (int64_t i = 0; i < t.numel(); ++i) t.data<bool>()[i] = boolRandom.next() % oneIn == 0;
  return t;
}

template <class D>
void checkBoolConversion(const Tensor& b, DType to) {
  Tensor converted = astype(b, to);
  ASSERT_EQ(converted.dtype(), to);
  int64_t rows = b.shape()[0], cols = b.shape()[1];
  const bool* src = b.data<bool>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      bool v = src[r * b.strides()[0] + c * b.strides()[1]];
      ASSERT_EQ(converted.data<D>()[r * converted.strides()[0] + c * converted.strides()[1]], v ? D(1) : D(0))
          << "bool to " << dtypeName(to) << " at (" << r << ", " << c << ") of " << rows << "x" << cols
          << (b.isContiguous() ? "" : ", transposed");
    }
}

void checkBoolConversions(const Tensor& b) {
  checkBoolConversion<float>(b, DType::F32);
  checkBoolConversion<double>(b, DType::F64);
  checkBoolConversion<int32_t>(b, DType::I32);
  checkBoolConversion<int64_t>(b, DType::I64);
  checkBoolConversion<bool>(b, DType::Bool);
}

TEST(BoolKernels, ConvertEveryLengthAndLayout) {
  for (int64_t cols : {1, 7, 31, 32, 33, 64, 65, 512}) {
    for (int64_t rows : {1, 3, 784}) {
      Tensor b = randomBools(rows, cols, 2);
      checkBoolConversions(b);
      checkBoolConversions(transpose(b, {1, 0}, {}));
    }
  }
}

// Each reduction of b along `axis` (-1: over all) against the counts.
void checkBoolReductions(const Tensor& b, int64_t axis) {
  int64_t rows = b.shape()[0], cols = b.shape()[1];
  int64_t outer = axis == 0 ? cols : axis == 1 ? rows : 1;
  int64_t along = axis == 0 ? rows : axis == 1 ? cols : rows * cols;
  std::vector<int64_t> trues(static_cast<size_t>(outer)), first(static_cast<size_t>(outer), -1);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < along; ++k) {
      int64_t r = axis == 0 ? k : axis == 1 ? o : k / cols, c = axis == 0 ? o : axis == 1 ? k : k % cols;
      if (b.data<bool>()[r * cols + c]) {
        ++trues[o];
        if (first[o] < 0) first[o] = k;
      }
    }
  std::vector<int64_t> axes = axis < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{axis};
  // The outputs in order, as int64s (mean's as its f32s).
  auto result = [&](Reduction r, DType as) {
    Tensor t = astype(reduce(b, r, axes, false, {}, "test"), as);
    EXPECT_EQ(t.numel(), outer);
    return t;
  };
  Tensor sum = result(Reduction::Sum, DType::I64), mean = result(Reduction::Mean, DType::F32);
  Tensor max = result(Reduction::Max, DType::I64), min = result(Reduction::Min, DType::I64);
  Tensor argmax = result(Reduction::ArgMax, DType::I64);
  Tensor any = result(Reduction::Any, DType::I64), all = result(Reduction::All, DType::I64);
  for (int64_t o = 0; o < outer; ++o) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols << ", axis " << axis << ", output " << o);
    ASSERT_EQ(sum.data<int64_t>()[o], trues[o]);
    ASSERT_EQ(mean.data<float>()[o], static_cast<float>(static_cast<double>(trues[o]) / static_cast<double>(along)));
    ASSERT_EQ(max.data<int64_t>()[o], trues[o] > 0 ? 1 : 0);
    ASSERT_EQ(min.data<int64_t>()[o], trues[o] == along ? 1 : 0);
    ASSERT_EQ(argmax.data<int64_t>()[o], trues[o] > 0 ? first[o] : 0);
    ASSERT_EQ(any.data<int64_t>()[o], trues[o] > 0 ? 1 : 0);
    ASSERT_EQ(all.data<int64_t>()[o], trues[o] == along ? 1 : 0);
  }
}

TEST(BoolKernels, ReduceAlongEachAxisAndOverAll) {
  for (int64_t cols : {1, 15, 16, 17, 64, 100, 512}) {
    for (int64_t rows : {1, 2, 33, 784}) {
      // One in five true, and all true (min's and all's whole runs).
      for (uint64_t oneIn : {5ull, 1ull}) {
        Tensor b = randomBools(rows, cols, oneIn);
        for (int64_t axis : {0, 1, -1}) checkBoolReductions(b, axis);
      }
    }
  }
}

}  // namespace
