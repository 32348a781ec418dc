// One element of the CUDA plugin's elementwise kernels (cuda_kernels.cu,
// cuda_index_kernels.cu): binary and unary ops, the class tests,
// comparisons, dtype conversion and the sort order, each as the CPU's
// kernels compute it. Host and device functions alike, so that a unit
// test (tests/unit/cuda_element_math_test.cpp) checks them against the
// CPU's kernels on machines without a GPU; only the math library differs
// on a GPU (CUDA's exp, pow, ... round their own way).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/cuda/kernel_codes.h"
#include "runtime/special_math.h"

namespace nn::rt::cuda {

// One element of a binary op of type T. Integers wrap around (computed on
// the unsigned type); floor division and modulo follow Python's signs, as
// the CPU's kernels (kernels_cpu_elementwise.cpp); a zero integer divisor
// or a negative integer exponent sets *fault.
template <class T>
NN_HOST_DEVICE T applyBinary(Binary op, T x, T y, int* fault) {
  if constexpr (std::is_same<T, bool>::value) {
    switch (op) {
      case Binary::And:
      case Binary::BitAnd:
      case Binary::Minimum: return x && y;
      case Binary::BitXor: return x != y;
      default: return x || y;  // Or, BitOr, Maximum
    }
  } else if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;
    constexpr T bits = T(sizeof(T) * 8);
    switch (op) {
      case Binary::BitAnd: return static_cast<T>(x & y);
      case Binary::BitOr: return static_cast<T>(x | y);
      case Binary::BitXor: return static_cast<T>(x ^ y);
      // Shifts by a negative count or by the width or more: as the CPU's.
      case Binary::LShift: return y < 0 || y >= bits ? T(0) : static_cast<T>(static_cast<U>(x) << y);
      case Binary::RShift: return y < 0 || y >= bits ? T(x < 0 ? -1 : 0) : static_cast<T>(x >> y);
      case Binary::Add: return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
      case Binary::Sub: return static_cast<T>(static_cast<U>(x) - static_cast<U>(y));
      case Binary::Mul: return static_cast<T>(static_cast<U>(x) * static_cast<U>(y));
      case Binary::FloorDiv: {
        if (y == 0) return *fault = 1, T(0);
        if (y == -1) return static_cast<T>(U(0) - static_cast<U>(x));
        T q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        return q;
      }
      case Binary::Mod: {
        if (y == 0) return *fault = 1, T(0);
        if (y == -1) return T(0);
        T m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) m += y;
        return m;
      }
      case Binary::Fmod:  // C's remainder, the dividend's sign
        if (y == 0) return *fault = 1, T(0);
        return y == -1 ? T(0) : static_cast<T>(x % y);
      case Binary::Pow: {  // by squaring, as the CPU's intPow
        if (y < 0) return *fault = 1, T(0);
        U result = 1, base = static_cast<U>(x);
        for (T e = y; e > 0; e >>= 1) {
          if (e & 1) result *= base;
          base *= base;
        }
        return static_cast<T>(result);
      }
      case Binary::Maximum: return x > y ? x : y;
      case Binary::Minimum: return x < y ? x : y;
      case Binary::Gcd: return special::gcd(x, y);
      case Binary::Lcm: return special::lcm(x, y);
      default: return T(0);
    }
  } else {
    using std::atan2, std::copysign, std::floor, std::fmod, std::hypot, std::pow;
    switch (op) {
      case Binary::Add: return x + y;
      case Binary::Sub: return x - y;
      case Binary::Mul: return x * y;
      case Binary::Div: return x / y;
      case Binary::FloorDiv: {
        if (y == T(0)) return x / y;
        T mod = fmod(x, y);
        T div = (x - mod) / y;
        if (mod != T(0) && ((y < T(0)) != (mod < T(0)))) div -= T(1);
        T fl = floor(div);
        if (div - fl > T(0.5)) fl += T(1);
        return div == T(0) ? copysign(T(0), x / y) : fl;
      }
      case Binary::Mod: {
        if (y == T(0)) return T(NAN);
        T m = fmod(x, y);
        if (m != T(0) && ((m < T(0)) != (y < T(0)))) m += y;
        return m == T(0) ? copysign(T(0), y) : m;
      }
      case Binary::Pow: return pow(x, y);
      case Binary::Fmod: {
        T m = fmod(x, y);
        return m != m ? T(NAN) : m;  // the default quiet NaN, as the CPU's
      }
      case Binary::Atan2: return atan2(x, y);
      case Binary::Hypot: return hypot(x, y);
      case Binary::Copysign: return copysign(x, y);
      case Binary::Polygamma: return static_cast<T>(special::polygamma(x, y));
      case Binary::Zeta: return static_cast<T>(special::zeta(x, y));
      case Binary::Gammainc: return static_cast<T>(special::incompleteGamma(x, y, false));
      case Binary::Gammaincc: return static_cast<T>(special::incompleteGamma(x, y, true));
      case Binary::Nextafter: return special::nextAfter(x, y);
      case Binary::Maximum: return (x != x || y != y) ? x + y : (x > y ? x : y);
      case Binary::Minimum: return (x != x || y != y) ? x + y : (x < y ? x : y);
      default: return T(0);
    }
  }
}

template <class T>
NN_HOST_DEVICE T applyUnary(Unary op, T x) {
  if constexpr (std::is_same<T, bool>::value) {
    return !x;  // Not, Invert
  } else if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;
    switch (op) {
      case Unary::Invert: return static_cast<T>(~x);
      case Unary::Neg: return static_cast<T>(U(0) - static_cast<U>(x));
      case Unary::Abs: return x < 0 ? static_cast<T>(U(0) - static_cast<U>(x)) : x;
      case Unary::Sign: return static_cast<T>((x > 0) - (x < 0));
      case Unary::Relu: return x > 0 ? x : T(0);
      case Unary::Square: return static_cast<T>(static_cast<U>(x) * static_cast<U>(x));  // wrapping
      default: return x;  // Pos, and Floor, Ceil, Round of an integer
    }
  } else {
    using std::acos, std::acosh, std::asin, std::asinh, std::atan, std::atanh, std::ceil, std::cos, std::cosh, std::erf,
        std::erfc, std::exp, std::exp2, std::expm1, std::fabs, std::floor, std::log, std::log10, std::log1p, std::log2,
        std::rint, std::sin, std::sinh, std::sqrt, std::tan, std::tanh;
    switch (op) {
      case Unary::Neg: return -x;
      case Unary::Pos: return x;
      case Unary::Exp: return exp(x);
      case Unary::Log: return log(x);
      case Unary::Sqrt: return sqrt(x);
      case Unary::Rsqrt: return T(1) / sqrt(x);
      case Unary::Sin: return sin(x);
      case Unary::Cos: return cos(x);
      case Unary::Tanh: return tanh(x);
      case Unary::Sigmoid: return T(1) / (T(1) + exp(-x));
      case Unary::Relu: return x > T(0) ? x : (x != x ? x : T(0));
      case Unary::Gelu: return T(0.5) * x * (T(1) + erf(x / sqrt(T(2))));
      case Unary::GeluGrad:
        return T(0.5) * (T(1) + erf(x * T(M_SQRT1_2))) + x * (T(0.5 * M_2_SQRTPI * M_SQRT1_2) * exp(x * x * T(-0.5)));
      case Unary::Erf: return erf(x);
      case Unary::Silu: return x / (T(1) + exp(-x));
      case Unary::SiluGrad: {
        T s = T(1) / (T(1) + exp(-x));
        return s * (T(1) + x * (T(1) - s));
      }
      case Unary::Softplus: return x > T(20) ? x : log1p(exp(x));
      case Unary::Log1p: return log1p(x);
      case Unary::Expm1: return expm1(x);
      case Unary::Tan: return tan(x);
      case Unary::Atan: return atan(x);
      case Unary::Reciprocal: return T(1) / x;
      case Unary::Log2: return log2(x);
      case Unary::Log10: return log10(x);
      case Unary::Sinh: return sinh(x);
      case Unary::Cosh: return cosh(x);
      case Unary::Asin: return asin(x);
      case Unary::Acos: return acos(x);
      case Unary::Acosh: return acosh(x);
      case Unary::Asinh: return asinh(x);
      case Unary::Atanh: return atanh(x);
      case Unary::Exp2: return exp2(x);
      case Unary::Erfc: return erfc(x);
      case Unary::Erfinv: return static_cast<T>(special::erfinv(x));
      case Unary::Lgamma: return static_cast<T>(special::lgamma(x));
      case Unary::Digamma: return static_cast<T>(special::digamma(x));
      case Unary::I0: return static_cast<T>(special::besselI(0, x));
      case Unary::I0e: return static_cast<T>(special::besselIScaled(0, x));
      case Unary::I1: return static_cast<T>(special::besselI(1, x));
      case Unary::I1e: return static_cast<T>(special::besselIScaled(1, x));
      case Unary::K0: return static_cast<T>(special::besselK(0, x));
      case Unary::K0e: return static_cast<T>(special::besselKScaled(0, x));
      case Unary::K1: return static_cast<T>(special::besselK(1, x));
      case Unary::K1e: return static_cast<T>(special::besselKScaled(1, x));
      case Unary::Erfcx: return static_cast<T>(special::erfcx(x));
      case Unary::Ndtri: return static_cast<T>(special::ndtri(x));
      case Unary::LogNdtr: return static_cast<T>(special::logNdtr(x));
      case Unary::BesselJ0: return static_cast<T>(special::besselJ0(x));
      case Unary::BesselJ1: return static_cast<T>(special::besselJ1(x));
      case Unary::BesselY0: return static_cast<T>(special::besselY0(x));
      case Unary::BesselY1: return static_cast<T>(special::besselY1(x));
      case Unary::AiryAi: return static_cast<T>(special::airyAi(x));
      case Unary::FrexpMantissa: return static_cast<T>(special::frexpMantissa(x));
      case Unary::FrexpExponent: return static_cast<T>(special::frexpExponent(x));
      case Unary::Square: return x * x;
      case Unary::Floor: return floor(x);
      case Unary::Ceil: return ceil(x);
      case Unary::Round: return rint(x);  // halves to even, as nearbyint
      case Unary::Abs: return fabs(x);
      case Unary::Sign: return x != x ? x : T((x > T(0)) - (x < T(0)));
      default: return x;
    }
  }
}

// One element as the CPU's convertValue (kernel_loops.h).
template <class S, class D>
NN_HOST_DEVICE D convertValue(S v) {
  if constexpr (std::is_same<D, bool>::value) {
    return v != S(0);
  } else if constexpr (std::is_floating_point<S>::value && std::is_integral<D>::value) {
    // D's limits (std::numeric_limits is host code).
    constexpr D hi = static_cast<D>(static_cast<typename std::make_unsigned<D>::type>(~0ull) >> 1), lo = -hi - 1;
    if (!(v == v)) return D(0);
    if (v >= static_cast<S>(hi)) return hi;
    if (v <= static_cast<S>(lo)) return lo;
    return static_cast<D>(v);
  } else {
    return static_cast<D>(v);
  }
}

// The CPU's order: NaN is larger than every number (last ascending, first
// descending).
template <class T>
NN_HOST_DEVICE bool before(T a, T b, bool descending) {
  if constexpr (std::is_floating_point<T>::value) {
    bool na = a != a, nb = b != b;
    if (na || nb) return descending ? na && !nb : !na && nb;
  }
  return descending ? b < a : a < b;
}

// isnan / isinf / isfinite of x: integers and bools are finite.
template <class T>
NN_HOST_DEVICE bool classify(Predicate op, T x) {
  if constexpr (std::is_floating_point<T>::value) {
    using std::isfinite, std::isinf, std::isnan;
    return op == Predicate::IsNan ? isnan(x) : op == Predicate::IsInf ? isinf(x) : isfinite(x);
  } else {
    return op == Predicate::IsFinite;
  }
}

// x cmp y; a NaN compares unequal to everything.
template <class T>
NN_HOST_DEVICE bool applyCompare(Compare op, T x, T y) {
  switch (op) {
    case Compare::Lt: return x < y;
    case Compare::Le: return x <= y;
    case Compare::Gt: return x > y;
    case Compare::Ge: return x >= y;
    case Compare::Eq: return x == y;
    default: return x != y;  // Ne
  }
}

}  // namespace nn::rt::cuda
