// What the CUDA plugin's host side tells its kernels (cuda_kernels.h), in
// plain C++ so that host-only code (element_math.h's tests) can include
// it: operands' shapes and strides, and the codes of the operations and
// dtypes.
#pragma once

#include <cstdint>

namespace nn::rt::cuda {

// An operand as a kernel walks it: shape and element strides (stride 0
// where it is broadcast), row-major, at most kMaxRank dimensions.
inline constexpr int kMaxRank = 8;
struct Strided {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t stride[kMaxRank] = {};
};

enum class Binary : int {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Maximum, Minimum, And, Or, BitAnd, BitOr, BitXor, LShift, RShift
};
enum class Unary : int {
  Neg, Pos, Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Relu, Gelu, Erf, Silu, Softplus, Floor, Ceil, Round,
  Abs, Sign, Not, Invert
};
enum class Predicate : int { IsNan, IsInf, IsFinite };
enum class Compare : int { Lt, Le, Gt, Ge, Eq, Ne };
enum class Reduce : int { Prod, Max, Min, ArgMax, ArgMin, All, Any };
// The runtime's dtype codes, in its order (ir/dtype.h).
enum class Elem : int { Bool, I32, I64, F32, F64 };

}  // namespace nn::rt::cuda
