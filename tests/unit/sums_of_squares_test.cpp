// norm(x)'s sums of squares over trailing axes in one pass on the CPU
// (trailingSumsOfSquares, cpuSumsOfSquares) against the square op then
// the sum op, bit for bit: f32 and f64, rows shorter than a lane, longer
// than a chunk, one output long enough to be summed on all cores, several
// trailing axes, all axes, keepdims; other axes and strided tensors are
// left to the ops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/tensor_ops.h"
#include "test_device.h"
#include "test_random.h"

namespace {

using namespace nn::rt;
using nn::ir::Op;

XorShift64 squaresRandom{0x61c8864680b583ebull};

// Values over many magnitudes, so that the squares' roundings and the
// sum's order both show.
template <class T>
Tensor squaresInput(const Shape& shape) {
  Tensor t = Tensor::empty(dtypeOf<T>(), shape, testDevice());
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint64_t r = squaresRandom.next();
    double mantissa = static_cast<double>(r >> 11) / 9007199254740992.0 - 0.5;
    t.data<T>()[i] = static_cast<T>(std::ldexp(mantissa, static_cast<int>(r % 24) - 12));
  }
  return t;
}

bool sameSquareSums(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.isContiguous() && b.isContiguous() &&
         std::memcmp(a.bytes(), b.bytes(), static_cast<size_t>(a.numel()) * dtypeSize(a.dtype())) == 0;
}

template <class T>
void checkSquareSums(const Shape& shape, const std::vector<int64_t>& axes) {
  Tensor x = squaresInput<T>(shape);
  for (bool keep : {false, true}) {
    std::optional<Tensor> fused = trailingSumsOfSquares(x, axes, keep);
    ASSERT_TRUE(fused) << shape.size() << "-d, " << axes.size() << " axes";
    Tensor squares = tensorOf(mathUnary(Op::Square, makeTensorValue(x), {}));
    Tensor stepwise = reduce(squares, Reduction::Sum, axes, keep, {}, "test");
    EXPECT_TRUE(sameSquareSums(*fused, stepwise))
        << dtypeName(x.dtype()) << " " << shape.size() << "-d of " << x.numel() << ", " << axes.size()
        << " axes, keepdims " << keep;
  }
}

template <class T>
void checkSquareSumShapes() {
  checkSquareSums<T>({7}, {});
  checkSquareSums<T>({5000}, {0});     // two chunks
  checkSquareSums<T>({300000}, {});    // one output, its chunks on all cores
  checkSquareSums<T>({784, 512}, {1}); // rows on all cores
  checkSquareSums<T>({33, 4100}, {-1});
  checkSquareSums<T>({3, 4, 5}, {1, 2});
  checkSquareSums<T>({3, 4, 5}, {-1, -2});
  checkSquareSums<T>({3, 4, 5}, {});
}

TEST(SumsOfSquares, OnePassMatchesTheSquareThenTheSumBitForBit) {
  checkSquareSumShapes<float>();
  checkSquareSumShapes<double>();
}

TEST(SumsOfSquares, OtherAxesAndLayoutsAreLeftToTheOps) {
  Tensor x = squaresInput<float>({4, 6});
  EXPECT_FALSE(trailingSumsOfSquares(x, {0}, false)) << "a leading axis";
  EXPECT_FALSE(trailingSumsOfSquares(transpose(x, {1, 0}, {}), {1}, false)) << "a strided tensor";
  EXPECT_FALSE(trailingSumsOfSquares(astype(x, DType::I64), {1}, false)) << "an integer tensor";
  EXPECT_FALSE(trailingSumsOfSquares(x, {5}, false)) << "an axis out of range (reduce() reports it)";
}

}  // namespace
