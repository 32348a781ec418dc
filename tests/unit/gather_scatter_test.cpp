// gather, scatter_add and scatter_reduce on the CPU
// (runtime/kernels_cpu_copy.cpp walk the index's lines along the axis in
// blocks of neighbouring lines): against a plain loop over the index's
// coordinates, for an axis first, in the middle and last, blocks of lines
// with a partial last block, negative indices, an index broadcast with
// stride 0 (across the lines too: one run of src into one run of out a
// step), a transposed src larger than the index, and repeated indices
// whose values add (and multiply) in index order (full-mantissa values,
// so that another order shows in the bits); an f32 src summed in f64.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "runtime/tensor_ops.h"
#include "test_device.h"
#include "test_random.h"

namespace {

using namespace nn::rt;

XorShift64 scatterRandom{0x853c49e6748fea9bull};

Tensor scatterValues(const Shape& shape) {
  Tensor t = Tensor::empty(DType::F64, shape, testDevice());
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = (static_cast<double>(scatterRandom.next() >> 11) * 0x1.0p-53 - 0.5) * 3;
  return t;
}

// Indices in [-len, len) of `shape`.
Tensor indices(const Shape& shape, int64_t len) {
  Tensor t = Tensor::empty(DType::I64, shape, testDevice());
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = static_cast<int64_t>(scatterRandom.next() % static_cast<uint64_t>(2 * len)) - len;
  return t;
}

// The element of t at coordinates c through its strides.
int64_t offsetOf(const Tensor& t, const std::vector<int64_t>& c) {
  int64_t off = 0;
  for (size_t d = 0; d < c.size(); ++d) off += c[d] * t.strides()[d];
  return off;
}

// Each coordinate of `shape` in row-major order.
template <class F>
void eachCoordinate(const Shape& shape, F f) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<int64_t> c(shape.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i;
    for (size_t d = shape.size(); d-- > 0;) {
      c[d] = rem % shape[d];
      rem /= shape[d];
    }
    f(c);
  }
}

void check(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, const std::string& what) {
  int64_t len = x.dim(static_cast<int>(axis));
  auto at = [&](const Tensor& t, std::vector<int64_t> c, int64_t k) {
    c[static_cast<size_t>(axis)] = k < 0 ? k + len : k;
    return offsetOf(t, c);
  };
  Tensor got = gather(x, axis, index, {});
  eachCoordinate(index.shape(), [&](const std::vector<int64_t>& c) {
    int64_t k = index.data<int64_t>()[offsetOf(index, c)];
    ASSERT_EQ(std::bit_cast<uint64_t>(got.data<double>()[offsetOf(got, c)]),
              std::bit_cast<uint64_t>(x.data<double>()[at(x, c, k)]))
        << what << ": gather";
  });
  // Row-major order over the index's coordinates adds each output
  // element's contributions in index order along the axis.
  Tensor want = x.clone();
  eachCoordinate(index.shape(), [&](const std::vector<int64_t>& c) {
    int64_t k = index.data<int64_t>()[offsetOf(index, c)];
    want.data<double>()[at(want, c, k)] += src.data<double>()[offsetOf(src, c)];
  });
  Tensor added = scatterAdd(x, axis, index, src, {});
  for (int64_t i = 0; i < x.numel(); ++i)
    ASSERT_EQ(std::bit_cast<uint64_t>(added.data<double>()[i]), std::bit_cast<uint64_t>(want.data<double>()[i]))
        << what << ": scatter_add element " << i;
  // An f32 src is summed in f64 without an f64 copy of it (each term
  // widened as it is added): the same bits as summing its f64 copy.
  Tensor x32 = astype(x, DType::F32), src32 = astype(src, DType::F32);
  Tensor wide = astype(scatterAdd(astype(x32, DType::F64), axis, index, astype(src32, DType::F64), {}), DType::F32);
  for (const Tensor& narrow : {scatterAdd(x32, axis, index, src32, {}),
                               scatterReduce(x32, axis, index, src32, "sum", true, {})})
    for (int64_t i = 0; i < x.numel(); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(narrow.data<float>()[i]), std::bit_cast<uint32_t>(wide.data<float>()[i]))
          << what << ": f32 scatter_add element " << i;
  // scatter_reduce's product (whose last bits show the order) and
  // extremes, in index order too.
  for (const char* reduce : {"prod", "amax", "amin"}) {
    Tensor reduced = x.clone();
    eachCoordinate(index.shape(), [&](const std::vector<int64_t>& c) {
      int64_t k = index.data<int64_t>()[offsetOf(index, c)];
      double& to = reduced.data<double>()[at(reduced, c, k)];
      double v = src.data<double>()[offsetOf(src, c)];
      to = reduce[1] == 'r' ? to * v : reduce[2] == 'a' ? std::max(to, v) : std::min(to, v);
    });
    Tensor got = scatterReduce(x, axis, index, src, reduce, true, {});
    for (int64_t i = 0; i < x.numel(); ++i)
      ASSERT_EQ(std::bit_cast<uint64_t>(got.data<double>()[i]), std::bit_cast<uint64_t>(reduced.data<double>()[i]))
          << what << ": scatter_reduce " << reduce << " element " << i;
  }
}

TEST(GatherScatter, MatchAPlainLoopOverTheIndex) {
  // Axis first: lines in blocks of 64 and a partial one (130 = 2 * 64 + 2).
  check(scatterValues({5, 130}), 0, indices({40, 130}, 5), scatterValues({40, 130}), "axis 0");
  // A middle axis, a stride-0 index and a transposed, larger src.
  Tensor x = scatterValues({3, 7, 70});
  Tensor narrow = indices({3, 50, 1}, 7);
  Tensor broadcast = broadcastTo(narrow, {3, 50, 70}, {});
  Tensor srcT = transpose(scatterValues({3, 71, 52}), {0, 2, 1}, {});
  check(x, 1, broadcast, srcT, "axis 1 of 3, broadcast index, transposed src");
  // The last axis, an index longer than it.
  check(scatterValues({9, 4}), 1, indices({9, 12}, 4), scatterValues({9, 12}), "last axis");
  // The last axis of three: short lines in blocks along the axis before it
  // (130 of them: two whole blocks and a part); long lines one at a time;
  // a class index [N, 1].
  check(scatterValues({2, 130, 5}), 2, indices({2, 130, 3}, 5), scatterValues({2, 130, 3}), "last of 3, short lines");
  check(scatterValues({3, 80}), 1, indices({3, 70}, 80), scatterValues({3, 70}), "last axis, long lines");
  check(scatterValues({300, 10}), 1, indices({300, 1}, 10), scatterValues({300, 1}), "class index");
  // An index broadcast across the lines (index_add's) into contiguous rows.
  check(scatterValues({6, 130}), 0, broadcastTo(indices({40, 1}, 6), {40, 130}, {}), scatterValues({40, 130}),
        "axis 0, index broadcast across the lines");
  // One dimension.
  check(scatterValues({6}), 0, indices({33}, 6), scatterValues({33}), "1-d");
}

}  // namespace
