// The CPU kernels of f32 tensors' transcendental math (exp, log, tanh,
// sigmoid, gelu, ...) over blocks of elements through SLEEF's vector
// forms (vector_math.h), in place of kernels_cpu_math.cpp's element-by-
// element libm calls; f64 tensors keep those, which a Python float's math
// shares. Each op is the formula float_unary.def gives it, with SLEEF's
// function (nn's, for erf: erf_f32.h) where that has libm's, computed in
// the same order, so that the JIT's fused kernels (jit/
// elementwise_codegen.cpp), which call the same functions, give the same
// bits. sinh, cosh, asinh and acosh stay on libm (sleef_functions.def says
// why).
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "runtime/kernel_loops.h"
#include "runtime/sleef_functions.h"
#include "runtime/vector_math.h"

namespace nn::rt {
namespace {

using ir::Op;
using vmath::Fn;

// Elements per block: an input, a temporary and an output block stay in
// the first-level cache.
constexpr int64_t kMathBlock = 512;

// One op over `count` elements: y[i] from x[i], with `t` a block of
// scratch; y may be x (an output written over its dead input).
using MathBlock = void (*)(const float* x, float* y, float* t, int64_t count);

// `block` over every element of a in order, into out: a strided a is
// first copied into out (row by row, or in tiles for a transpose, as any
// unary kernel reads it), the blocks then computed in place; split across
// the cores from kParallelThreshold elements up.
void mathBlockLoop(const Tensor& a, Tensor& out, MathBlock block) {
  const float* x = a.data<float>();
  float* o = out.data<float>();
  int64_t n = out.numel();
  if (!a.isContiguous()) {
    unaryLoop<float, float>(a, out, [](float v) { return v; });
    x = o;
  }
  auto range = [&](int64_t lo, int64_t hi) {
    alignas(64) float scratch[kMathBlock];
    for (int64_t b = lo; b < hi; b += kMathBlock) block(x + b, o + b, scratch, std::min(kMathBlock, hi - b));
  };
  if (n < kParallelThreshold) return range(0, n);
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    range(n * t / nt, n * (t + 1) / nt);
  }
}

template <Fn F>
void sleefBlock(const float* x, float* y, float*, int64_t n) {
  vmath::apply(F, x, y, n);
}

void log1pBlock(const float* x, float* y, float* t, int64_t n) {
  vmath::apply(Fn::Log1p, x, t, n);
  for (int64_t i = 0; i < n; ++i) {
    float v = t[i];
    if (x[i] > sleef::kLog1pLargest) vmath::apply(Fn::Log, x + i, &v, 1);
    y[i] = v;
  }
}

void sigmoidBlock(const float* x, float* y, float* t, int64_t n) {
  for (int64_t i = 0; i < n; ++i) t[i] = -x[i];
  vmath::apply(Fn::Exp, t, t, n);
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + t[i]);
}

void siluBlock(const float* x, float* y, float* t, int64_t n) {
  for (int64_t i = 0; i < n; ++i) t[i] = -x[i];
  vmath::apply(Fn::Exp, t, t, n);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + t[i]);
}

void geluBlock(const float* x, float* y, float* t, int64_t n) {
  const float root2 = std::sqrt(2.0f);
  for (int64_t i = 0; i < n; ++i) t[i] = x[i] / root2;
  vmath::apply(Fn::Erf, t, t, n);
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.0f + t[i]);
}

// silu's derivative (float_unary.def's SiluGrad).
void siluGradBlock(const float* x, float* y, float* t, int64_t n) {
  for (int64_t i = 0; i < n; ++i) t[i] = -x[i];
  vmath::apply(Fn::Exp, t, t, n);
  for (int64_t i = 0; i < n; ++i) {
    float s = 1.0f / (1.0f + t[i]);
    y[i] = s * (1.0f + x[i] * (1.0f - s));
  }
}

// gelu's derivative (float_unary.def's GeluGrad): the exponential's
// argument in a block of its own, as y may be x.
void geluGradBlock(const float* x, float* y, float* t, int64_t n) {
  const float root = static_cast<float>(M_SQRT1_2), scale = static_cast<float>(0.5 * M_2_SQRTPI * M_SQRT1_2);
  alignas(64) float e[kMathBlock];
  for (int64_t i = 0; i < n; ++i) {
    t[i] = x[i] * root;
    e[i] = x[i] * x[i] * -0.5f;
  }
  vmath::apply(Fn::Erf, t, t, n);
  vmath::apply(Fn::Exp, e, e, n);
  for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * (1.0f + t[i]) + x[i] * (scale * e[i]);
}

// log1p's own range is enough here: e^x <= e^20 where the result is used.
void softplusBlock(const float* x, float* y, float* t, int64_t n) {
  vmath::apply(Fn::Exp, x, t, n);
  vmath::apply(Fn::Log1p, t, t, n);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 20.0f ? x[i] : t[i];
}

template <MathBlock B>
void sleefKernel(const Tensor& a, Tensor& out, SourceLoc) {
  mathBlockLoop(a, out, B);
}

}  // namespace

void registerCpuFloat32MathKernels(KernelTable& r) {
  r.addUnary(Op::Exp, DType::F32, sleefKernel<sleefBlock<Fn::Exp>>);
  r.addUnary(Op::Expm1, DType::F32, sleefKernel<sleefBlock<Fn::Expm1>>);
  r.addUnary(Op::Log, DType::F32, sleefKernel<sleefBlock<Fn::Log>>);
  r.addUnary(Op::Log2, DType::F32, sleefKernel<sleefBlock<Fn::Log2>>);
  r.addUnary(Op::Log10, DType::F32, sleefKernel<sleefBlock<Fn::Log10>>);
  r.addUnary(Op::Sin, DType::F32, sleefKernel<sleefBlock<Fn::Sin>>);
  r.addUnary(Op::Cos, DType::F32, sleefKernel<sleefBlock<Fn::Cos>>);
  r.addUnary(Op::Tan, DType::F32, sleefKernel<sleefBlock<Fn::Tan>>);
  r.addUnary(Op::Tanh, DType::F32, sleefKernel<sleefBlock<Fn::Tanh>>);
  r.addUnary(Op::Atan, DType::F32, sleefKernel<sleefBlock<Fn::Atan>>);
  r.addUnary(Op::Asin, DType::F32, sleefKernel<sleefBlock<Fn::Asin>>);
  r.addUnary(Op::Acos, DType::F32, sleefKernel<sleefBlock<Fn::Acos>>);
  r.addUnary(Op::Atanh, DType::F32, sleefKernel<sleefBlock<Fn::Atanh>>);
  r.addUnary(Op::Exp2, DType::F32, sleefKernel<sleefBlock<Fn::Exp2>>);
  r.addUnary(Op::Lgamma, DType::F32, sleefKernel<sleefBlock<Fn::Lgamma>>);
  r.addUnary(Op::Erf, DType::F32, sleefKernel<sleefBlock<Fn::Erf>>);
  r.addUnary(Op::Log1p, DType::F32, sleefKernel<log1pBlock>);
  r.addUnary(Op::Sigmoid, DType::F32, sleefKernel<sigmoidBlock>);
  r.addUnary(Op::Silu, DType::F32, sleefKernel<siluBlock>);
  r.addUnary(Op::SiluGrad, DType::F32, sleefKernel<siluGradBlock>);
  r.addUnary(Op::Gelu, DType::F32, sleefKernel<geluBlock>);
  r.addUnary(Op::GeluGrad, DType::F32, sleefKernel<geluGradBlock>);
  r.addUnary(Op::Softplus, DType::F32, sleefKernel<softplusBlock>);
}

}  // namespace nn::rt
