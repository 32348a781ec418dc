// Tensor runtime tests: promotion, broadcasting, views and strides,
// allocator accounting, and kernels against plain reference loops.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "runtime/kernels.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "runtime/nn_ops.h"
#include "runtime/random.h"
#include "runtime/tensor_print.h"
#include "test_device.h"

namespace {

using namespace nn::rt;

Tensor iota(DType dt, const Shape& shape, double start = 0, double step = 1) {
  Tensor t = Tensor::empty(DType::F64, shape, testDevice());
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = start + step * static_cast<double>(i);
  return astype(t, dt);
}

TEST(DType, Promotion) {
  EXPECT_EQ(promote(DType::I64, DType::F32), DType::F32);
  EXPECT_EQ(promote(DType::I32, DType::I64), DType::I64);
  EXPECT_EQ(promote(DType::F32, DType::F64), DType::F64);
  EXPECT_EQ(promote(DType::Bool, DType::I32), DType::I32);
  EXPECT_EQ(promoteWithScalar(DType::F32, ScalarKind::Float), DType::F32);
  EXPECT_EQ(promoteWithScalar(DType::I32, ScalarKind::Int), DType::I32);
  EXPECT_EQ(promoteWithScalar(DType::I64, ScalarKind::Float), DType::F32);
  EXPECT_EQ(promoteWithScalar(DType::Bool, ScalarKind::Int), DType::I64);
}

TEST(Broadcast, Shapes) {
  EXPECT_EQ(broadcastShapes({2, 1, 3}, {4, 1}, {}, "x"), (Shape{2, 4, 3}));
  EXPECT_EQ(broadcastShapes({}, {5}, {}, "x"), (Shape{5}));
  EXPECT_THROW(broadcastShapes({2, 3}, {4}, {}, "mismatch"), nn::NnError);
}

TEST(Views, TransposeAndSliceShareStorage) {
  Tensor t = iota(DType::F32, {3, 4});
  Tensor tt = transpose(t, {}, {});
  EXPECT_EQ(tt.storage(), t.storage());
  EXPECT_EQ(tt.shape(), (Shape{4, 3}));
  EXPECT_EQ(tt.strides(), (Shape{1, 4}));
  EXPECT_FALSE(tt.isContiguous());
  EXPECT_DOUBLE_EQ(tt.flatAsDouble(1), 4.0);  // tt[0][1] == t[1][0]
  Tensor c = tt.contiguous();
  EXPECT_NE(c.storage(), t.storage());
  for (int64_t i = 0; i < 12; ++i) EXPECT_DOUBLE_EQ(c.flatAsDouble(i), tt.flatAsDouble(i));
  Tensor s = tensorGetItem(t, makeTuple({Value::integer(1)}), {});
  EXPECT_EQ(s.storage(), t.storage());
  EXPECT_EQ(s.offset(), 4);
  Tensor r = reshape(t, {2, 6}, {});
  EXPECT_EQ(r.storage(), t.storage());
}

// reshapeView views t wherever strides lay its elements out in the new
// shape (PyTorch's reshape), else copies; the elements are reshape's.
TEST(Views, ReshapeViewsWhereStridesAllowAndCopiesElsewhere) {
  Tensor t = iota(DType::F32, {2, 3, 4});
  auto same = [](const Tensor& a, const Tensor& b) {
    ASSERT_EQ(a.shape(), b.shape());
    for (int64_t i = 0; i < a.numel(); ++i) ASSERT_DOUBLE_EQ(a.flatAsDouble(i), b.flatAsDouble(i)) << i;
  };
  struct Case {
    Tensor from;
    Shape to;
    bool view;
  };
  Tensor expanded = broadcastTo(reshape(iota(DType::F32, {3}), {1, 3, 1}, {}), {2, 3, 4}, {});
  Tensor scalar = broadcastTo(reshape(iota(DType::F32, {1}), {}, {}), {6, 5}, {});
  Value all = makeSlice(Value::none(), Value::none(), Value::none());
  Tensor rowsFromOne =
      tensorGetItem(t, makeTuple({all, makeSlice(Value::integer(1), Value::none(), Value::none())}), {});
  std::vector<Case> cases{
      {t, {6, 4}, true},
      {t, {1, 24, 1}, true},
      {transpose(t, {}, {}), {12, 2}, false},             // [4, 3, 2] strides [1, 4, 12]: no run to split
      {transpose(t, {1, 0, 2}, {}), {3, 2, 2, 2}, true},  // the last dim (a run of its own) split
      {transpose(t, {1, 0, 2}, {}), {6, 4}, false},       // dims 0 and 1 swapped: not one run
      {expanded, {6, 4}, false},                          // the stride-0 dim and a stride-1 dim
      {expanded, {2, 3, 2, 2}, true},
      {scalar, {30}, true},  // an expanded scalar: any shape is a view
      {scalar, {2, 15}, true},
      {rowsFromOne, {2, 8}, true},  // t[:, 1:]: each block's rows one run
      {rowsFromOne, {16}, false},   // the blocks apart
      {tensorGetItem(t, makeTuple({Value::integer(1)}), {}), {4, 3}, true},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    Tensor v = reshapeView(cases[k].from, cases[k].to, {});
    EXPECT_EQ(v.storage() == cases[k].from.storage(), cases[k].view) << "case " << k;
    same(v, reshape(cases[k].from, cases[k].to, {}));
  }
}

TEST(Reuse, ConsumedOperandTakesTheResultOnlyWhenUnshared) {
  Value a = makeTensorValue(iota(DType::F32, {4}));
  const void* buffer = tensorOf(a).storage()->data;
  Value r = binaryOp(nn::ir::Op::Add, a, Value::real(1.0), {}, kConsumeFirst);
  EXPECT_EQ(tensorOf(r).storage()->data, buffer);
  EXPECT_EQ(tensorOf(r).flatAsDouble(3), 4.0);

  Value b = makeTensorValue(iota(DType::F32, {4}));
  Value alias = b;  // a second holder: no reuse
  Value s = binaryOp(nn::ir::Op::Add, b, Value::real(1.0), {}, kConsumeFirst);
  EXPECT_NE(tensorOf(s).storage(), tensorOf(b).storage());
  EXPECT_EQ(tensorOf(alias).flatAsDouble(3), 3.0);

  Value c = makeTensorValue(iota(DType::F32, {2, 2}));
  Tensor view = tensorOf(c).view({4}, {1}, 0);  // a view shares the storage: no reuse
  Value u = mathUnary(nn::ir::Op::Relu, c, {}, kConsumeFirst);
  EXPECT_NE(tensorOf(u).storage(), view.storage());
  EXPECT_EQ(view.flatAsDouble(1), 1.0);

  Value i = makeTensorValue(iota(DType::I64, {3}));  // i64 / 2 gives f32: a new buffer
  Value q = binaryOp(nn::ir::Op::Div, i, Value::integer(2), {}, kConsumeFirst);
  EXPECT_NE(tensorOf(q).storage(), tensorOf(i).storage());
  EXPECT_EQ(tensorOf(i).flatAsInt(2), 2);
}

TEST(Views, SetItemIsFunctional) {
  Tensor t = iota(DType::I64, {2, 2});
  Tensor u = tensorSetItem(t, Value::integer(0), Value::integer(9), {});
  EXPECT_EQ(t.flatAsInt(0), 0);
  EXPECT_EQ(u.flatAsInt(0), 9);
  EXPECT_EQ(u.flatAsInt(1), 9);
  EXPECT_EQ(u.flatAsInt(2), 2);
}

TEST(Allocator, EachDeviceCountsItsOwnLiveAndPeakBytes) {
  CpuDevice one, two;
  {
    Tensor t = Tensor::empty(DType::F64, {1000}, one);
    EXPECT_EQ(one.allocator().liveBytes(), 8000u);
    EXPECT_EQ(one.allocator().peakBytes(), 8000u);
    EXPECT_EQ(two.allocator().liveBytes(), 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data<double>()) % CpuAllocator::kAlignment, 0u);
    // Results go where their operands are.
    Tensor u = astype(t, DType::F32);
    EXPECT_EQ(&u.device(), &one);
    EXPECT_EQ(one.allocator().liveBytes(), 12000u);
  }
  EXPECT_EQ(one.allocator().liveBytes(), 0u);
  EXPECT_EQ(one.allocator().peakBytes(), 12000u);
}

// Python floor semantics, the reference for the integer and float kernels.
int64_t refFloorDiv(int64_t a, int64_t b) { return static_cast<int64_t>(std::floor(static_cast<double>(a) / b)); }
int64_t refMod(int64_t a, int64_t b) { return a - b * refFloorDiv(a, b); }

TEST(Kernels, IntegerFloorDivAndModMatchReference) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int64_t> dist(-50, 50);
  Tensor a = Tensor::empty(DType::I64, {200}, testDevice()), b = Tensor::empty(DType::I64, {200}, testDevice());
  for (int i = 0; i < 200; ++i) {
    a.data<int64_t>()[i] = dist(rng);
    int64_t d = dist(rng);
    b.data<int64_t>()[i] = d == 0 ? 7 : d;
  }
  Tensor q = tensorOf(tensorBinary(nn::ir::Op::FloorDiv, makeTensorValue(a), makeTensorValue(b), {}));
  Tensor m = tensorOf(tensorBinary(nn::ir::Op::Mod, makeTensorValue(a), makeTensorValue(b), {}));
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(q.flatAsInt(i), refFloorDiv(a.flatAsInt(i), b.flatAsInt(i)));
    EXPECT_EQ(m.flatAsInt(i), refMod(a.flatAsInt(i), b.flatAsInt(i)));
  }
}

TEST(Kernels, BroadcastArithmeticMatchesReference) {
  Tensor a = iota(DType::F32, {3, 1}, 1.0, 0.5);
  Tensor b = iota(DType::F32, {4}, -2.0, 1.25);
  for (nn::ir::Op op : {nn::ir::Op::Add, nn::ir::Op::Sub, nn::ir::Op::Mul, nn::ir::Op::Div}) {
    Tensor r = tensorOf(tensorBinary(op, makeTensorValue(a), makeTensorValue(b), {}));
    ASSERT_EQ(r.shape(), (Shape{3, 4}));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        float x = static_cast<float>(a.flatAsDouble(i)), y = static_cast<float>(b.flatAsDouble(j));
        float want = op == nn::ir::Op::Add ? x + y : op == nn::ir::Op::Sub ? x - y : op == nn::ir::Op::Mul ? x * y : x / y;
        EXPECT_FLOAT_EQ(static_cast<float>(r.flatAsDouble(i * 4 + j)), want);  // exact up to 4 ulp
      }
  }
}

// Every broadcast layout the elementwise loops distinguish (row vectors,
// columns, batches of them, single values, transposes) against index
// arithmetic.
TEST(Kernels, BroadcastLayoutsMatchReference) {
  struct Pair {
    Shape a, b;
    bool transposeA;
  };
  for (const Pair& p : std::vector<Pair>{{{2, 3, 4}, {4}, false}, {{2, 3, 4}, {3, 1}, false}, {{2, 3, 4}, {2, 1, 4}, false},
                                         {{3, 4}, {1}, false}, {{1, 4}, {3, 1}, false}, {{4, 3}, {4}, true},
                                         {{2, 3, 4}, {2, 3, 1}, false}, {{5, 1, 4}, {1, 3, 1}, false}}) {
    Tensor a = iota(DType::F32, p.a, 0.5, 0.25);
    if (p.transposeA) a = transpose(a, {}, {});
    Tensor b = iota(DType::F32, p.b, -1.0, 0.5);
    Tensor r = tensorOf(tensorBinary(nn::ir::Op::Sub, makeTensorValue(a), makeTensorValue(b), {}));
    const Shape& s = r.shape();
    for (int64_t i = 0; i < r.numel(); ++i) {
      // The element's index in the result, then in each operand.
      std::vector<int64_t> idx(s.size());
      for (int64_t k = static_cast<int64_t>(s.size()) - 1, rest = i; k >= 0; --k) {
        idx[k] = rest % s[k];
        rest /= s[k];
      }
      auto at = [&](const Tensor& t) {
        int64_t flat = 0, lead = static_cast<int64_t>(s.size()) - t.ndim();
        for (int k = 0; k < t.ndim(); ++k) flat = flat * t.dim(k) + (t.dim(k) == 1 ? 0 : idx[lead + k]);
        return t.flatAsDouble(flat);
      };
      EXPECT_FLOAT_EQ(static_cast<float>(r.flatAsDouble(i)), static_cast<float>(at(a) - at(b))) << shapeString(p.a) << " - " << shapeString(p.b) << " at " << i;
    }
  }
}

TEST(Kernels, ScalarPromotion) {
  Tensor i = iota(DType::I32, {3});
  EXPECT_EQ(tensorOf(tensorBinary(nn::ir::Op::Add, makeTensorValue(i), Value::integer(1), {})).dtype(), DType::I32);
  EXPECT_EQ(tensorOf(tensorBinary(nn::ir::Op::Mul, makeTensorValue(i), Value::real(0.5), {})).dtype(), DType::F32);
  EXPECT_EQ(tensorOf(tensorBinary(nn::ir::Op::Div, makeTensorValue(i), Value::integer(2), {})).dtype(), DType::F32);
  EXPECT_EQ(tensorOf(tensorBinary(nn::ir::Op::Lt, makeTensorValue(i), Value::real(1.5), {})).dtype(), DType::Bool);
}

TEST(Kernels, ReductionsMatchReference) {
  Tensor t = iota(DType::F64, {2, 3, 4}, 0.5, 0.75);
  Tensor s = reduce(t, Reduction::Sum, {1}, false, {}, "sum");
  ASSERT_EQ(s.shape(), (Shape{2, 4}));
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 4; ++c) {
      double want = 0;
      for (int b = 0; b < 3; ++b) want += t.flatAsDouble(a * 12 + b * 4 + c);
      EXPECT_NEAR(s.flatAsDouble(a * 4 + c), want, 1e-12);
    }
  Tensor m = reduce(t, Reduction::Max, {0, 2}, true, {}, "max");
  EXPECT_EQ(m.shape(), (Shape{1, 3, 1}));
  EXPECT_DOUBLE_EQ(m.flatAsDouble(2), t.flatAsDouble(23));
  Tensor am = reduce(t, Reduction::ArgMin, {2}, false, {}, "argmin");
  EXPECT_EQ(am.dtype(), DType::I64);
  EXPECT_EQ(am.flatAsInt(0), 0);
  EXPECT_THROW(reduce(t, Reduction::Sum, {3}, false, {}, "sum"), nn::NnError);
}


// Sums and means whose kept axes are consecutive reduce leading axes in
// place (blocks) rather than permuting them last: every split of the work
// (serial, over outputs, over blocks with partial sums) and every dtype
// against a plain loop, including an empty reduction.
TEST(Kernels, LeadingAxisSumsMatchReference) {
  struct Case {
    Shape shape;
    std::vector<int64_t> axes;
  };
  std::vector<Case> cases = {{{4, 5}, {0}},          {{3, 4, 5}, {0, 2}},   {{2, 3, 4, 5}, {0, 1}},
                             {{3000, 40}, {0}},      {{40, 3000}, {0}},     {{64, 2048}, {0}},
                             {{16, 8, 32, 32}, {0, 2, 3}}, {{0, 7}, {0}}, {{5, 0, 3}, {0, 2}}};
  for (DType dt : {DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool})
    for (const Case& c : cases)
      for (Reduction r : {Reduction::Sum, Reduction::Mean}) {
        Tensor t = iota(dt, c.shape, -3.0, 0.37);
        Tensor got = reduce(t, r, c.axes, false, {}, "sum");
        // The same reduction through the permuting path (a transposed view
        // is not contiguous, so it is copied with the reduced axes last).
        std::vector<int64_t> perm;
        for (int64_t d = static_cast<int64_t>(c.shape.size()) - 1; d >= 0; --d) perm.push_back(d);
        Tensor reversed = transpose(transpose(t, perm, {}).contiguous(), perm, {});
        Tensor want = reduce(reversed, r, c.axes, false, {}, "sum");
        ASSERT_EQ(got.shape(), want.shape());
        ASSERT_EQ(got.dtype(), want.dtype());
        double tol = dt == DType::F32 ? 1e-5 : 1e-9;
        for (int64_t i = 0; i < got.numel(); ++i) {
          double g = got.flatAsDouble(i), w = want.flatAsDouble(i);
          if (std::isnan(w)) EXPECT_TRUE(std::isnan(g));
          else EXPECT_NEAR(g, w, tol * (1 + std::fabs(w))) << typeString(t) << " output " << i;
        }
      }
}
TEST(Print, NumPyFormat) {
  EXPECT_EQ(tensorStr(iota(DType::F32, {2, 2}, 1.0)), "[[1. 2.]\n [3. 4.]]");
  EXPECT_EQ(tensorStr(iota(DType::I64, {3}, 1, 4)), "[1 5 9]");
  EXPECT_EQ(tensorRepr(iota(DType::F32, {2}, 0.5)), "tensor([0.5, 1.5], dtype=f32)");
  EXPECT_EQ(tensorRepr(iota(DType::F32, {2, 2}, 1.0)), "tensor([[1., 2.],\n        [3., 4.]], dtype=f32)");
}

}  // namespace

namespace {

using namespace nn::rt;

TEST(Random, PhiloxKnownAnswers) {
  // Known-answer vectors of the Random123 distribution (kat_vectors).
  auto zero = philox4x32({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(zero, (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  auto ones = philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff});
  EXPECT_EQ(ones, (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
}

TEST(Random, SeededStreamsAreReproducibleAndWellDistributed) {
  RandomGenerator a(42), b(42), c(43);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.nextU32(), b.nextU32());
  EXPECT_NE(a.nextU32(), c.nextU32());
  RandomGenerator g(7);
  double sum = 0, sumSq = 0, nsum = 0, nsumSq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double u = g.uniformF32();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u, sumSq += u * u;
    double z = g.normal();
    nsum += z, nsumSq += z * z;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_NEAR(sumSq / n - 0.25, 1.0 / 12, 0.002);
  EXPECT_NEAR(nsum / n, 0.0, 0.01);
  EXPECT_NEAR(nsumSq / n, 1.0, 0.01);
  int counts[6] = {};
  for (int i = 0; i < 60000; ++i) ++counts[g.below(6)];
  for (int k : counts) EXPECT_NEAR(k, 10000, 400);
}

}  // namespace

namespace {

using namespace nn::rt;

Tensor randomTensor(RandomGenerator& g, const Shape& s) {
  Tensor t = Tensor::empty(DType::F32, s, testDevice());
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(g.normal());
  return t;
}

void expectClose(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.numel(); ++i)
    ASSERT_NEAR(a.flatAsDouble(i), b.flatAsDouble(i), tol * (1 + std::fabs(b.flatAsDouble(i)))) << "at " << i;
}

TEST(OneDnn, MatmulMatchesReferenceLoop) {
  RandomGenerator g(3);
  struct Case {
    Shape a, b;
  };
  for (const Case& c : {Case{{7, 5}, {5, 3}}, Case{{64, 33}, {33, 17}}, Case{{2, 4, 6}, {2, 6, 3}},
                        Case{{3, 1, 4, 5}, {2, 5, 2}}, Case{{5}, {5, 4}}, Case{{4, 5}, {5}}}) {
    Tensor a = randomTensor(g, c.a), b = randomTensor(g, c.b);
    expectClose(matmul(a, b, {}), matmulReference(a, b, {}), 1e-5);
  }
  // A transposed (strided) operand is read without a copy.
  Tensor a = randomTensor(g, {6, 4}), b = randomTensor(g, {5, 6});
  expectClose(matmul(transpose(a, {}, {}), transpose(b, {}, {}), {}),
              matmulReference(transpose(a, {}, {}), transpose(b, {}, {}), {}), 1e-5);
  EXPECT_THROW(matmul(a, b, {}), nn::NnError);
}

// The small-problem loop: each element one f32 fused multiply-add per k in
// ascending order from +0, bit for bit (tails of rows and columns, strided
// and broadcast operands included), and what oneDNN computes within
// rounding (on AVX-512 machines oneDNN's brgemm gives the same bits).
TEST(SmallMatmul, IsOneFusedMultiplyAddPerKInOrder) {
  if (!smallMatmulApplies(1, 1, 1)) GTEST_SKIP() << "this CPU has no AVX2 and FMA: oneDNN runs every matmul";
  RandomGenerator g(5);
  // C = A @ B for 2-D or batched operands of equal rank, batch dims
  // broadcast, computed one element at a time.
  auto reference = [](const Tensor& a, const Tensor& b, const Shape& shape) {
    Tensor c = Tensor::empty(DType::F32, shape, testDevice());
    int rank = static_cast<int>(shape.size());
    int64_t M = shape[rank - 2], N = shape[rank - 1], K = a.dim(rank - 1), batches = c.numel() / (M * N);
    for (int64_t bi = 0; bi < batches; ++bi) {
      int64_t offA = rank == 3 && a.dim(0) != 1 ? bi * a.strides()[0] : 0;
      int64_t offB = rank == 3 && b.dim(0) != 1 ? bi * b.strides()[0] : 0;
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          float acc = 0.0f;
          for (int64_t k = 0; k < K; ++k)
            acc = std::fma(a.data<float>()[offA + i * a.strides()[rank - 2] + k * a.strides()[rank - 1]],
                           b.data<float>()[offB + k * b.strides()[rank - 2] + j * b.strides()[rank - 1]], acc);
          c.data<float>()[(bi * M + i) * N + j] = acc;
        }
    }
    return c;
  };
  auto check = [&](const Tensor& a, const Tensor& b, const Shape& shape) {
    Tensor small = Tensor::empty(DType::F32, shape, testDevice()), big = small.clone();
    smallMatmulF32(a, b, small);
    onednnMatmul(a, b, big);
    Tensor exact = reference(a, b, shape);
    for (int64_t i = 0; i < small.numel(); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(small.data<float>()[i]), std::bit_cast<uint32_t>(exact.data<float>()[i]))
          << "at " << i << " of " << shapeString(shape);
    expectClose(small, big, 1e-5);
  };
  for (int64_t m : {1, 3, 4, 5, 9, 17})
    for (int64_t k : {1, 2, 7, 16, 31, 64})
      for (int64_t n : {1, 5, 8, 15, 16, 23, 32, 33, 47, 48, 64}) {
        check(randomTensor(g, {m, k}), randomTensor(g, {k, n}), {m, n});
        // B transposed in memory (a weight [N, K] read as [K, N]).
        check(randomTensor(g, {m, k}), transpose(randomTensor(g, {n, k}), {}, {}), {m, n});
      }
  // Batched with a broadcast batch dimension, A strided.
  check(transpose(randomTensor(g, {3, 6, 5}), {0, 2, 1}, {}), randomTensor(g, {1, 6, 7}), {3, 5, 7});
}

TEST(OneDnn, PrimitivesAreCachedByShape) {
  RandomGenerator g(4);
  // Large enough for oneDNN (smaller products run on the loop).
  Tensor a = randomTensor(g, {80, 70}), b = randomTensor(g, {70, 90});
  ASSERT_FALSE(smallMatmulApplies(80, 70, 90));
  matmul(a, b, {});
  size_t before = onednnCachedPrimitives(a.device());
  EXPECT_GT(before, 0u);
  for (int i = 0; i < 5; ++i) matmul(a, b, {});
  EXPECT_EQ(onednnCachedPrimitives(a.device()), before);
}

TEST(OneDnn, SoftmaxMatchesReference) {
  RandomGenerator g(5);
  Tensor x = randomTensor(g, {4, 7});
  Tensor ref = astype(softmax(astype(x, DType::F64), 1, false, {}), DType::F32);
  expectClose(softmax(x, 1, false, {}), ref, 1e-5);
  Tensor lref = astype(softmax(astype(x, DType::F64), 0, true, {}), DType::F32);
  expectClose(softmax(x, 0, true, {}), lref, 1e-5);
}

}  // namespace

namespace {

using namespace nn::rt;

TEST(OneDnn, ConvAndPoolMatchReferenceLoops) {
  RandomGenerator g(11);
  Tensor x = randomTensor(g, {2, 6, 9, 8});
  struct Case {
    Shape w;
    ConvParams p;
  };
  ConvParams strided;
  strided.strideH = 2, strided.padH = 1, strided.padW = 2, strided.dilW = 2;
  ConvParams grouped;
  grouped.groups = 3, grouped.padH = 1, grouped.padW = 1;
  for (const Case& c : {Case{{4, 6, 3, 3}, ConvParams{}}, Case{{5, 6, 3, 2}, strided}, Case{{6, 2, 3, 3}, grouped}}) {
    Tensor w = randomTensor(g, c.w);
    Tensor b = randomTensor(g, {c.w[0]});
    expectClose(conv2d(x, w, &b, c.p, {}), conv2dReference(x, w, &b, c.p, {}), 1e-4);
  }
  PoolParams p;
  p.kH = 3, p.kW = 2, p.strideH = 2, p.strideW = 1, p.padH = 1;
  expectClose(pool2d(x, p, true, {}), pool2dReference(x, p, true, {}), 1e-6);
  expectClose(pool2d(x, p, false, {}), pool2dReference(x, p, false, {}), 1e-5);
}

// The f32 gradients (oneDNN's backward-data and backward-weights
// primitives) against the f64 loops, for the same geometries.
TEST(OneDnn, ConvAndPoolGradientsMatchReferenceLoops) {
  RandomGenerator g(12);
  Tensor x = randomTensor(g, {2, 6, 9, 8});
  Tensor x64 = astype(x, DType::F64);
  ConvParams strided;
  strided.strideH = 2, strided.padH = 1, strided.padW = 2, strided.dilW = 2;
  ConvParams grouped;
  grouped.groups = 3, grouped.padH = 1, grouped.padW = 1;
  std::vector<std::pair<Shape, ConvParams>> cases = {
      {{4, 6, 3, 3}, ConvParams{}}, {{5, 6, 3, 2}, strided}, {{6, 2, 3, 3}, grouped}};
  for (const auto& [ws, p] : cases) {
    Tensor w = randomTensor(g, ws);
    Tensor w64 = astype(w, DType::F64);
    Tensor dy = randomTensor(g, conv2d(x, w, nullptr, p, {}).shape());
    Tensor dy64 = astype(dy, DType::F64);
    Tensor dx = conv2dGradInput(dy, x, w, p, {}), dw = conv2dGradWeight(dy, x, w, p, {});
    EXPECT_EQ(dx.dtype(), DType::F32);
    EXPECT_EQ(dx.shape(), x.shape());
    EXPECT_EQ(dw.shape(), w.shape());
    expectClose(dx, astype(conv2dGradInput(dy64, x64, w64, p, {}), DType::F32), 1e-4);
    expectClose(dw, astype(conv2dGradWeight(dy64, x64, w64, p, {}), DType::F32), 1e-3);
  }
  PoolParams p;
  p.kH = 3, p.kW = 2, p.strideH = 2, p.strideW = 1, p.padH = 1;
  Tensor dy = randomTensor(g, pool2d(x, p, true, {}).shape());
  for (bool isMax : {true, false})
    expectClose(pool2dGrad(dy, x, p, isMax, {}),
                astype(pool2dGrad(astype(dy, DType::F64), x64, p, isMax, {}), DType::F32), 1e-6);
}

}  // namespace

namespace {

using namespace nn::rt;

Value ints(std::initializer_list<int64_t> v) {
  std::vector<Value> items;
  for (int64_t x : v) items.push_back(Value::integer(x));
  return makeList(std::move(items));
}

Value slice(Value start, Value stop, Value step) {
  auto s = std::make_shared<SliceObj>();
  s->start = start, s->stop = stop, s->step = step;
  return Value::object(Kind::Slice, s);
}

TEST(Indexing, BasicSlicesAreViewsWithSteps) {
  Tensor t = iota(DType::I64, {4, 5});
  Tensor v = tensorGetItem(t, makeTuple({slice(Value::integer(1), Value::none(), Value::integer(2)),
                                         slice(Value::none(), Value::none(), Value::integer(-2))}),
                           {});
  EXPECT_EQ(v.storage(), t.storage());
  EXPECT_EQ(v.shape(), (Shape{2, 3}));
  EXPECT_EQ(v.strides(), (Shape{10, -2}));
  // rows 1 and 3, columns 4, 2, 0
  EXPECT_EQ(toList(v).as<SeqObj>().items.size(), 2u);
  EXPECT_EQ(v.flatAsInt(0), 9);
  EXPECT_EQ(v.flatAsInt(5), 15);
  EXPECT_THROW(tensorGetItem(t, makeTuple({Value::integer(4)}), {}), nn::NnError);
  EXPECT_THROW(tensorGetItem(t, makeTuple({Value::integer(0), Value::integer(0), Value::integer(0)}), {}), nn::NnError);
}

TEST(Indexing, IntegerArraysAndMasks) {
  Tensor t = iota(DType::I64, {3, 4});
  Tensor rows = tensorGetItem(t, ints({2, 0}), {});
  EXPECT_EQ(rows.shape(), (Shape{2, 4}));
  EXPECT_EQ(rows.flatAsInt(0), 8);
  Tensor points = tensorGetItem(t, makeTuple({ints({0, 2}), ints({3, 1})}), {});
  EXPECT_EQ(points.shape(), (Shape{2}));
  EXPECT_EQ(points.flatAsInt(0), 3);
  EXPECT_EQ(points.flatAsInt(1), 9);
  Tensor mask = tensorOf(tensorBinary(nn::ir::Op::Gt, makeTensorValue(t), Value::integer(8), {}));
  Tensor picked = tensorGetItem(t, makeTensorValue(mask), {});
  EXPECT_EQ(picked.shape(), (Shape{3}));
  EXPECT_EQ(picked.flatAsInt(2), 11);
  Tensor updated = tensorSetItem(t, makeTensorValue(mask), Value::integer(0), {});
  EXPECT_EQ(updated.flatAsInt(11), 0);
  EXPECT_EQ(t.flatAsInt(11), 11);  // the original is unchanged
  EXPECT_THROW(tensorGetItem(t, ints({3}), {}), nn::NnError);
}

}  // namespace

namespace {

using namespace nn::rt;
using nn::ir::Op;

// Every unary math kernel against a std:: reference loop. Tolerance: the
// f32 kernels compute in float, so a relative 1e-6 (a few ulp) plus 1e-7
// absolute near zero.
TEST(Kernels, UnaryMathMatchesReferenceLoops) {
  Tensor x = iota(DType::F32, {41}, -4.0, 0.2);
  Tensor pos = iota(DType::F32, {20}, 0.05, 0.37);
  struct Case {
    Op op;
    double (*ref)(double);
    bool positiveOnly;
  };
  const Case cases[] = {
      {Op::Exp, [](double v) { return std::exp(v); }, false},
      {Op::Log, [](double v) { return std::log(v); }, true},
      {Op::Sqrt, [](double v) { return std::sqrt(v); }, true},
      {Op::Rsqrt, [](double v) { return 1 / std::sqrt(v); }, true},
      {Op::Abs, [](double v) { return std::fabs(v); }, false},
      {Op::Sign, [](double v) { return double((v > 0) - (v < 0)); }, false},
      {Op::Sin, [](double v) { return std::sin(v); }, false},
      {Op::Cos, [](double v) { return std::cos(v); }, false},
      {Op::Tanh, [](double v) { return std::tanh(v); }, false},
      {Op::Sigmoid, [](double v) { return 1 / (1 + std::exp(-v)); }, false},
      {Op::Relu, [](double v) { return v > 0 ? v : 0.0; }, false},
      {Op::Gelu, [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, false},
      {Op::Erf, [](double v) { return std::erf(v); }, false},
      {Op::Silu, [](double v) { return v / (1 + std::exp(-v)); }, false},
      {Op::Softplus, [](double v) { return v > 20 ? v : std::log1p(std::exp(v)); }, false},
      {Op::Log1p, [](double v) { return std::log1p(v); }, true},
      {Op::Expm1, [](double v) { return std::expm1(v); }, false},
      {Op::Tan, [](double v) { return std::tan(v); }, false},
      {Op::Atan, [](double v) { return std::atan(v); }, false},
      {Op::Reciprocal, [](double v) { return 1 / v; }, true},
      {Op::Log2, [](double v) { return std::log2(v); }, true},
      {Op::Log10, [](double v) { return std::log10(v); }, true},
      {Op::Sinh, [](double v) { return std::sinh(v); }, false},
      {Op::Cosh, [](double v) { return std::cosh(v); }, false},
      {Op::Square, [](double v) { return v * v; }, false},
      {Op::Asinh, [](double v) { return std::asinh(v); }, false},
      {Op::Exp2, [](double v) { return std::exp2(v); }, false},
      {Op::Erfc, [](double v) { return std::erfc(v); }, false},
      {Op::Floor, [](double v) { return std::floor(v); }, false},
      {Op::Ceil, [](double v) { return std::ceil(v); }, false},
      {Op::Round, [](double v) { return std::nearbyint(v); }, false},
  };
  for (const Case& c : cases) {
    const Tensor& in = c.positiveOnly ? pos : x;
    Tensor out = tensorOf(mathUnary(c.op, makeTensorValue(in), {}));
    for (int64_t i = 0; i < in.numel(); ++i) {
      double want = c.ref(static_cast<float>(in.flatAsDouble(i)));
      ASSERT_NEAR(out.flatAsDouble(i), want, 1e-6 * std::fabs(want) + 1e-7) << nn::ir::opInfo(c.op).name << " at " << i;
    }
  }
}

// A Python float's math (computed without a tensor) and a 0-d f64
// tensor's give the same bits, for every op float_unary.def declares.
TEST(Kernels, FloatMathMatchesTheF64KernelBitForBit) {
  const double xs[] = {-3.7, -1.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0, 2.25, 20.5, 700.0, 1e300, INFINITY, -INFINITY, NAN};
  int ops = 0;
  for (size_t k = 0; k < nn::ir::kNumOps; ++k) {
    Op op = static_cast<Op>(k);
    if (!floatUnary(op, 1.0) && !floatTest(op, 1.0)) continue;
    ++ops;
    for (double v : xs) {
      Tensor in = Tensor::empty(DType::F64, {}, testDevice());
      *in.data<double>() = v;
      Value kernel = item(tensorOf(mathUnary(op, makeTensorValue(in), {})), {});
      Value number = mathUnary(op, Value::real(v), {});
      ASSERT_EQ(kernel.kind(), number.kind()) << nn::ir::opInfo(op).name << "(" << v << ")";
      if (kernel.is(Kind::Bool)) {
        EXPECT_EQ(kernel.asBool(), number.asBool()) << nn::ir::opInfo(op).name << "(" << v << ")";
        continue;
      }
      double a = kernel.asFloat(), b = number.asFloat();
      EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << nn::ir::opInfo(op).name << "(" << v << "): " << a << " vs " << b;
    }
  }
  EXPECT_EQ(ops, 61);  // the 58 of float math and the 3 tests
}

TEST(Kernels, BinaryMathAndWhereMatchReferenceLoops) {
  Tensor a = iota(DType::F32, {3, 4}, -3.0, 0.5), b = iota(DType::F32, {4}, 1.0, -0.75);
  Tensor mx = tensorOf(mathBinary(Op::Maximum, makeTensorValue(a), makeTensorValue(b), {}));
  Tensor mn = tensorOf(mathBinary(Op::Minimum, makeTensorValue(a), makeTensorValue(b), {}));
  Tensor cond = tensorOf(tensorBinary(Op::Gt, makeTensorValue(a), Value::real(0.0), {}));
  Tensor w = tensorOf(whereOp(makeTensorValue(cond), makeTensorValue(a), makeTensorValue(b), {}));
  Tensor cl = tensorOf(clipOp(makeTensorValue(a), Value::real(-1.0), Value::real(1.5), {}));
  for (int64_t i = 0; i < 12; ++i) {
    double x = a.flatAsDouble(i), y = b.flatAsDouble(i % 4);
    EXPECT_EQ(mx.flatAsDouble(i), std::max(x, y));
    EXPECT_EQ(mn.flatAsDouble(i), std::min(x, y));
    EXPECT_EQ(w.flatAsDouble(i), x > 0 ? x : y);
    EXPECT_EQ(cl.flatAsDouble(i), std::min(std::max(x, -1.0), 1.5));
  }
}

// where() picks bits, not arithmetic: NaN, infinities and -0.0 pass
// unchanged, for contiguous and single-value operands in each combination,
// every dtype, below and above the parallel threshold, and a broadcast row
// (the strided path).
TEST(Kernels, WhereSelectsExactValuesForEveryOperandLayout) {
  for (int64_t n : {int64_t{7}, kParallelThreshold + 5})
    for (DType dt : {DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool}) {
      Tensor x = iota(dt, {n}, -2.0, 1.0), y = iota(dt, {n}, 5.0, -0.5);
      if (isFloating(dt)) {
        double special[] = {std::nan(""), INFINITY, -INFINITY, -0.0};
        Tensor xs = astype(x, DType::F64);
        for (int k = 0; k < 4; ++k) xs.data<double>()[k] = special[k];
        x = astype(xs, dt);
      }
      Tensor cond = Tensor::empty(DType::Bool, {n}, testDevice());
      for (int64_t i = 0; i < n; ++i) cond.data<bool>()[i] = i % 3 != 2;  // picks x's NaN, inf and -0.0
      Tensor one = iota(dt, {1}, 3.0, 0.0);
      for (int variant = 0; variant < 4; ++variant) {
        Tensor xa = variant & 1 ? one : x, ya = variant & 2 ? one : y;
        Tensor w = tensorOf(whereOp(makeTensorValue(cond), makeTensorValue(xa), makeTensorValue(ya), {}));
        ASSERT_EQ(w.numel(), n);
        for (int64_t i = 0; i < n; ++i) {
          double want = cond.data<bool>()[i] ? (variant & 1 ? one.flatAsDouble(0) : x.flatAsDouble(i))
                                            : (variant & 2 ? one.flatAsDouble(0) : y.flatAsDouble(i));
          double got = w.flatAsDouble(i);
          if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got));
          } else {
            ASSERT_EQ(got, want) << typeString(w) << " variant " << variant << " at " << i;
          }
          if (want == 0.0) {
            ASSERT_EQ(std::signbit(got), std::signbit(want));
          }
        }
      }
    }
  Tensor c = tensorOf(tensorBinary(Op::Gt, makeTensorValue(iota(DType::F32, {3, 4}, -3.0, 0.5)), Value::real(0.0), {}));
  Tensor row = iota(DType::F32, {4}, 10.0, 1.0), col = iota(DType::F32, {3, 1}, -10.0, -1.0);
  Tensor w = tensorOf(whereOp(makeTensorValue(c), makeTensorValue(row), makeTensorValue(col), {}));
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(w.flatAsDouble(i), c.data<bool>()[i] ? 10.0 + i % 4 : -10.0 - i / 4);
}

}  // namespace

namespace {

using namespace nn::rt;

TEST(Views, StridedCopiesMatchElementwiseReads) {
  Tensor t = iota(DType::F32, {4, 6, 5});
  for (Tensor v : {transpose(t, {2, 0, 1}, {}), tensorGetItem(t, makeTuple({slice(Value::integer(1), Value::none(), Value::integer(2)), Value::integer(3)}), {}),
                   broadcastTo(iota(DType::F32, {5}), {3, 5}, {})}) {
    Tensor c = v.clone();
    ASSERT_TRUE(c.isContiguous());
    ASSERT_EQ(c.shape(), v.shape());
    for (int64_t i = 0; i < v.numel(); ++i) ASSERT_EQ(c.flatAsDouble(i), v.flatAsDouble(i)) << i;
  }
}

}  // namespace

namespace {

using namespace nn::rt;

// The f32 normalisations (batch norm: nn's loop, with and without the
// affine parameters, on all cores for a large input; layer norm: oneDNN's)
// against the f64 reference loops (which follow the textbook formulas),
// relative tolerance 1e-5.
TEST(OneDnn, NormalisationsMatchReference) {
  RandomGenerator g(21);
  Tensor x = randomTensor(g, {3, 4, 5, 2});
  Tensor mean = randomTensor(g, {4}), gamma = randomTensor(g, {4}), beta = randomTensor(g, {4});
  Tensor var = tensorOf(mathUnary(nn::ir::Op::Abs, makeTensorValue(randomTensor(g, {4})), {}));
  Tensor bn = batchNorm(x, mean, var, &gamma, &beta, 1e-5, {});
  Tensor bnRef = batchNorm(astype(x, DType::F64), astype(mean, DType::F64), astype(var, DType::F64),
                           &gamma, &beta, 1e-5, {});
  expectClose(bn, astype(bnRef, DType::F32), 1e-5);
  Tensor big = randomTensor(g, {8, 4, 40, 40});
  Tensor plain = batchNorm(big, mean, var, nullptr, nullptr, 1e-3, {});
  Tensor plainRef = batchNorm(astype(big, DType::F64), astype(mean, DType::F64), astype(var, DType::F64), nullptr,
                              nullptr, 1e-3, {});
  expectClose(plain, astype(plainRef, DType::F32), 1e-5);
  Tensor lg = randomTensor(g, {2}), lb = randomTensor(g, {2});
  Tensor ln = layerNorm(x, &lg, &lb, 1e-5, {});
  Tensor lnRef = layerNorm(astype(x, DType::F64), &lg, &lb, 1e-5, {});
  expectClose(ln, astype(lnRef, DType::F32), 1e-4);
}

}  // namespace

namespace {

using namespace nn::rt;

// gather and scatter_add on indices large enough for the parallel paths,
// against plain loops over the 2-D definitions (exact: sums of small ints).
TEST(Kernels, GatherAndScatterAddMatchReferenceLoops) {
  const int64_t rows = 300, cols = 200;
  Tensor x = iota(DType::F64, {rows, cols});
  std::mt19937 rng(5);
  for (int axis = 0; axis < 2; ++axis) {
    int64_t len = axis == 0 ? rows : cols;
    Tensor index = Tensor::empty(DType::I64, {rows, cols}, testDevice());
    for (int64_t i = 0; i < index.numel(); ++i)
      index.data<int64_t>()[i] = static_cast<int64_t>(rng() % (2 * len)) - len;  // negatives too
    Tensor g = gather(x, axis, index, {});
    Tensor s = scatterAdd(Tensor::zeros(DType::F64, {rows, cols}, testDevice()), axis, index, x, {});
    std::vector<double> ref(static_cast<size_t>(rows * cols), 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        int64_t k = index.data<int64_t>()[r * cols + c];
        if (k < 0) k += len;
        int64_t at = axis == 0 ? k * cols + c : r * cols + k;
        ASSERT_EQ(g.flatAsDouble(r * cols + c), x.flatAsDouble(at)) << axis << " " << r << " " << c;
        ref[static_cast<size_t>(at)] += x.flatAsDouble(r * cols + c);
      }
    for (int64_t i = 0; i < rows * cols; ++i) ASSERT_EQ(s.flatAsDouble(i), ref[static_cast<size_t>(i)]) << axis << " " << i;
  }
  // The first out-of-range element is the one reported.
  Tensor index = Tensor::zeros(DType::I64, {rows, cols}, testDevice());
  index.data<int64_t>()[40000] = 300;
  index.data<int64_t>()[50000] = -301;
  try {
    gather(x, 0, index, {});
    FAIL() << "expected an error";
  } catch (const nn::NnError& e) {
    EXPECT_NE(std::string(e.what()).find("index 300 is out of bounds for axis 0 with size 300"), std::string::npos)
        << e.what();
  }
}

}  // namespace
