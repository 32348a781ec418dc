// CPU kernels of the tensor math ops (exp, log, tanh, relu, maximum,
// atan2, ...).
// Transcendental ops run on f32/f64 (integer inputs are converted to f32 by
// the caller); sign, abs, relu, rounding and min/max also keep integer
// types; logical ops work on bool; where selects for every dtype.
#include <omp.h>

#include <cmath>
#include <type_traits>

#include "runtime/device.h"
#include "runtime/special_math.h"
#include "runtime/kernel_loops.h"
#include "runtime/vector_math.h"

namespace nn::rt {
namespace {

using ir::Op;

#define NN_UNARY(OPNAME, T, EXPR)                                                                   \
  r.addUnary(Op::OPNAME, dtypeOf<T>(), [](const Tensor& a, Tensor& o, SourceLoc) { \
    unaryLoop<T, T>(a, o, [](T x) { return static_cast<T>(EXPR); });                                \
  })

template <class T>
void registerFloat(KernelTable& r) {
#define FLOAT_UNARY(OPNAME, EXPR) NN_UNARY(OPNAME, T, EXPR);
#define FLOAT_TEST(OPNAME, EXPR)                                                                   \
  r.addUnary(Op::OPNAME, dtypeOf<T>(), [](const Tensor& a, Tensor& o, SourceLoc) {                 \
    unaryLoop<T, bool>(a, o, [](T x) { return EXPR; });                                            \
  });
#include "runtime/float_unary.def"
#undef FLOAT_UNARY
#undef FLOAT_TEST
}

// The element class tests of a type without NaN or infinities (integers,
// bools): every element is finite.
template <class T>
void registerFiniteClass(KernelTable& r) {
  UnaryKernel never = [](const Tensor& a, Tensor& o, SourceLoc) { unaryLoop<T, bool>(a, o, [](T) { return false; }); };
  UnaryKernel always = [](const Tensor& a, Tensor& o, SourceLoc) { unaryLoop<T, bool>(a, o, [](T) { return true; }); };
  r.addUnary(Op::IsNan, dtypeOf<T>(), never);
  r.addUnary(Op::IsInf, dtypeOf<T>(), never);
  r.addUnary(Op::IsFinite, dtypeOf<T>(), always);
}

template <class T>
void registerInt(KernelTable& r) {
  NN_UNARY(Abs, T, x < 0 ? wrapNeg(x) : x);
  NN_UNARY(Square, T, T(std::make_unsigned_t<T>(x) * std::make_unsigned_t<T>(x)));  // wrapping
  NN_UNARY(Sign, T, (x > 0) - (x < 0));
  NN_UNARY(Relu, T, x > 0 ? x : T(0));
  NN_UNARY(Floor, T, x);
  NN_UNARY(Ceil, T, x);
  NN_UNARY(Round, T, x);
  registerFiniteClass<T>(r);
}

// NaN propagates, as in NumPy and PyTorch: x's NaN, else y's, else the
// larger (smaller) value, y when they compare equal (maximum(0.0, -0.0) is
// -0.0). Written as selects, which vectorise, where tests and early
// returns made a branch per element (784x512 f32: 110 -> 86 us).
template <class T, bool Larger>
inline T extremum(T x, T y) {
  T r = (Larger ? x > y : x < y) ? x : y;
  if constexpr (std::is_floating_point_v<T>) {
    r = y != y ? y : r;
    r = x != x ? x : r;
  }
  return r;
}

template <class T, bool Larger>
void extremumKernel(const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
  binaryLoop<T, T>(a, b, o, [](T x, T y) { return extremum<T, Larger>(x, y); });
}

template <class T>
void registerMinMax(KernelTable& r) {
  r.addBinary(Op::Maximum, dtypeOf<T>(), extremumKernel<T, true>);
  r.addBinary(Op::Minimum, dtypeOf<T>(), extremumKernel<T, false>);
}

// The two-argument functions (the JIT calls the same ones): atan2 and
// hypot of f32 SLEEF's vector forms, as PyTorch's (libm's take 11 ns an
// element), of f64 libm's, as a Python float's.
template <class T>
void registerFloatBinary(KernelTable& r) {
  r.addBinary(Op::Atan2, dtypeOf<T>(), [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    if constexpr (std::is_same_v<T, float>)
      blockBinaryLoop<float>(a, b, o, vmath::atan2, [](float, float, float r) { return r; });
    else
      binaryLoop<T, T>(a, b, o, [](T y, T x) { return std::atan2(y, x); });
  });
  r.addBinary(Op::Hypot, dtypeOf<T>(), [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    if constexpr (std::is_same_v<T, float>)
      blockBinaryLoop<float>(a, b, o, vmath::hypot, [](float, float, float r) { return r; });
    else
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return std::hypot(x, y); });
  });
  r.addBinary(Op::Copysign, dtypeOf<T>(), [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T x, T y) { return std::copysign(x, y); });
  });
  r.addBinary(Op::Nextafter, dtypeOf<T>(), [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T x, T y) { return special::nextAfter(x, y); });
  });
  r.addBinary(Op::Polygamma, dtypeOf<T>(), [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T n, T x) { return static_cast<T>(special::polygamma(n, x)); });
  });
  r.addBinary(Op::Zeta, dtypeOf<T>(), [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T x, T q) { return static_cast<T>(special::zeta(x, q)); });
  });
  r.addBinary(Op::Gammainc, dtypeOf<T>(), [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T s, T x) { return static_cast<T>(special::incompleteGamma(s, x, false)); });
  });
  r.addBinary(Op::Gammaincc, dtypeOf<T>(), [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T s, T x) { return static_cast<T>(special::incompleteGamma(s, x, true)); });
  });
}

// clip(x, lo, hi) for bounds that are not NaN, with the bits of
// minimum(maximum(x, lo), hi) (extremum's rules), in one pass: the larger
// of x and lo, lo where they are equal, then the smaller of that and hi,
// hi where equal, and x where x is NaN. Where neither bound is a zero,
// equal values have the same bits, and comparing the bound first lets a
// NaN through unchanged: two selects per element where extremum's rules
// take six (a one-pass clip by extremum itself was as slow as two passes).
template <class T>
void clipKernel(const Tensor& x, T lo, T hi, Tensor& out) {
  const T* s = x.data<T>();
  T* o = out.data<T>();
  bool zeroBound = lo == 0 || hi == 0;
  forEachSpan(x.numel(), [&](int64_t begin, int64_t end) {
    if (zeroBound) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        T v = s[i], r = v > lo ? v : lo;
        r = r < hi ? r : hi;
        o[i] = v != v ? v : r;
      }
    } else {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        T v = s[i], r = lo > v ? lo : v;
        o[i] = hi < r ? hi : r;
      }
    }
  });
}

#undef NN_UNARY

// out[i] = c[i] ? x[i] : y[i] over operands that are each contiguous or
// one broadcast value (step 1 or 0), the common shapes: a mask selecting
// between a tensor and a constant, as relu's gradient does. The choice is
// made on the bits, with a mask from the bool, over restrict pointers, so
// that it vectorises: GCC compiles `c ? a : b` to a branch, which a random
// mask mispredicts half the time (14x slower).
template <class Bits, int SC, int SX, int SY>
void selectRange(const uint8_t* __restrict c, const Bits* __restrict x, const Bits* __restrict y,
                 Bits* __restrict o, int64_t lo, int64_t hi) {
#pragma omp simd
  for (int64_t i = lo; i < hi; ++i) {
    Bits mask = Bits(0) - Bits(c[i * SC] != 0);
    o[i] = (x[i * SX] & mask) | (y[i * SY] & ~mask);
  }
}

template <class E, int SC, int SX, int SY>
void selectSteps(const bool* cp, const E* xp, const E* yp, E* op, int64_t n) {
  using Bits = std::conditional_t<sizeof(E) == 8, uint64_t, std::conditional_t<sizeof(E) == 4, uint32_t, uint8_t>>;
  static_assert(sizeof(Bits) == sizeof(E));
  // The storage is read and written only through these pointers within the
  // kernel, so viewing the elements as same-width integers cannot be
  // reordered against the callers' typed accesses (a kernel call between).
  const auto* c = reinterpret_cast<const uint8_t*>(cp);
  const auto* x = reinterpret_cast<const Bits*>(xp);
  const auto* y = reinterpret_cast<const Bits*>(yp);
  auto* o = reinterpret_cast<Bits*>(op);
  if (n < kParallelThreshold) return selectRange<Bits, SC, SX, SY>(c, x, y, o, 0, n);
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    selectRange<Bits, SC, SX, SY>(c, x, y, o, n * t / nt, n * (t + 1) / nt);
  }
}

// The where kernel: vectorised and parallel when each operand is
// contiguous or a single value, else row by row through the strides (a
// mask broadcast over channels), in parallel when large.
template <class E>
void selectLoop(const Tensor& c, const Tensor& x, const Tensor& y, Tensor& out) {
  const bool* cp = c.data<bool>();
  const E* xp = x.data<E>();
  const E* yp = y.data<E>();
  E* o = out.data<E>();
  int64_t n = out.numel();
  auto step = [](const Tensor& t) { return t.isContiguous() ? 1 : t.isSingleValue() ? 0 : -1; };
  int sc = step(c), sx = step(x), sy = step(y);
  if (sc == 1 && sx == 1 && sy == 1) return selectSteps<E, 1, 1, 1>(cp, xp, yp, o, n);
  if (sc == 1 && sx == 1 && sy == 0) return selectSteps<E, 1, 1, 0>(cp, xp, yp, o, n);
  if (sc == 1 && sx == 0 && sy == 1) return selectSteps<E, 1, 0, 1>(cp, xp, yp, o, n);
  if (sc == 1 && sx == 0 && sy == 0) return selectSteps<E, 1, 0, 0>(cp, xp, yp, o, n);
  if (out.ndim() == 0) {
    if (n) o[0] = cp[c.flatOffset(0)] ? xp[x.flatOffset(0)] : yp[y.flatOffset(0)];
    return;
  }
  int64_t cols = out.shape().back(), stepC = lastStride(c), stepX = lastStride(x), stepY = lastStride(y);
  forEachStridedRow<3>(out.shape(), {&c.strides(), &x.strides(), &y.strides()}, n >= kParallelThreshold,
                       [&](int64_t r, const std::array<int64_t, 3>& at) {
                         const bool* cr = cp + at[0];
                         const E* xr = xp + at[1];
                         const E* yr = yp + at[2];
                         E* orow = o + r * cols;
                         for (int64_t j = 0; j < cols; ++j) orow[j] = cr[j * stepC] ? xr[j * stepX] : yr[j * stepY];
                       });
}

}  // namespace

void registerCpuMathKernels(KernelTable& r) {
  registerFloat<float>(r);
  registerCpuFloat32MathKernels(r);
  registerFloat<double>(r);
  registerCpuBesselKernels(r);
  registerInt<int32_t>(r);
  registerInt<int64_t>(r);
  registerMinMax<int32_t>(r);
  registerMinMax<int64_t>(r);
  registerMinMax<float>(r);
  registerMinMax<double>(r);
  registerMinMax<bool>(r);
  registerFloatBinary<float>(r);
  registerFloatBinary<double>(r);
  registerFiniteClass<bool>(r);
  r.addUnary(Op::LogicalNot, DType::Bool, [](const Tensor& a, Tensor& o, SourceLoc) {
    unaryLoop<bool, bool>(a, o, [](bool x) { return !x; });
  });
  r.add<Op::Where>(DType::Bool, selectLoop<bool>);
  r.add<Op::Where>(DType::I32, selectLoop<int32_t>);
  r.add<Op::Where>(DType::I64, selectLoop<int64_t>);
  r.add<Op::Where>(DType::F32, selectLoop<float>);
  r.add<Op::Where>(DType::F64, selectLoop<double>);
  // On bools, logical and/or are the & and | kernels.
  r.addBinary(Op::LogicalAnd, DType::Bool, r.binary(Op::BitAnd, DType::Bool));
  r.addBinary(Op::LogicalOr, DType::Bool, r.binary(Op::BitOr, DType::Bool));
}

std::optional<Tensor> cpuClip(const Tensor& x, double lo, double hi) {
  // The steps op by op run this file's kernels: a device with others
  // (a test's, a plugin's) runs them.
  const KernelTable& k = x.device().kernels();
  auto ours = [&](auto element) {
    using T = decltype(element);
    return k.binary(Op::Maximum, dtypeOf<T>()) == &extremumKernel<T, true> &&
           k.binary(Op::Minimum, dtypeOf<T>()) == &extremumKernel<T, false>;
  };
  if (!x.isContiguous() || !x.device().hostMemory() || lo != lo || hi != hi) return std::nullopt;
  bool f32 = x.dtype() == DType::F32 && ours(float()), f64 = x.dtype() == DType::F64 && ours(double());
  if (!f32 && !f64) return std::nullopt;
  Tensor out = Tensor::empty(x.dtype(), x.shape(), x.device());
  if (f32) clipKernel<float>(x, static_cast<float>(lo), static_cast<float>(hi), out);
  else clipKernel<double>(x, lo, hi, out);
  return out;
}

std::optional<double> floatUnary(Op op, double x) {
  using T = double;
  switch (op) {
#define FLOAT_UNARY(OPNAME, EXPR) \
  case Op::OPNAME: return static_cast<T>(EXPR);
#define FLOAT_TEST(OPNAME, EXPR)
#include "runtime/float_unary.def"
#undef FLOAT_UNARY
#undef FLOAT_TEST
    default: return std::nullopt;
  }
}

std::optional<bool> floatTest(Op op, double x) {
  switch (op) {
#define FLOAT_UNARY(OPNAME, EXPR)
#define FLOAT_TEST(OPNAME, EXPR) \
  case Op::OPNAME: return EXPR;
#include "runtime/float_unary.def"
#undef FLOAT_UNARY
#undef FLOAT_TEST
    default: return std::nullopt;
  }
}

}  // namespace nn::rt
