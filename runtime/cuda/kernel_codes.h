// What the CUDA plugin's host side tells its kernels (cuda_kernels.h), in
// plain C++ so that host-only code (the tests of element_math.h) can
// include it: operands' shapes and strides, how a kernel walks them, and
// the codes of the operations and dtypes.
#pragma once

#include <cstdint>

#include "runtime/host_device.h"

namespace nn::rt::cuda {

// An operand as a kernel walks it: shape and element strides (stride 0
// where it is broadcast), row-major, at most kMaxRank dimensions.
inline constexpr int kMaxRank = 8;
struct Strided {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t stride[kMaxRank] = {};
};

// The offset, through `operand`'s strides, of element i of a row-major
// walk of shape `at`: one multiplication for a walk of one dimension.
inline NN_HOST_DEVICE int64_t offsetOf(int64_t i, const Strided& at, const Strided& operand) {
  if (at.rank == 1) return i * operand.stride[0];
  int64_t off = 0;
  for (int d = at.rank - 1; d >= 0; --d) {
    int64_t k = i % at.shape[d];
    i /= at.shape[d];
    off += k * operand.stride[d];
  }
  return off;
}

// Drops the walk's dimensions of size 1 and merges each pair of adjacent
// ones that every operand (and `at`, which may be one) steps over as over
// one dimension, so that a contiguous walk, the common case, becomes one
// dimension and its offsets need no division. Offsets stay what they were.
inline void coalesce(Strided& at, Strided* const* operands, int count) {
  auto each = [&](auto&& f) {
    f(at);
    for (int j = 0; j < count; ++j) f(*operands[j]);
  };
  int kept = 0;
  for (int d = 0; d < at.rank; ++d) {
    int64_t size = at.shape[d];
    if (size == 1) continue;
    bool merge = kept > 0;
    each([&](const Strided& s) { merge = merge && s.stride[kept - 1] == s.stride[d] * size; });
    if (merge) {
      at.shape[kept - 1] *= size;
      each([&](Strided& s) { s.stride[kept - 1] = s.stride[d]; });
    } else {
      at.shape[kept] = size;
      each([&](Strided& s) { s.stride[kept] = s.stride[d]; });
      ++kept;
    }
  }
  each([&](Strided& s) {
    s.rank = kept;
    for (int d = 0; d < kept; ++d) s.shape[d] = at.shape[d];
  });
}

enum class Binary : int {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Maximum, Minimum, And, Or, BitAnd, BitOr, BitXor, LShift, RShift,
  Fmod, Atan2, Hypot, Copysign, Polygamma, Zeta, Gammainc, Gammaincc, Nextafter, Gcd, Lcm
};
enum class Unary : int {
  Neg, Pos, Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Relu, Gelu, GeluGrad, Erf, Silu, SiluGrad, Softplus, Log1p,
  Expm1, Tan, Atan, Reciprocal, Log2, Log10, Sinh, Cosh, Asin, Acos, Acosh, Asinh, Atanh, Exp2, Erfc, Erfinv, Lgamma,
  Digamma, I0, I0e, I1, I1e, K0, K0e, K1, K1e, Erfcx, Ndtri, LogNdtr, BesselJ0, BesselJ1, BesselY0, BesselY1, AiryAi, FrexpMantissa, FrexpExponent, Square, Floor, Ceil, Round,
  Abs, Sign, Not, Invert
};
enum class Predicate : int { IsNan, IsInf, IsFinite };
enum class Compare : int { Lt, Le, Gt, Ge, Eq, Ne };
enum class Reduce : int { Prod, Max, Min, ArgMax, ArgMin, All, Any };
// The runtime's dtype codes, in its order (ir/dtype.h).
enum class Elem : int { Bool, I32, I64, F32, F64 };

}  // namespace nn::rt::cuda
