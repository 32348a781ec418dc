// The CPU kernels of the functions special_math.h sums Chebyshev series
// for, over blocks of elements: the modified Bessel functions of the first
// kind, i0, i0e, i1 and i1e (besselIScaled, besselI), and Airy's Ai
// (airyAi), with each series summed for a whole block at once, Clenshaw's
// step taken across the block's elements, which vectorises, where one
// element's sum is a chain of dependent steps (37 ns an element, against
// 2.5). The steps and their order are the scalar function's, so the bits
// are the same as a Python float's, a fused kernel's (which calls the
// scalar function) and a GPU's.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "runtime/airy_chebyshev.h"
#include "runtime/bessel_chebyshev.h"
#include "runtime/kernel_loops.h"
#include "runtime/special_math.h"

namespace nn::rt {
namespace {

using ir::Op;

constexpr int64_t kBlock = 256;

struct Series {
  const double* c;
  int n;
};

constexpr double kI0Small[] = NN_CHEBYSHEV_I0_SMALL;
constexpr double kI0Large[] = NN_CHEBYSHEV_I0_LARGE;
constexpr double kI1Small[] = NN_CHEBYSHEV_I1_SMALL;
constexpr double kI1Large[] = NN_CHEBYSHEV_I1_LARGE;
constexpr double kAiryMiddle[] = NN_CHEBYSHEV_AIRY_MIDDLE;
constexpr double kAiryPositive[] = NN_CHEBYSHEV_AIRY_POSITIVE;
constexpr double kAiryNegativeSine[] = NN_CHEBYSHEV_AIRY_NEGATIVE_SINE;
constexpr double kAiryNegativeCosine[] = NN_CHEBYSHEV_AIRY_NEGATIVE_COSINE;

template <size_t N>
constexpr Series series(const double (&c)[N]) {
  return {c, static_cast<int>(N)};
}

// r[i] = chebyshev::clenshaw(s.c, s.n, u[i]) for i < count.
void clenshawBlock(Series s, const double* u, double* r, int64_t count) {
  alignas(64) double twice[kBlock], next[kBlock], last[kBlock];
  for (int64_t i = 0; i < count; ++i) twice[i] = 2 * u[i], next[i] = 0, last[i] = 0;
  for (int k = s.n - 1; k >= 1; --k) {
    double c = s.c[k];
    for (int64_t i = 0; i < count; ++i) {
      double b = twice[i] * next[i] + (c - last[i]);
      last[i] = next[i];
      next[i] = b;
    }
  }
  for (int64_t i = 0; i < count; ++i) r[i] = u[i] * next[i] + (s.c[0] - last[i]);
}

// besselIScaled(nu, x[i]) (or besselI with !scaled) for a block: the
// elements up to 8 and past it each gathered for their series.
void besselIBlock(int nu, bool scaled, const double* x, double* out, int64_t count) {
  alignas(64) double uSmall[kBlock], uLarge[kBlock], rSmall[kBlock], rLarge[kBlock];
  int32_t small[kBlock], large[kBlock];
  int64_t nSmall = 0, nLarge = 0;
  for (int64_t i = 0; i < count; ++i) {
    double a = std::fabs(x[i]);
    if (x[i] != x[i]) continue;
    if (a <= 8) {
      small[nSmall] = static_cast<int32_t>(i), uSmall[nSmall++] = a / 4 - 1;
    } else {
      large[nLarge] = static_cast<int32_t>(i), uLarge[nLarge++] = 16 / a - 1;
    }
  }
  if (nSmall > 0) clenshawBlock(nu == 0 ? series(kI0Small) : series(kI1Small), uSmall, rSmall, nSmall);
  if (nLarge > 0) clenshawBlock(nu == 0 ? series(kI0Large) : series(kI1Large), uLarge, rLarge, nLarge);
  for (int64_t i = 0; i < count; ++i) out[i] = x[i];  // NaN stays x
  for (int64_t j = 0; j < nSmall; ++j) {
    int32_t i = small[j];
    out[i] = nu == 0 ? rSmall[j] : std::fabs(x[i]) * rSmall[j];
  }
  for (int64_t j = 0; j < nLarge; ++j) {
    int32_t i = large[j];
    out[i] = rLarge[j] / std::sqrt(std::fabs(x[i]));
  }
  for (int64_t i = 0; i < count; ++i) {
    if (x[i] != x[i]) continue;
    double r = nu == 1 && x[i] < 0 ? -out[i] : out[i];
    if (!scaled) {
      double a = std::fabs(x[i]);
      if (std::isinf(a)) {
        r = nu == 1 && x[i] < 0 ? -HUGE_VAL : HUGE_VAL;
      } else {
        double half = std::exp(a / 2);
        r = r * half * half;
      }
    }
    out[i] = r;
  }
}

template <int Nu, bool Scaled>
void besselIBlockOf(const double* x, double* out, int64_t count) {
  besselIBlock(Nu, Scaled, x, out, count);
}

// special::airyAi(x[i]) for a block: the elements on [-2, 2], past 2 and
// below -2 each gathered for their series.
void airyBlock(const double* x, double* out, int64_t count) {
  alignas(64) double uMiddle[kBlock], rMiddle[kBlock], uPositive[kBlock], rPositive[kBlock];
  alignas(64) double uNegative[kBlock], rSine[kBlock], rCosine[kBlock];
  special::AiryFar farPositive[kBlock], farNegative[kBlock];
  int32_t middle[kBlock], positive[kBlock], negative[kBlock];
  int64_t nMiddle = 0, nPositive = 0, nNegative = 0;
  for (int64_t i = 0; i < count; ++i) {
    double v = x[i], z = std::fabs(v);
    if (v != v || v - v != 0) {
      out[i] = NAN;
    } else if (z <= 2) {
      middle[nMiddle] = static_cast<int32_t>(i), uMiddle[nMiddle++] = v / 2;
    } else if (v > 0) {
      farPositive[nPositive] = special::airyFar(z);
      positive[nPositive] = static_cast<int32_t>(i), uPositive[nPositive] = farPositive[nPositive].u, ++nPositive;
    } else {
      farNegative[nNegative] = special::airyFar(z);
      negative[nNegative] = static_cast<int32_t>(i), uNegative[nNegative] = farNegative[nNegative].u, ++nNegative;
    }
  }
  if (nMiddle > 0) clenshawBlock(series(kAiryMiddle), uMiddle, rMiddle, nMiddle);
  if (nPositive > 0) clenshawBlock(series(kAiryPositive), uPositive, rPositive, nPositive);
  if (nNegative > 0) {
    clenshawBlock(series(kAiryNegativeSine), uNegative, rSine, nNegative);
    clenshawBlock(series(kAiryNegativeCosine), uNegative, rCosine, nNegative);
  }
  for (int64_t j = 0; j < nMiddle; ++j) out[middle[j]] = rMiddle[j];
  for (int64_t j = 0; j < nPositive; ++j) out[positive[j]] = special::airyDecaying(rPositive[j], farPositive[j]);
  for (int64_t j = 0; j < nNegative; ++j)
    out[negative[j]] = special::airyOscillating(rSine[j], rCosine[j], farNegative[j]);
}

// A unary kernel of T computed in double a block at a time by `block`.
template <class T, void (*Block)(const double*, double*, int64_t)>
void blockKernel(const Tensor& a, Tensor& out, SourceLoc) {
  const T* x = a.data<T>();
  T* o = out.data<T>();
  if (!a.isContiguous()) {  // copied into out first, then computed in place
    unaryLoop<T, T>(a, out, [](T v) { return v; });
    x = o;
  }
  forEachSpan(out.numel(), [&](int64_t lo, int64_t hi) {
    alignas(64) double in[kBlock], r[kBlock];
    for (int64_t b = lo; b < hi; b += kBlock) {
      int64_t count = std::min(kBlock, hi - b);
      for (int64_t k = 0; k < count; ++k) in[k] = static_cast<double>(x[b + k]);
      Block(in, r, count);
      for (int64_t k = 0; k < count; ++k) o[b + k] = static_cast<T>(r[k]);
    }
  });
}

template <class T>
void registerBlockKernels(KernelTable& t) {
  t.addUnary(Op::I0, dtypeOf<T>(), blockKernel<T, besselIBlockOf<0, false>>);
  t.addUnary(Op::I0e, dtypeOf<T>(), blockKernel<T, besselIBlockOf<0, true>>);
  t.addUnary(Op::I1, dtypeOf<T>(), blockKernel<T, besselIBlockOf<1, false>>);
  t.addUnary(Op::I1e, dtypeOf<T>(), blockKernel<T, besselIBlockOf<1, true>>);
  t.addUnary(Op::AiryAi, dtypeOf<T>(), blockKernel<T, airyBlock>);
}

}  // namespace

void registerCpuBesselKernels(KernelTable& t) {
  registerBlockKernels<float>(t);
  registerBlockKernels<double>(t);
}

}  // namespace nn::rt
