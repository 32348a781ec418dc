// CPU elementwise kernels: arithmetic with Python semantics for floor
// division, modulo and powers (and C's truncating remainder, fmod),
// bitwise ops, gcd and lcm, comparisons and unary ops, for every dtype they apply to.
// Loops are flat over contiguous data (which the compiler vectorises) and
// strided otherwise.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/kernel_loops.h"
#include "runtime/special_math.h"
#include "runtime/vector_math.h"

namespace nn::rt {
namespace {

using ir::Op;

// Python's floor division and modulo of floats (CPython's float_divmod),
// from the exact remainder mod = fmod(a, b), written as selects so that
// the loops over them vectorise; a NaN result is the default quiet NaN
// (fmod's NaNs differ in sign between libm and SLEEF).
template <class T>
T floorDivFromRemainder(T a, T b, T mod) {
  T div = (a - mod) / b;
  div = mod != 0 && ((b < 0) != (mod < 0)) ? div - 1 : div;
  T fl = std::floor(div);
  fl = div - fl > T(0.5) ? fl + 1 : fl;
  T r = div == 0 ? std::copysign(T(0), a / b) : fl;
  r = b == 0 ? a / b : r;  // inf/nan as IEEE division gives
  return r != r ? std::numeric_limits<T>::quiet_NaN() : r;
}

template <class T>
T modFromRemainder(T b, T mod) {
  T m = mod != 0 && ((mod < 0) != (b < 0)) ? mod + b : mod;
  m = m == 0 ? std::copysign(T(0), b) : m;
  return b == 0 || m != m ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <class T>
T floorDivOf(T a, T b) {
  // The most negative value over -1 does not fit: it wraps around, as the
  // other integer kernels do (and a / b would trap).
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return wrapSub(T(0), a);
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// C's remainder: the dividend's sign.
template <class T>
T fmodOf(T a, T b) {
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return T(0);
  return a % b;
}

template <class T>
T modOf(T a, T b) {
  if constexpr (std::is_signed_v<T>)
    if (b == -1) return T(0);  // a % b would trap for the most negative a
  T m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// What floatRemainderLoop computes from the exact remainder.
enum class FromRemainder { FloorDiv, Mod, Fmod };

// Floor division, Python's modulo or C's fmod of floats. libm's fmod takes
// ~15 ns an element; SLEEF's vector fmod (vmath::fmod) computes the
// remainders of a block at a time, in ~1 ns, to the same bits.
template <class T, FromRemainder kResult>
void floatRemainderLoop(const Tensor& a, const Tensor& b, Tensor& o) {
  auto finish = [](T x, T y, T mod) {
    if constexpr (kResult == FromRemainder::FloorDiv) return floorDivFromRemainder(x, y, mod);
    else if constexpr (kResult == FromRemainder::Mod) return modFromRemainder(y, mod);
    else return mod != mod ? std::numeric_limits<T>::quiet_NaN() : mod;
  };
  auto remainders = [](const T* x, bool xSingle, const T* y, bool ySingle, T* out, int64_t n) {
    vmath::fmod(x, xSingle, y, ySingle, out, n);
  };
  blockBinaryLoop<T>(a, b, o, remainders, finish);
}

template <class T>
T intPow(T base, T exp) {
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = wrapMul(result, base);
    base = wrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

// One power for every element (`x ** 2`, a norm's square), the small
// ones as multiplications, a division or a square root, which vectorise
// where std::pow costs ~5 ns an element (x * x is the correctly rounded
// square, as PyTorch computes it and as LLVM folds a constant pow in the
// JIT). False, writing nothing, for any other exponent.
template <class T>
bool smallPower(const Tensor& a, const Tensor& b, Tensor& o) {
  if (!b.isSingleValue() || b.numel() == 0) return false;
  T e = b.data<T>()[b.flatOffset(0)];
  if (e == T(2)) binaryLoop<T, T>(a, b, o, [](T x, T) { return x * x; });
  else if (e == T(1)) binaryLoop<T, T>(a, b, o, [](T x, T) { return x; });
  else if (e == T(3)) binaryLoop<T, T>(a, b, o, [](T x, T) { return x * x * x; });
  else if (e == T(-1)) binaryLoop<T, T>(a, b, o, [](T x, T) { return T(1) / x; });
  // pow's answers where sqrt's differ: +0 for -0 (the + 0), +inf for
  // -inf; a negative x never reaches sqrt, whose errno path is a call.
  else if (e == T(0.5))
    binaryLoop<T, T>(a, b, o, [](T x, T) {
      constexpr T inf = std::numeric_limits<T>::infinity();
      return x >= T(0) ? std::sqrt(x) + T(0) : x == -inf ? inf : std::numeric_limits<T>::quiet_NaN();
    });
  else
    return false;
  return true;
}

// Integer division by zero is an error (as in PyTorch); floats follow IEEE.
template <class T>
void checkDivisor(const Tensor& b, SourceLoc loc) {
  if constexpr (std::is_integral_v<T>) {
    const T* y = b.data<T>();
    for (int64_t i = 0, n = b.numel(); i < n; ++i)
      if (y[b.flatOffset(i)] == 0) fail(loc, "integer division or modulo by zero");
  }
}

template <class T>
void registerArith(KernelTable& r) {
  constexpr DType dt = dtypeOf<T>();
  r.addBinary(Op::Add, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T x, T y) { return wrapAdd(x, y); });
  });
  r.addBinary(Op::Sub, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T x, T y) { return wrapSub(x, y); });
  });
  r.addBinary(Op::Mul, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, T>(a, b, o, [](T x, T y) { return wrapMul(x, y); });
  });
  r.addBinary(Op::FloorDiv, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc loc) {
    checkDivisor<T>(b, loc);
    if constexpr (std::is_floating_point_v<T>) floatRemainderLoop<T, FromRemainder::FloorDiv>(a, b, o);
    else binaryLoop<T, T>(a, b, o, [](T x, T y) { return floorDivOf(x, y); });
  });
  r.addBinary(Op::Mod, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc loc) {
    checkDivisor<T>(b, loc);
    if constexpr (std::is_floating_point_v<T>) floatRemainderLoop<T, FromRemainder::Mod>(a, b, o);
    else binaryLoop<T, T>(a, b, o, [](T x, T y) { return modOf(x, y); });
  });
  r.addBinary(Op::Fmod, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc loc) {
    checkDivisor<T>(b, loc);
    if constexpr (std::is_floating_point_v<T>) floatRemainderLoop<T, FromRemainder::Fmod>(a, b, o);
    else binaryLoop<T, T>(a, b, o, [](T x, T y) { return fmodOf(x, y); });
  });
  r.addBinary(Op::Pow, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc loc) {
    if constexpr (std::is_integral_v<T>) {
      const T* y = b.data<T>();
      for (int64_t i = 0, n = b.numel(); i < n; ++i)
        if (y[b.flatOffset(i)] < 0) fail(loc, "integers to negative integer powers are not allowed");
      binaryLoop<T, T>(a, b, o, [](T x, T e) { return intPow(x, e); });
    } else {
      if (!smallPower<T>(a, b, o)) binaryLoop<T, T>(a, b, o, [](T x, T e) { return static_cast<T>(std::pow(x, e)); });
    }
  });
  if constexpr (std::is_floating_point_v<T>) {
    r.addBinary(Op::Div, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return x / y; });
    });
  } else {
    r.addBinary(Op::BitAnd, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return static_cast<T>(x & y); });
    });
    r.addBinary(Op::BitOr, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return static_cast<T>(x | y); });
    });
    r.addBinary(Op::BitXor, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return static_cast<T>(x ^ y); });
    });
    r.addBinary(Op::LShift, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return y < 0 || y >= T(sizeof(T) * 8) ? T(0) : static_cast<T>(x << y); });
    });
    r.addBinary(Op::RShift, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return y < 0 || y >= T(sizeof(T) * 8) ? T(x < 0 ? -1 : 0) : static_cast<T>(x >> y); });
    });
    r.addBinary(Op::Gcd, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return special::gcd(x, y); });
    });
    r.addBinary(Op::Lcm, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
      binaryLoop<T, T>(a, b, o, [](T x, T y) { return special::lcm(x, y); });
    });
    r.addUnary(Op::Invert, dt, [](const Tensor& a, Tensor& o, SourceLoc) {
      unaryLoop<T, T>(a, o, [](T x) { return static_cast<T>(~x); });
    });
  }
  r.addUnary(Op::Neg, dt, [](const Tensor& a, Tensor& o, SourceLoc) {
    unaryLoop<T, T>(a, o, [](T x) { return wrapNeg(x); });
  });
  // +x of a view is contiguous(): the copy's (transposes in blocks).
  r.addUnary(Op::Pos, dt, [](const Tensor& a, Tensor& o, SourceLoc) {
    if (!a.isContiguous()) return copySameType(a, o);
    unaryLoop<T, T>(a, o, [](T x) { return x; });
  });
}

template <class T>
void registerCompare(KernelTable& r) {
  constexpr DType dt = dtypeOf<T>();
  r.addBinary(Op::Lt, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, bool>(a, b, o, [](T x, T y) { return x < y; });
  });
  r.addBinary(Op::Le, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, bool>(a, b, o, [](T x, T y) { return x <= y; });
  });
  r.addBinary(Op::Gt, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, bool>(a, b, o, [](T x, T y) { return x > y; });
  });
  r.addBinary(Op::Ge, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, bool>(a, b, o, [](T x, T y) { return x >= y; });
  });
  r.addBinary(Op::Eq, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, bool>(a, b, o, [](T x, T y) { return x == y; });
  });
  r.addBinary(Op::Ne, dt, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<T, bool>(a, b, o, [](T x, T y) { return x != y; });
  });
}

}  // namespace

void registerCpuElementwiseKernels(KernelTable& r) {
  registerArith<int32_t>(r);
  registerArith<int64_t>(r);
  registerArith<float>(r);
  registerArith<double>(r);
  registerCompare<bool>(r);
  registerCompare<int32_t>(r);
  registerCompare<int64_t>(r);
  registerCompare<float>(r);
  registerCompare<double>(r);
  r.addBinary(Op::BitAnd, DType::Bool, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<bool, bool>(a, b, o, [](bool x, bool y) { return x && y; });
  });
  r.addBinary(Op::BitOr, DType::Bool, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<bool, bool>(a, b, o, [](bool x, bool y) { return x || y; });
  });
  r.addBinary(Op::BitXor, DType::Bool, [](const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
    binaryLoop<bool, bool>(a, b, o, [](bool x, bool y) { return x != y; });
  });
  r.addUnary(Op::Invert, DType::Bool, [](const Tensor& a, Tensor& o, SourceLoc) {
    unaryLoop<bool, bool>(a, o, [](bool x) { return !x; });
  });
  r.addUnary(Op::Not, DType::Bool, [](const Tensor& a, Tensor& o, SourceLoc) {
    unaryLoop<bool, bool>(a, o, [](bool x) { return !x; });
  });
}

}  // namespace nn::rt
