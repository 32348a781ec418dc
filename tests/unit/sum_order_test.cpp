// The order of the CPU kernels' float sums and products
// (runtime/sum_order.h): every path of a sum over one run (a whole tensor,
// rows, columns, one long row split among cores, a permuted copy) gives the
// bits of the documented order written out plainly here, and 1, 2 or 3
// threads give the same bits for those and for sums over leading and
// trailing axes at once. (tests/scripts/sum_order.nn checks the JIT's
// fused sums against the same order.)
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "runtime/tensor_ops.h"
#include "runtime/value.h"
#include "test_device.h"
#include "test_random.h"

namespace {

using namespace nn::rt;

// The documented order: chunks of 4,096 elements, each summed in 16 lanes
// of every 16th element, the lanes added pairwise, then the chunk's last
// elements in order; the chunks' sums added in order.
double documentedSum(const std::vector<double>& v) {
  int64_t n = static_cast<int64_t>(v.size());
  double total = 0;
  for (int64_t start = 0; start < n; start += 4096) {
    int64_t len = std::min<int64_t>(4096, n - start), main = len - len % 16;
    double lanes[16] = {};
    for (int64_t i = 0; i < main; ++i) lanes[i % 16] += v[static_cast<size_t>(start + i)];
    for (int width = 8; width >= 1; width /= 2)
      for (int k = 0; k < width; ++k) lanes[k] = lanes[2 * k] + lanes[2 * k + 1];
    double chunk = lanes[0];
    for (int64_t i = main; i < len; ++i) chunk += v[static_cast<size_t>(start + i)];
    total += chunk;
  }
  return total;
}

// Values with all 53 bits of a double (sums of floats in double are often
// exact in any order; these show the order), of dtype dt.
Tensor values(const Shape& shape, DType dt) {
  Tensor t = Tensor::empty(DType::F64, shape, testDevice());
  XorShift64 random{88172645463325252ull};
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint64_t x = random.next();
    t.data<double>()[i] = (static_cast<double>(x >> 11) * 0x1.0p-53 - 0.5) * 7.0;
  }
  return astype(t, dt);
}

std::vector<double> elements(const Tensor& t, int64_t from, int64_t count) {
  std::vector<double> v;
  for (int64_t i = from; i < from + count; ++i) v.push_back(t.flatAsDouble(i));
  return v;
}

uint64_t bitsOf(double d) { return std::bit_cast<uint64_t>(d); }

// The sum's f32 or f64 result as the kernel stores it: rounded once.
uint64_t stored(double sum, DType dt) {
  return bitsOf(dt == DType::F32 ? static_cast<double>(static_cast<float>(sum)) : sum);
}

// Runs f with 1, 2 and 3 OpenMP threads, restoring the count after.
template <class F>
void onThreadCounts(F f) {
  int before = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    f(threads);
  }
  omp_set_num_threads(before);
}

TEST(SumOrder, WholeSumsAndMeansAddInTheDocumentedOrder) {
  for (DType dt : {DType::F64, DType::F32})
    for (int64_t n : {1, 15, 16, 17, 31, 4095, 4096, 4097, 40000, 100003}) {
      Tensor t = values({n}, dt);
      double want = documentedSum(elements(t, 0, n));
      onThreadCounts([&](int threads) {
        Tensor sum = reduce(t, Reduction::Sum, {}, false, {}, "sum");
        Tensor mean = reduce(t, Reduction::Mean, {}, false, {}, "mean");
        EXPECT_EQ(bitsOf(sum.flatAsDouble(0)), stored(want, dt)) << typeString(t) << ", " << threads << " threads";
        EXPECT_EQ(bitsOf(mean.flatAsDouble(0)), stored(want / static_cast<double>(n), dt))
            << typeString(t) << ", " << threads << " threads";
      });
    }
}

TEST(SumOrder, RowSumsAndPermutedSumsAddInTheDocumentedOrder) {
  for (DType dt : {DType::F64, DType::F32}) {
    for (Shape shape : {Shape{300, 33}, Shape{5, 5000}, Shape{2, 8225}, Shape{1, 40000}}) {
      Tensor t = values(shape, dt);
      onThreadCounts([&](int threads) {
        Tensor rows = reduce(t, Reduction::Sum, {1}, false, {}, "sum");
        for (int64_t r = 0; r < shape[0]; ++r)
          ASSERT_EQ(bitsOf(rows.flatAsDouble(r)), stored(documentedSum(elements(t, r * shape[1], shape[1])), dt))
              << typeString(t) << " row " << r << ", " << threads << " threads";
      });
    }
    // A transposed view is summed as its contiguous copy, in its own order.
    Tensor t = values({300, 200}, dt);
    Tensor view = transpose(t, {1, 0}, {});
    double want = documentedSum(elements(view.contiguous(), 0, view.numel()));
    onThreadCounts([&](int threads) {
      EXPECT_EQ(bitsOf(reduce(view, Reduction::Sum, {}, false, {}, "sum").flatAsDouble(0)), stored(want, dt))
          << threads << " threads";
    });
  }
}

// A float sum over leading axes adds each output's column in the same
// order: x.sum(0) has the bits of x.T.contiguous().sum(1).
TEST(SumOrder, ColumnSumsAddEachColumnInTheDocumentedOrder) {
  for (DType dt : {DType::F64, DType::F32})
    for (Shape shape : {Shape{5000, 3}, Shape{4100, 260}, Shape{40, 3000}, Shape{17, 5}}) {
      Tensor t = values(shape, dt);
      Tensor columnsAsRows = transpose(t, {1, 0}, {}).contiguous();
      onThreadCounts([&](int threads) {
        Tensor sums = reduce(t, Reduction::Sum, {0}, false, {}, "sum");
        Tensor means = reduce(t, Reduction::Mean, {0}, false, {}, "mean");
        for (int64_t k = 0; k < shape[1]; ++k) {
          double want = documentedSum(elements(columnsAsRows, k * shape[0], shape[0]));
          ASSERT_EQ(bitsOf(sums.flatAsDouble(k)), stored(want, dt))
              << typeString(t) << " column " << k << ", " << threads << " threads";
          ASSERT_EQ(bitsOf(means.flatAsDouble(k)), stored(want / static_cast<double>(shape[0]), dt))
              << typeString(t) << " column " << k << ", " << threads << " threads";
        }
      });
    }
}

// A sum over axes of a permuted tensor has the bits of the same sum of its
// contiguous copy, whether it reads the view in place (rows or columns in
// memory order) or copies it: every permutation of a 3-d tensor, every set
// of axes, keepdims either way.
TEST(SumOrder, PermutedTensorsSumAsTheirCopies) {
  Tensor t = values({40, 7, 300}, DType::F64);
  std::vector<std::vector<int64_t>> perms = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  std::vector<std::vector<int64_t>> axesSets = {{0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {}};
  for (const auto& perm : perms)
    for (const auto& axes : axesSets)
      for (bool keepdims : {false, true})
        for (Reduction r : {Reduction::Sum, Reduction::Mean}) {
          Tensor view = transpose(t, perm, {});
          Tensor got = reduce(view, r, axes, keepdims, {}, "sum");
          Tensor want = reduce(view.contiguous(), r, axes, keepdims, {}, "sum");
          ASSERT_EQ(got.shape(), want.shape());
          for (int64_t i = 0; i < want.numel(); ++i)
            ASSERT_EQ(bitsOf(got.flatAsDouble(i)), bitsOf(want.flatAsDouble(i)))
                << "permutation " << perm[0] << perm[1] << perm[2] << ", " << axes.size() << " axes, output " << i;
        }
}

// A sum whose kept axes are not one block (axes 0 and 2 of four summed)
// adds each output's elements in the reduced axes' row-major order, in the
// documented order: whether the outputs are many and their sums short
// (summed as columns, the reduced axes laid out first) or few and long
// (a run each).
TEST(SumOrder, SumsKeepingAxesApartAddInTheDocumentedOrder) {
  for (DType dt : {DType::F64, DType::F32})
    for (Shape shape : {Shape{3, 50, 4, 10}, Shape{5, 300, 7, 3}, Shape{300, 2, 50, 2}}) {
      Tensor t = values(shape, dt);
      onThreadCounts([&](int threads) {
        Tensor sums = reduce(t, Reduction::Sum, {0, 2}, false, {}, "sum");
        for (int64_t b = 0; b < shape[1]; ++b)
          for (int64_t d = 0; d < shape[3]; ++d) {
            std::vector<double> v;
            for (int64_t a = 0; a < shape[0]; ++a)
              for (int64_t c = 0; c < shape[2]; ++c)
                v.push_back(t.flatAsDouble(((a * shape[1] + b) * shape[2] + c) * shape[3] + d));
            ASSERT_EQ(bitsOf(sums.flatAsDouble(b * shape[3] + d)), stored(documentedSum(v), dt))
                << typeString(t) << " output " << b << ", " << d << ", " << threads << " threads";
          }
      });
    }
}

// A product multiplies as a chunk adds: sixteen running products of every
// sixteenth element, multiplied pairwise, then the last elements in order.
TEST(SumOrder, ProductsMultiplyInTheLaneOrder) {
  for (DType dt : {DType::F64, DType::F32})
    for (int64_t n : {1, 15, 16, 17, 100, 1000}) {
      // Factors near 1, so that a thousand of them neither overflow nor vanish.
      Tensor t = astype(tensorOf(tensorBinary(nn::ir::Op::Add, makeTensorValue(values({n}, DType::F64)),
                                              Value::real(30.0), {})),
                        dt);
      t = tensorOf(tensorBinary(nn::ir::Op::Div, makeTensorValue(t), Value::real(30.0), {}));
      std::vector<double> v = elements(t, 0, n);
      int64_t main = n - n % 16;
      double lanes[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
      for (int64_t i = 0; i < main; ++i) lanes[i % 16] *= v[static_cast<size_t>(i)];
      for (int width = 8; width >= 1; width /= 2)
        for (int k = 0; k < width; ++k) lanes[k] = lanes[2 * k] * lanes[2 * k + 1];
      double want = lanes[0];
      for (int64_t i = main; i < n; ++i) want *= v[static_cast<size_t>(i)];
      EXPECT_EQ(bitsOf(reduce(t, Reduction::Prod, {}, false, {}, "prod").flatAsDouble(0)), stored(want, dt))
          << typeString(t);
    }
}

// Sums over leading axes add each output's blocks in block order, split
// among cores in groups that do not depend on the number of threads.
TEST(SumOrder, LeadingBlockSumsAreTheSameOnAnyNumberOfThreads) {
  for (Shape shape : {Shape{5000, 7, 40}, Shape{20000, 20, 3}, Shape{100000, 3}}) {
    Tensor t = values(shape, shape.size() == 3 ? DType::F64 : DType::I64);
    std::vector<int64_t> axes = shape.size() == 3 ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{0};
    std::vector<uint64_t> first;
    onThreadCounts([&](int threads) {
      Tensor sum = reduce(t, Reduction::Sum, axes, false, {}, "sum");
      for (int64_t k = 0; k < sum.numel(); ++k) {
        if (threads == 1) first.push_back(bitsOf(sum.flatAsDouble(k)));
        else ASSERT_EQ(bitsOf(sum.flatAsDouble(k)), first[static_cast<size_t>(k)]) << threads << " threads";
      }
    });
  }
}

}  // namespace
