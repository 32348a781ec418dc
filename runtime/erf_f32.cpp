// The four forms of nn's single-precision erf (erf_f32.h), in float
// arithmetic with fused multiply-adds. a = |x|. Below 1/2, erf(a) = a *
// (c0 + s * Q(s)) with s = a^2 (erf(a) / a is even; a tiny a keeps its
// relative precision), c0 = 2 / sqrt(pi) in two floats, a * c0's high
// part added last by a fused multiply-add. From 1/2 to 4, on the interval
// [j/4, (j + 1)/4), erf(a) = hi + (p1 * t + (lo + t^2 * R(t))) with t = a -
// (j/4 + 1/8) (exact), where hi + lo is the value at the centre in two
// floats, so only the last addition rounds at the result's scale and the
// linear term rounds once. From 4 on (erfc(4) = 1.5e-8, below half a
// float's ULP of 1) it is 1. Then x's sign; a NaN stays a NaN (callers
// make it the default quiet NaN). The coefficients are printed by
// tools/erf_coefficients.py. A fused multiply-add rounds once in every
// form (the scalar's std::fma too, in hardware or not), so all four give
// the same bits; no other product and sum is fused (-ffp-contract=off,
// CMake). Checked over every float against libm's double erf: at most 0.75
// ULP from it (a denormal result, rounded twice), 0.73 for normal ones;
// tests/unit/erf_f32_test.cpp checks a sweep.
#include "runtime/erf_f32.h"

#include <cmath>
#include <cstdint>

// GCC 12's AVX-512 intrinsics read a deliberately undefined vector
// (`__m512i __Y = __Y`) that -Wuninitialized (or, in a ThreadSanitizer
// build, -Wmaybe-uninitialized) reports where they are inlined (GCC bug
// 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__  // which has no such warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace {

// Q's coefficients, highest power first; c0 = 2 / sqrt(pi) = kC0High + kC0Low.
constexpr float kSmall[5] = {-0x1.9a9748p-11f, 0x1.5558e2p-8f, -0x1.b82726p-6f, 0x1.ce2f16p-4f, -0x1.812746p-2f};
constexpr float kC0High = 0x1.20dd76p+0f, kC0Low = -0x1.f7ac92p-25f;

// Below 1/2, a is scaled by 2^24 and the result back (exactly, but for a
// denormal result): a * lo would otherwise underflow for a tiny a.
constexpr float kScale = 0x1p24f, kUnscale = 0x1p-24f;

// Per interval j (entries 0 and 1, below 1/2, unused): hi, lo, p1, then
// R's coefficients, highest power first.
constexpr int kRows = 8;
alignas(64) const float kTerms[kRows][16] = {
    {0.0f, 0.0f, 0x1.3f196ep-1f, 0x1.91724ap-1f, 0x1.c6dad2p-1f, 0x1.e5768cp-1f,
     0x1.f4f694p-1f, 0x1.fbe61ep-1f, 0x1.fea422p-1f, 0x1.ff996p-1f, 0x1.ffe514p-1f, 0x1.fff9bap-1f,
     0x1.fffeb4p-1f, 0x1.ffffc4p-1f, 0x1.fffff6p-1f, 0x1.fffffep-1f},
    {0.0f, 0.0f, -0x1.978766p-28f, -0x1.5c8e08p-26f, 0x1.053d8cp-26f, 0x1.da51fep-28f,
     -0x1.2610a2p-27f, 0x1.de99eep-26f, -0x1.ca69aep-27f, 0x1.e7d664p-26f, 0x1.77b832p-26f, 0x1.083a0ep-27f,
     -0x1.44d984p-29f, -0x1.d24c26p-26f, 0x1.8c3da6p-29f, 0x1.259db2p-26f},
    {0.0f, 0.0f, 0x1.86e96ap-1f, 0x1.0cab62p-1f, 0x1.45e99cp-2f, 0x1.5ce596p-3f,
     0x1.499d46p-4f, 0x1.12ceb2p-5f, 0x1.94624cp-7f, 0x1.06918cp-8f, 0x1.2ce89ep-10f, 0x1.30539ep-12f,
     0x1.0f9e3ap-14f, 0x1.abe0fcp-17f, 0x1.296ae6p-19f, 0x1.6ce298p-22f},
    {0.0f, 0.0f, -0x1.5133dp-5f, -0x1.555ebep-7f, 0x1.f7ba26p-7f, 0x1.692efep-6f,
     0x1.d7d21ep-7f, 0x1.0f965ep-8f, -0x1.d392e4p-10f, -0x1.960914p-9f, -0x1.265e2p-9f, -0x1.2bd4c2p-10f,
     -0x1.dd798cp-12f, -0x1.363122p-13f, -0x1.503808p-15f, -0x1.3417fcp-17f},
    {0.0f, 0.0f, -0x1.baf0fcp-6f, -0x1.113d9ap-4f, -0x1.f43698p-5f, -0x1.f612p-6f,
     -0x1.2de508p-9f, 0x1.73324ap-7f, 0x1.97c5a6p-7f, 0x1.11f5a8p-7f, 0x1.15a346p-8f, 0x1.c4e87ep-10f,
     0x1.325244p-11f, 0x1.5d57aap-13f, 0x1.5365f6p-15f, 0x1.1ae044p-17f},
    {0.0f, 0.0f, 0x1.69630ap-3f, 0x1.cc60cp-4f, 0x1.ca55e4p-6f, -0x1.f3b506p-6f,
     -0x1.974bcp-5f, -0x1.5a3208p-5f, -0x1.afe69p-6f, -0x1.ae5a72p-7f, -0x1.62d4e8p-8f, -0x1.ed48dap-10f,
     -0x1.24512p-11f, -0x1.29894p-13f, -0x1.056cc8p-15f, -0x1.8e0a26p-18f},
    {0.0f, 0.0f, -0x1.c8168p-5f, 0x1.7c995p-4f, 0x1.4cb2bcp-3f, 0x1.4375p-3f,
     0x1.d6647ep-4f, 0x1.143e36p-4f, 0x1.0ea54ep-5f, 0x1.c1ebdcp-7f, 0x1.407d5p-8f, 0x1.89d9eap-10f,
     0x1.a3642cp-12f, 0x1.843aap-14f, 0x1.392dfap-16f, 0x1.b92406p-19f},
    {0.0f, 0.0f, -0x1.e8a3c4p-2f, -0x1.d62becp-2f, -0x1.6ea6dp-2f, -0x1.dfbbaep-3f,
     -0x1.0bcfcap-3f, -0x1.01a1c8p-4f, -0x1.ada872p-6f, -0x1.37ccd4p-7f, -0x1.8af148p-9f, -0x1.b5782p-11f,
     -0x1.a86712p-13f, -0x1.690592p-15f, -0x1.0d8888p-17f, -0x1.617ac8p-20f},
};

// The vector forms' steps that differ between instruction sets, as
// overloads for 8 lanes (AVX2) and 16 (AVX-512F). Interval j's entry of
// row k in each lane: 16 lanes take it by one permute; 8 permute each half
// of the row and blend on j >= 8.
#define NN_AVX2 __attribute__((target("avx2,fma")))
#define NN_AVX512 __attribute__((target("avx512f")))
NN_AVX2 inline __m256 term(int k, __m256i j) {
  __m256 upper = _mm256_castsi256_ps(_mm256_cmpgt_epi32(j, _mm256_set1_epi32(7)));
  return _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_load_ps(kTerms[k]), j),
                          _mm256_permutevar8x32_ps(_mm256_load_ps(kTerms[k] + 8), j), upper);
}
NN_AVX512 inline __m512 term(int k, __m512i j) { return _mm512_permutexvar_ps(j, _mm512_load_ps(kTerms[k])); }
// |x|, and r (>= 0) with x's sign.
NN_AVX2 inline __m256 magnitude(__m256 x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
NN_AVX512 inline __m512 magnitude(__m512 x) {
  return _mm512_castsi512_ps(_mm512_andnot_si512(_mm512_set1_epi32(INT32_MIN), _mm512_castps_si512(x)));
}
NN_AVX2 inline __m256 withSign(__m256 r, __m256 x) { return _mm256_or_ps(r, _mm256_and_ps(x, _mm256_set1_ps(-0.0f))); }
NN_AVX512 inline __m512 withSign(__m512 r, __m512 x) {
  __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), sign));
}
// r, or `other` in the lanes where a < c (below) or a >= c (atLeast).
NN_AVX2 inline __m256 below(__m256 a, float c, __m256 r, __m256 other) {
  return _mm256_blendv_ps(r, other, _mm256_cmp_ps(a, _mm256_set1_ps(c), _CMP_LT_OQ));
}
NN_AVX512 inline __m512 below(__m512 a, float c, __m512 r, __m512 other) {
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, _mm512_set1_ps(c), _CMP_LT_OQ), other);
}
NN_AVX2 inline __m256 atLeast(__m256 a, float c, __m256 r, __m256 other) {
  return _mm256_blendv_ps(r, other, _mm256_cmp_ps(a, _mm256_set1_ps(c), _CMP_GE_OQ));
}
NN_AVX512 inline __m512 atLeast(__m512 a, float c, __m512 r, __m512 other) {
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, _mm512_set1_ps(c), _CMP_GE_OQ), other);
}
#undef NN_AVX2
#undef NN_AVX512

// One vector form: the scalar form's steps on vectors V, their intrinsics
// named by prefix P (_mm256, _mm512), compiled for instruction set Target.
// (A macro: a function's instruction set cannot be a template argument.)
// The min makes a NaN (or a >= 4) take the last interval, whose result is
// replaced.
#define NN_ERF_FORM(Name, Target, V, P)                                                                   \
  Target V Name(V x) {                                                                                   \
    V a = magnitude(x);                                                                                  \
    V s = P##_mul_ps(a, a), q = P##_set1_ps(kSmall[0]), scaled = P##_mul_ps(a, P##_set1_ps(kScale));     \
    for (int k = 1; k < 5; ++k) q = P##_fmadd_ps(q, s, P##_set1_ps(kSmall[k]));                           \
    V inner = P##_mul_ps(scaled, P##_fmadd_ps(s, q, P##_set1_ps(kC0Low)));                                \
    V small = P##_mul_ps(P##_fmadd_ps(scaled, P##_set1_ps(kC0High), inner), P##_set1_ps(kUnscale));       \
    auto j = P##_cvttps_epi32(P##_min_ps(P##_mul_ps(a, P##_set1_ps(4.0f)), P##_set1_ps(15.0f)));          \
    V centre = P##_add_ps(P##_mul_ps(P##_cvtepi32_ps(j), P##_set1_ps(0.25f)), P##_set1_ps(0.125f));       \
    V t = P##_sub_ps(a, centre);                                                                          \
    V p = term(3, j);                                                                                     \
    for (int k = 4; k < kRows; ++k) p = P##_fmadd_ps(p, t, term(k, j));                                   \
    V rest = P##_fmadd_ps(term(2, j), t, P##_fmadd_ps(p, P##_mul_ps(t, t), term(1, j)));                  \
    V r = below(a, 0.5f, P##_add_ps(term(0, j), rest), small);                                            \
    return withSign(atLeast(a, 4.0f, r, P##_set1_ps(1.0f)), x);                                           \
  }

}  // namespace

extern "C" {

float nn_erff1(float x) {
  float a = std::fabs(x);
  if (!(a < 4.0f)) return a >= 4.0f ? std::copysign(1.0f, x) : x + x;
  float r;
  if (a < 0.5f) {
    float s = a * a, q = kSmall[0], scaled = a * kScale;
    for (int k = 1; k < 5; ++k) q = std::fma(q, s, kSmall[k]);
    r = std::fma(scaled, kC0High, scaled * std::fma(s, q, kC0Low)) * kUnscale;
  } else {
    int j = static_cast<int>(a * 4.0f);
    float t = a - (static_cast<float>(j) * 0.25f + 0.125f);
    float q = kTerms[3][j];
    for (int k = 4; k < kRows; ++k) q = std::fma(q, t, kTerms[k][j]);
    r = kTerms[0][j] + std::fma(kTerms[2][j], t, std::fma(q, t * t, kTerms[1][j]));
  }
  return std::copysign(r, x);
}

// Four lanes are rare (CPUs without AVX2, a loop the JIT vectorises by
// four): the scalar form per lane.
__m128 nn_erff4(__m128 x) {
  alignas(16) float v[4];
  _mm_store_ps(v, x);
  for (float& e : v) e = nn_erff1(e);
  return _mm_load_ps(v);
}

NN_ERF_FORM(nn_erff8, __attribute__((target("avx2,fma"))), __m256, _mm256)
NN_ERF_FORM(nn_erff16, __attribute__((target("avx512f"))), __m512, _mm512)
#undef NN_ERF_FORM

}  // extern "C"
