// The four forms of nn's single-precision erf (erf_f32.h). a = |x| in
// double; on [0, 4) interval i = floor(2a) (eight of them); erf(a) is
// a * q0(a^2) on the first, where erf(a) / a is even and a tiny a keeps
// its relative precision, and qi(a - (i/2 + 1/4)) on the others; from 4
// on (erfc(4) = 1.5e-8, below half a float's ULP of 1) it is 1. Each q is
// a degree-9 polynomial evaluated by Horner's rule; kTerms holds their
// coefficients, printed by tools/erf_coefficients.py. The result is
// rounded to float once, and takes x's sign. A NaN stays a NaN (callers
// make it the default quiet NaN). Built with -ffp-contract=off (CMake):
// a fused multiply-add in one form and not in another would change bits.
#include "runtime/erf_f32.h"

#include <cmath>
#include <cstdint>

// GCC 12's AVX-512 intrinsics read a deliberately undefined vector
// (`__m512i __Y = __Y`) that -Wuninitialized reports where they are
// inlined (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace {

constexpr int kDegree = 9;

// kTerms[k][i]: interval i's coefficient of t^(9 - k).
alignas(64) const double kTerms[kDegree + 1][8] = {
    {-0x1.39fb524e9c1f7p-23, -0x1.fb814478c2dcep-9, 0x1.b20e3c899f6acp-11, 0x1.d437ae4aef267p-11,
     -0x1.78acd29adaad0p-12, -0x1.34ef979d20a47p-14, 0x1.ab1bf1345d948p-16, 0x1.a20720223425cp-18},
    {0x1.b776442df3041p-20, 0x1.314afb8e0c830p-9, -0x1.6d55239009effp-8, 0x1.5b0e1a4d2432dp-11,
     0x1.0572cb8a36da3p-10, -0x1.5160089f6d682p-14, -0x1.57dabe66002a1p-14, -0x1.8318a5a00706fp-17},
    {-0x1.f4bb9f7301dedp-17, 0x1.2df4fa39d70a9p-6, 0x1.db9e8d07b65e3p-9, -0x1.8d0fddf73a62dp-8,
     -0x1.5fcd8fe773e58p-11, 0x1.52c7e85447f1fp-11, 0x1.648ceb3487cb4p-13, 0x1.10f1b9d597b9cp-16},
    {0x1.f9a2a6635fe79p-14, -0x1.b84da44b04102p-6, 0x1.5ce3d4533295cp-6, 0x1.25d28d981f797p-7,
     -0x1.7ca9e7ba20d73p-9, -0x1.b294cedab22f7p-10, -0x1.144fa32c092a1p-12, -0x1.42f7be37f9dafp-16},
    {-0x1.c02db23d41138p-11, -0x1.b429d9cf73a27p-5, -0x1.8281ee60bf0a3p-5, 0x1.b2225149590bep-8,
     0x1.5d3b3253bb995p-7, 0x1.69357cb858190p-9, 0x1.490a268a47620p-12, 0x1.34375d65f19afp-16},
    {0x1.565bcd0aa6349p-8, 0x1.349b6308102c0p-3, -0x1.93a72422b6d19p-8, -0x1.8a0dd19007adcp-5,
     -0x1.38a9862eaa4f9p-6, -0x1.ab0bcd679b18fp-9, -0x1.2c7d79c223fcep-12, -0x1.d073a1a25afcfp-17},
    {-0x1.b82ce3127f739p-6, 0x1.b6e8582494d8ap-6, 0x1.571d01d5eb794p-3, 0x1.7148c3d6519c8p-4,
     0x1.63ef61cd8d696p-6, 0x1.69cf469f5b444p-9, 0x1.9aa48a7e5d506p-13, 0x1.0b6a788c56849p-17},
    {0x1.ce2f21a042b29p-4, -0x1.edc56447ad525p-2, -0x1.2ebf3de0b99fap-2, -0x1.7a4a89ff9b904p-4,
     -0x1.074b60f2c1b21p-6, -0x1.a6a51b08541edp-10, -0x1.8de3cc53cb791p-14, -0x1.bba38a01132b4p-19},
    {-0x1.812746b0379e6p-2, 0x1.492e42d78fae5p-1, 0x1.e4652fadc6408p-3, 0x1.b055303220786p-5,
     0x1.d4143a9e209edp-8, 0x1.3360ccd1fd026p-11, 0x1.e9b5e8ce811bep-16, 0x1.d9371e3cd26b8p-21},
    {0x1.20dd750429b6dp+0, 0x1.6c1c9759d1980p-1, 0x1.d8865d98af176p-1, 0x1.f92d077f8b91cp-1,
     0x1.ff404760318b9p-1, 0x1.fff2cfb045771p-1, 0x1.ffff6f9f67e33p-1, 0x1.fffffc2f171b7p-1},
};

// 2^52: added to an integer-valued double below 2^52, its low bits are the
// integer (the interval's index, for the permutes).
constexpr double kIndexBias = 0x1p52;

// Row k's coefficient of each lane's interval i (AVX2): picked from the
// row's two halves by a 32-bit permute each (`pair` holds lanes 2j and
// 2j + 1, a double's two halves, for j = i mod 4) and a blend on i >= 4.
__attribute__((target("avx2"))) inline __m256d term(int k, __m256i pair, __m256d upper) {
  __m256 low = _mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_load_pd(kTerms[k])), pair);
  __m256 high = _mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_load_pd(kTerms[k] + 4)), pair);
  return _mm256_blendv_pd(_mm256_castps_pd(low), _mm256_castps_pd(high), upper);
}

// erf of four lanes of a = |x| (AVX2).
__attribute__((target("avx2"))) __m256d erfOfMagnitude(__m256d a) {
  __m256d interval = _mm256_min_pd(_mm256_floor_pd(_mm256_mul_pd(a, _mm256_set1_pd(2.0))), _mm256_set1_pd(7.0));
  __m256i index = _mm256_castpd_si256(_mm256_add_pd(interval, _mm256_set1_pd(kIndexBias)));
  __m256i j = _mm256_and_si256(index, _mm256_set1_epi64x(3));
  __m256i pair = _mm256_or_si256(_mm256_slli_epi64(j, 1),
                                 _mm256_add_epi64(_mm256_slli_epi64(j, 33), _mm256_set1_epi64x(int64_t{1} << 32)));
  __m256d upper = _mm256_cmp_pd(a, _mm256_set1_pd(2.0), _CMP_GE_OQ);
  __m256d first = _mm256_cmp_pd(a, _mm256_set1_pd(0.5), _CMP_LT_OQ);
  __m256d centre = _mm256_add_pd(_mm256_mul_pd(interval, _mm256_set1_pd(0.5)), _mm256_set1_pd(0.25));
  __m256d t = _mm256_blendv_pd(_mm256_sub_pd(a, centre), _mm256_mul_pd(a, a), first);
  __m256d q = term(0, pair, upper);
  for (int k = 1; k <= kDegree; ++k) q = _mm256_add_pd(_mm256_mul_pd(q, t), term(k, pair, upper));
  q = _mm256_blendv_pd(q, _mm256_mul_pd(q, a), first);
  return _mm256_blendv_pd(q, _mm256_set1_pd(1.0), _mm256_cmp_pd(a, _mm256_set1_pd(4.0), _CMP_GE_OQ));
}

// The same for eight lanes (AVX-512F): one permute per coefficient.
__attribute__((target("avx512f"))) __m512d erfOfMagnitude(__m512d a) {
  __m512d interval = _mm512_min_pd(_mm512_roundscale_pd(_mm512_mul_pd(a, _mm512_set1_pd(2.0)), _MM_FROUND_TO_NEG_INF),
                                   _mm512_set1_pd(7.0));
  __m512i index = _mm512_castpd_si512(_mm512_add_pd(interval, _mm512_set1_pd(kIndexBias)));
  __mmask8 first = _mm512_cmp_pd_mask(a, _mm512_set1_pd(0.5), _CMP_LT_OQ);
  __m512d centre = _mm512_add_pd(_mm512_mul_pd(interval, _mm512_set1_pd(0.5)), _mm512_set1_pd(0.25));
  __m512d t = _mm512_mask_mul_pd(_mm512_sub_pd(a, centre), first, a, a);
  __m512d q = _mm512_permutexvar_pd(index, _mm512_load_pd(kTerms[0]));
  for (int k = 1; k <= kDegree; ++k)
    q = _mm512_add_pd(_mm512_mul_pd(q, t), _mm512_permutexvar_pd(index, _mm512_load_pd(kTerms[k])));
  q = _mm512_mask_mul_pd(q, first, q, a);
  return _mm512_mask_mov_pd(q, _mm512_cmp_pd_mask(a, _mm512_set1_pd(4.0), _CMP_GE_OQ), _mm512_set1_pd(1.0));
}

}  // namespace

extern "C" {

float nn_erff1(float x) {
  double a = std::fabs(static_cast<double>(x));
  if (!(a < 4.0)) return a >= 4.0 ? std::copysign(1.0f, x) : x + x;
  int i = static_cast<int>(std::floor(a * 2.0));
  double t = i == 0 ? a * a : a - (i * 0.5 + 0.25);
  double q = kTerms[0][i];
  for (int k = 1; k <= kDegree; ++k) q = q * t + kTerms[k][i];
  if (i == 0) q = q * a;
  return std::copysign(static_cast<float>(q), x);
}

// Four lanes are rare (CPUs without AVX2, a loop the JIT vectorises by
// four): the scalar form per lane.
__m128 nn_erff4(__m128 x) {
  alignas(16) float v[4];
  _mm_store_ps(v, x);
  for (float& e : v) e = nn_erff1(e);
  return _mm_load_ps(v);
}

// The results are >= 0 before x's sign is set, so setting it is an or.
__attribute__((target("avx2"))) __m256 nn_erff8(__m256 x) {
  __m256 sign = _mm256_and_ps(x, _mm256_set1_ps(-0.0f));
  __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  __m128 low = _mm256_cvtpd_ps(erfOfMagnitude(_mm256_cvtps_pd(_mm256_castps256_ps128(a))));
  __m128 high = _mm256_cvtpd_ps(erfOfMagnitude(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1))));
  return _mm256_or_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(low), high, 1), sign);
}

__attribute__((target("avx512f"))) __m512 nn_erff16(__m512 x) {
  __m512i bits = _mm512_castps_si512(x);
  __m512i sign = _mm512_and_si512(bits, _mm512_set1_epi32(INT32_MIN));
  __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(_mm512_set1_epi32(INT32_MIN), bits));
  __m256 low = _mm512_cvtpd_ps(erfOfMagnitude(_mm512_cvtps_pd(_mm512_castps512_ps256(a))));
  __m256 high = _mm512_cvtpd_ps(
      erfOfMagnitude(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)))));
  __m512d both = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(low)), _mm256_castps_pd(high), 1);
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castpd_si512(both), sign));
}

}  // extern "C"
