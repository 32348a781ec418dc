// The CUDA plugin's per-element math (runtime/cuda/element_math.h) on the
// host, against the CPU's kernels, over values chosen for their edges
// (zeros of both signs, ±1, halves, the integer limits, shift widths,
// infinities, NaN): every binary and unary op, the class tests, the
// comparisons, each dtype conversion and the sort order the plugin's
// kernels use. Exact, but for the transcendental functions, which the CPU
// may compute by other formulas (close, with the same NaN, infinities and
// signs). On a GPU only CUDA's math library differs from this. Also the
// walks the elementwise kernels take (kernel_codes.h): merged dimensions
// reach the offsets of the unmerged ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cuda/element_math.h"
#include "runtime/dtype.h"
#include "runtime/tensor.h"
#include "test_device.h"

namespace {

using namespace nn::rt;
namespace cuda = nn::rt::cuda;
using nn::ir::Op;

template <class T>
std::vector<T> samples() {
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else if constexpr (std::is_integral_v<T>) {
    using L = std::numeric_limits<T>;
    return {0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 63, 64, 100, -100, L::max(), L::min(), T(L::max() - 1), T(L::min() + 1)};
  } else {
    T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    return {T(0), T(-0.0), T(1), T(-1), T(0.5), T(-0.5), T(1.5), T(-1.5), T(2.5), T(-2.5), T(7.25), T(-7.25), T(3),
            T(-3), T(20.5), T(-20.5), T(1e30), T(-1e30), T(1e-30), inf, -inf, nan};
  }
}

template <class T>
Tensor tensorOf(const std::vector<T>& v) {
  Tensor t = Tensor::empty(dtypeOf<T>(), {static_cast<int64_t>(v.size())}, testDevice());
  std::copy(v.begin(), v.end(), t.data<T>());
  return t;
}

// The same value: integers equal; floats both NaN, or equal with the same
// sign (so -0.0 is not 0.0); with `close`, within a relative 1e-5 (f32) or
// 1e-12 (f64) where both are finite.
template <class T>
bool same(T want, T got, bool close = false) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (want == got) return std::signbit(want) == std::signbit(got) || close;
    if (!close || std::isinf(want) || std::isinf(got)) return false;
    T tol = std::is_same_v<T, float> ? T(1e-5) : T(1e-12);
    return std::fabs(want - got) <= tol * std::max(T(1), std::fabs(want));
  } else {
    return want == got;
  }
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::to_string(static_cast<double>(v));
  else return std::to_string(static_cast<int64_t>(v));
}

// Every pair of samples, through the CPU's kernel of `op` and through
// cuda::applyBinary; pairs the CPU refuses (an integer division by zero, a
// negative integer exponent) must set the fault flag instead.
template <class T>
void checkBinary(Op op, cuda::Binary code, bool close = false) {
  std::vector<T> xs, ys, results;
  for (T x : samples<T>())
    for (T y : samples<T>()) {
      int fault = 0;
      T got = cuda::applyBinary<T>(code, x, y, &fault);
      bool refused = false;
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        refused = ((op == Op::FloorDiv || op == Op::Mod || op == Op::Fmod) && y == 0) || (op == Op::Pow && y < 0);
      EXPECT_EQ(fault != 0, refused) << nn::ir::opInfo(op).name << " " << show(x) << " " << show(y);
      if (refused) continue;
      xs.push_back(x);
      ys.push_back(y);
      results.push_back(got);
    }
  Tensor a = tensorOf(xs), b = tensorOf(ys), out = Tensor::empty(a.dtype(), a.shape(), testDevice());
  BinaryKernel k = cpuKernels().binary(op, a.dtype());
  ASSERT_NE(k, nullptr) << nn::ir::opInfo(op).name;
  k(a, b, out, {});
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_TRUE(same<T>(out.data<T>()[i], results[i], close))
        << nn::ir::opInfo(op).name << "(" << show(xs[i]) << ", " << show(ys[i]) << "): CPU " << show(out.data<T>()[i])
        << ", CUDA " << show(results[i]);
}

template <class T>
void checkUnary(Op op, cuda::Unary code, bool close) {
  std::vector<T> xs = samples<T>();
  Tensor a = tensorOf(xs), out = Tensor::empty(a.dtype(), a.shape(), testDevice());
  UnaryKernel k = cpuKernels().unary(op, a.dtype());
  ASSERT_NE(k, nullptr) << nn::ir::opInfo(op).name;
  k(a, out, {});
  for (size_t i = 0; i < xs.size(); ++i) {
    T got = cuda::applyUnary<T>(code, xs[i]);
    EXPECT_TRUE(same(out.data<T>()[i], got, close))
        << nn::ir::opInfo(op).name << "(" << show(xs[i]) << "): CPU " << show(out.data<T>()[i]) << ", CUDA " << show(got);
  }
}

// The class tests and comparisons, whose results are bools.
template <class T>
void checkBoolResults() {
  std::vector<T> xs = samples<T>();
  Tensor a = tensorOf(xs), flags = Tensor::empty(DType::Bool, a.shape(), testDevice());
  for (auto [op, code] : {std::pair{Op::IsNan, cuda::Predicate::IsNan}, std::pair{Op::IsInf, cuda::Predicate::IsInf},
                          std::pair{Op::IsFinite, cuda::Predicate::IsFinite}}) {
    cpuKernels().unary(op, a.dtype())(a, flags, {});
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_EQ(flags.data<bool>()[i], cuda::classify<T>(code, xs[i])) << nn::ir::opInfo(op).name << " " << show(xs[i]);
  }
  std::vector<T> ls, rs;
  for (T x : xs)
    for (T y : xs) ls.push_back(x), rs.push_back(y);
  Tensor l = tensorOf(ls), r = tensorOf(rs), out = Tensor::empty(DType::Bool, l.shape(), testDevice());
  for (auto [op, code] : {std::pair{Op::Lt, cuda::Compare::Lt}, std::pair{Op::Le, cuda::Compare::Le},
                          std::pair{Op::Gt, cuda::Compare::Gt}, std::pair{Op::Ge, cuda::Compare::Ge},
                          std::pair{Op::Eq, cuda::Compare::Eq}, std::pair{Op::Ne, cuda::Compare::Ne}}) {
    cpuKernels().binary(op, l.dtype())(l, r, out, {});
    for (size_t i = 0; i < ls.size(); ++i)
      EXPECT_EQ(out.data<bool>()[i], cuda::applyCompare<T>(code, ls[i], rs[i]))
          << nn::ir::opInfo(op).name << " " << show(ls[i]) << " " << show(rs[i]);
  }
}

template <class S, class D>
void checkConversion() {
  std::vector<S> xs = samples<S>();
  Tensor a = tensorOf(xs), out = Tensor::empty(dtypeOf<D>(), a.shape(), testDevice());
  cpuKernels().get<Op::AsType>(dtypeOf<D>())(a, out);
  for (size_t i = 0; i < xs.size(); ++i) {
    D got = cuda::convertValue<S, D>(xs[i]);
    EXPECT_TRUE(same(out.data<D>()[i], got)) << dtypeName(dtypeOf<S>()) << " " << show(xs[i]) << " to "
                                             << dtypeName(dtypeOf<D>()) << ": CPU " << show(out.data<D>()[i])
                                             << ", CUDA " << show(got);
  }
}

// The plugin's merge sort keeps equal elements in order and moves a later
// one ahead only when cuda::before says so: a stable sort by that order
// gives the CPU's sorted values and indices.
template <class T>
void checkSortOrder() {
  std::vector<T> xs = samples<T>();
  std::vector<T> twice = xs;
  twice.insert(twice.end(), xs.rbegin(), xs.rend());  // repeats, to see stability
  Tensor a = tensorOf(twice);
  for (bool descending : {false, true}) {
    Tensor values = Tensor::empty(a.dtype(), a.shape(), testDevice());
    Tensor indices = Tensor::empty(DType::I64, a.shape(), testDevice());
    cpuKernels().get<Op::Sort>(a.dtype())(a, 0, descending, values, indices);
    std::vector<int64_t> order(twice.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t p, int64_t q) { return cuda::before<T>(twice[p], twice[q], descending); });
    for (size_t i = 0; i < order.size(); ++i) {
      EXPECT_EQ(indices.data<int64_t>()[i], order[i]) << dtypeName(a.dtype()) << (descending ? " descending " : " ") << i;
      EXPECT_TRUE(same<T>(values.data<T>()[i], twice[order[i]]));
    }
  }
}

template <class T>
void checkArithmetic() {
  using cuda::Binary;
  for (auto [op, code] : {std::pair{Op::Add, Binary::Add}, std::pair{Op::Sub, Binary::Sub},
                          std::pair{Op::Mul, Binary::Mul}, std::pair{Op::FloorDiv, Binary::FloorDiv},
                          std::pair{Op::Mod, Binary::Mod}, std::pair{Op::Fmod, Binary::Fmod},
                          std::pair{Op::Pow, Binary::Pow}, std::pair{Op::Maximum, Binary::Maximum},
                          std::pair{Op::Minimum, Binary::Minimum}})
    checkBinary<T>(op, code);
  using cuda::Unary;
  for (auto [op, code] : {std::pair{Op::Neg, Unary::Neg}, std::pair{Op::Pos, Unary::Pos}, std::pair{Op::Abs, Unary::Abs},
                          std::pair{Op::Sign, Unary::Sign}, std::pair{Op::Relu, Unary::Relu},
                          std::pair{Op::Floor, Unary::Floor}, std::pair{Op::Ceil, Unary::Ceil},
                          std::pair{Op::Round, Unary::Round}, std::pair{Op::Square, Unary::Square}})
    checkUnary<T>(op, code, false);
}

TEST(CudaElementMath, FloatsAsTheCpuComputesThem) {
  auto floats = [](auto type) {
    using T = decltype(type);
    checkArithmetic<T>();
    checkBinary<T>(Op::Div, cuda::Binary::Div);
    checkBinary<T>(Op::Atan2, cuda::Binary::Atan2, true);  // the CPU's f32 are SLEEF's
    checkBinary<T>(Op::Hypot, cuda::Binary::Hypot, true);
    checkBinary<T>(Op::Copysign, cuda::Binary::Copysign);
    checkBinary<T>(Op::Polygamma, cuda::Binary::Polygamma);
    checkBinary<T>(Op::Zeta, cuda::Binary::Zeta);
    checkBinary<T>(Op::Gammainc, cuda::Binary::Gammainc);
    checkBinary<T>(Op::Gammaincc, cuda::Binary::Gammaincc);
    checkBinary<T>(Op::Nextafter, cuda::Binary::Nextafter);
    checkUnary<T>(Op::Sqrt, cuda::Unary::Sqrt, false);
    using cuda::Unary;
    for (auto [op, code] : {std::pair{Op::Exp, Unary::Exp}, std::pair{Op::Log, Unary::Log},
                            std::pair{Op::Rsqrt, Unary::Rsqrt}, std::pair{Op::Sin, Unary::Sin},
                            std::pair{Op::Cos, Unary::Cos}, std::pair{Op::Tanh, Unary::Tanh},
                            std::pair{Op::Sigmoid, Unary::Sigmoid}, std::pair{Op::Gelu, Unary::Gelu},
                            std::pair{Op::GeluGrad, Unary::GeluGrad}, std::pair{Op::Erf, Unary::Erf},
                            std::pair{Op::Silu, Unary::Silu}, std::pair{Op::SiluGrad, Unary::SiluGrad},
                            std::pair{Op::Softplus, Unary::Softplus}, std::pair{Op::Log1p, Unary::Log1p},
                            std::pair{Op::Expm1, Unary::Expm1}, std::pair{Op::Tan, Unary::Tan},
                            std::pair{Op::Atan, Unary::Atan}, std::pair{Op::Reciprocal, Unary::Reciprocal},
                            std::pair{Op::Log2, Unary::Log2}, std::pair{Op::Log10, Unary::Log10},
                            std::pair{Op::Sinh, Unary::Sinh}, std::pair{Op::Cosh, Unary::Cosh},
                            std::pair{Op::Asin, Unary::Asin}, std::pair{Op::Acos, Unary::Acos},
                            std::pair{Op::Acosh, Unary::Acosh}, std::pair{Op::Asinh, Unary::Asinh},
                            std::pair{Op::Atanh, Unary::Atanh}, std::pair{Op::Exp2, Unary::Exp2},
                            std::pair{Op::Erfc, Unary::Erfc}, std::pair{Op::Erfinv, Unary::Erfinv},
                            std::pair{Op::Lgamma, Unary::Lgamma}, std::pair{Op::Digamma, Unary::Digamma},
                            std::pair{Op::I0, Unary::I0}, std::pair{Op::I0e, Unary::I0e},
                            std::pair{Op::I1, Unary::I1}, std::pair{Op::I1e, Unary::I1e},
                            std::pair{Op::K0, Unary::K0}, std::pair{Op::K0e, Unary::K0e},
                            std::pair{Op::K1, Unary::K1}, std::pair{Op::K1e, Unary::K1e},
                            std::pair{Op::Erfcx, Unary::Erfcx}, std::pair{Op::Ndtri, Unary::Ndtri},
                            std::pair{Op::LogNdtr, Unary::LogNdtr}, std::pair{Op::BesselJ0, Unary::BesselJ0},
                            std::pair{Op::BesselJ1, Unary::BesselJ1}, std::pair{Op::BesselY0, Unary::BesselY0},
                            std::pair{Op::BesselY1, Unary::BesselY1}, std::pair{Op::AiryAi, Unary::AiryAi}})
      checkUnary<T>(op, code, true);
    checkUnary<T>(Op::FrexpMantissa, Unary::FrexpMantissa, false);
    checkUnary<T>(Op::FrexpExponent, Unary::FrexpExponent, false);
  };
  floats(float{});
  floats(double{});
}

TEST(CudaElementMath, IntegersAsTheCpuComputesThem) {
  auto integers = [](auto type) {
    using T = decltype(type);
    checkArithmetic<T>();
    using cuda::Binary;
    for (auto [op, code] :
         {std::pair{Op::BitAnd, Binary::BitAnd}, std::pair{Op::BitOr, Binary::BitOr},
          std::pair{Op::BitXor, Binary::BitXor}, std::pair{Op::LShift, Binary::LShift},
          std::pair{Op::RShift, Binary::RShift}, std::pair{Op::Gcd, Binary::Gcd}, std::pair{Op::Lcm, Binary::Lcm}})
      checkBinary<T>(op, code);
    checkUnary<T>(Op::Invert, cuda::Unary::Invert, false);
  };
  integers(int32_t{});
  integers(int64_t{});
}

TEST(CudaElementMath, BoolsAsTheCpuComputesThem) {
  using cuda::Binary;
  for (auto [op, code] : {std::pair{Op::LogicalAnd, Binary::And}, std::pair{Op::LogicalOr, Binary::Or},
                          std::pair{Op::BitAnd, Binary::BitAnd}, std::pair{Op::BitOr, Binary::BitOr},
                          std::pair{Op::BitXor, Binary::BitXor}, std::pair{Op::Maximum, Binary::Maximum},
                          std::pair{Op::Minimum, Binary::Minimum}})
    checkBinary<bool>(op, code);
  checkUnary<bool>(Op::Not, cuda::Unary::Not, false);
  checkUnary<bool>(Op::LogicalNot, cuda::Unary::Not, false);
  checkUnary<bool>(Op::Invert, cuda::Unary::Invert, false);
}

TEST(CudaElementMath, ClassTestsAndComparisonsAsTheCpuComputesThem) {
  checkBoolResults<bool>();
  checkBoolResults<int32_t>();
  checkBoolResults<int64_t>();
  checkBoolResults<float>();
  checkBoolResults<double>();
}

TEST(CudaElementMath, ConversionsAsTheCpuComputesThem) {
  auto from = [](auto s) {
    using S = decltype(s);
    checkConversion<S, bool>();
    checkConversion<S, int32_t>();
    checkConversion<S, int64_t>();
    checkConversion<S, float>();
    checkConversion<S, double>();
  };
  from(bool{});
  from(int32_t{});
  from(int64_t{});
  from(float{});
  from(double{});
}

// Random walks of rank 0 to 6 with operands contiguous, transposed,
// broadcast, sliced or offset by a step: every element's offset through
// each operand is the same after coalesce, and a contiguous walk becomes
// one dimension.
TEST(CudaWalk, MergedDimensionsKeepEveryOffset) {
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int trial = 0; trial < 2000; ++trial) {
    cuda::Strided at;
    at.rank = pick(7);
    int64_t n = 1;
    for (int d = 0; d < at.rank; ++d) n *= (at.shape[d] = 1 + pick(4));
    auto contiguous = [&](int64_t scale) {
      cuda::Strided s = at;
      for (int64_t d = at.rank - 1, step = scale; d >= 0; --d) s.stride[d] = step, step *= at.shape[d];
      return s;
    };
    at = contiguous(1);
    std::vector<cuda::Strided> ops;
    for (int j = 0; j < 3; ++j) {
      cuda::Strided s = contiguous(1 + pick(2));  // contiguous or every other element
      int kind = pick(3);
      if (kind == 1)
        for (int d = 0; d < at.rank; ++d)
          if (pick(2)) s.stride[d] = 0;  // broadcast along d
      if (kind == 2 && at.rank >= 2) std::swap(s.stride[0], s.stride[at.rank - 1]);  // a transposed view
      ops.push_back(s);
    }
    std::vector<std::vector<int64_t>> before(ops.size());
    for (size_t j = 0; j < ops.size(); ++j)
      for (int64_t i = 0; i < n; ++i) before[j].push_back(cuda::offsetOf(i, at, ops[j]));
    cuda::Strided merged = at;
    std::vector<cuda::Strided> mergedOps = ops;
    cuda::Strided* pointers[3] = {&mergedOps[0], &mergedOps[1], &mergedOps[2]};
    cuda::coalesce(merged, pointers, 3);
    for (size_t j = 0; j < ops.size(); ++j)
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(cuda::offsetOf(i, merged, mergedOps[j]), before[j][i]) << trial;
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(cuda::offsetOf(i, merged, merged), i);  // the output, still contiguous
  }
  cuda::Strided at;
  at.rank = 3;
  at.shape[0] = 2, at.shape[1] = 3, at.shape[2] = 4;
  at.stride[0] = 12, at.stride[1] = 4, at.stride[2] = 1;
  cuda::Strided x = at;
  cuda::Strided* one[1] = {&x};
  cuda::coalesce(at, one, 1);
  EXPECT_EQ(at.rank, 1);
  EXPECT_EQ(at.shape[0], 24);
  EXPECT_EQ(x.stride[0], 1);
}

TEST(CudaElementMath, SortOrderIsTheCpus) {
  checkSortOrder<bool>();
  checkSortOrder<int32_t>();
  checkSortOrder<int64_t>();
  checkSortOrder<float>();
  checkSortOrder<double>();
}

}  // namespace
