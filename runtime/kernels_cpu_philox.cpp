// The vectorised Philox batches of philox_batch.h: portable C++ (which
// the compiler vectorises as it can), AVX2 and AVX-512 forms.
#include "runtime/philox_batch.h"

#include <immintrin.h>

#include "runtime/random.h"

namespace nn::rt {
namespace {

constexpr int kBatch = kPhiloxBatch;

// philoxRounds<kBatch> with the 32 x 32 -> 64-bit products written out
// (productHalves): the even lanes' and the odd lanes' products, their
// halves blended back into lanes. The compiler's own vectorisation of the
// widening multiply spends most of its instructions shuffling lanes (half
// of randn's time went to the rounds). The same integer operations, so the
// same bits.
__attribute__((target("avx2"))) inline void productHalves(__m256i a, __m256i m, __m256i& high, __m256i& low) {
  __m256i even = _mm256_mul_epu32(a, m), odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
  high = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  low = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

__attribute__((target("avx2"))) void philoxRoundsAvx2(uint32_t (&c)[4][kBatch], std::array<uint32_t, 2> key) {
  static_assert(kBatch % 8 == 0);
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kPhiloxM0)), m1 = _mm256_set1_epi32(static_cast<int>(kPhiloxM1));
  for (int v = 0; v < kBatch; v += 8) {
    __m256i c0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c[0] + v));
    __m256i c1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c[1] + v));
    __m256i c2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c[2] + v));
    __m256i c3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c[3] + v));
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round, k0 += kPhiloxW0, k1 += kPhiloxW1) {
      __m256i high0, low0, high1, low1;
      productHalves(c0, m0, high0, low0);
      productHalves(c2, m1, high1, low1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(high1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
      c2 = _mm256_xor_si256(_mm256_xor_si256(high0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
      c1 = low1;
      c3 = low0;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c[0] + v), c0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c[1] + v), c1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c[2] + v), c2);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c[3] + v), c3);
  }
}

// GCC 12's AVX-512 intrinsics read a deliberately undefined vector that
// -Wuninitialized (or -Wmaybe-uninitialized) reports where they are
// inlined (GCC bug 105593; as in erf_f32.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) inline void productHalves(__m512i a, __m512i m, __m512i& high, __m512i& low) {
  __m512i even = _mm512_mul_epu32(a, m), odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
  high = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
  low = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}

// The whole batch in AVX-512's 16 lanes: the counters made, the rounds,
// and the words moved into stream order (block j's four words at 4j) by
// transposing 4 x 4 words within each 128-bit lane, then the lanes.
__attribute__((target("avx512f"))) void philoxBatchAvx512(uint64_t first, std::array<uint32_t, 2> key,
                                                           uint32_t* words) {
  static_assert(kBatch == 16);
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kPhiloxM0)), m1 = _mm512_set1_epi32(static_cast<int>(kPhiloxM1));
  const __m512i firstLow = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(first)));
  __m512i c0 = _mm512_add_epi32(firstLow, _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  __m512i high = _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(first >> 32)));
  // A counter whose low word wrapped around carries into its high word.
  __m512i c1 = _mm512_mask_add_epi32(high, _mm512_cmplt_epu32_mask(c0, firstLow), high, _mm512_set1_epi32(1));
  __m512i c2 = _mm512_setzero_si512(), c3 = _mm512_setzero_si512();
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round, k0 += kPhiloxW0, k1 += kPhiloxW1) {
    __m512i high0, low0, high1, low1;
    productHalves(c0, m0, high0, low0);
    productHalves(c2, m1, high1, low1);
    c0 = _mm512_xor_si512(_mm512_xor_si512(high1, c1), _mm512_set1_epi32(static_cast<int>(k0)));
    c2 = _mm512_xor_si512(_mm512_xor_si512(high0, c3), _mm512_set1_epi32(static_cast<int>(k1)));
    c1 = low1;
    c3 = low0;
  }
  // In each 128-bit lane L, rK: block 4L + K's words c0..c3.
  __m512i t0 = _mm512_unpacklo_epi32(c0, c1), t1 = _mm512_unpackhi_epi32(c0, c1);
  __m512i t2 = _mm512_unpacklo_epi32(c2, c3), t3 = _mm512_unpackhi_epi32(c2, c3);
  __m512i r0 = _mm512_unpacklo_epi64(t0, t2), r1 = _mm512_unpackhi_epi64(t0, t2);
  __m512i r2 = _mm512_unpacklo_epi64(t1, t3), r3 = _mm512_unpackhi_epi64(t1, t3);
  // Output vector L: lane L of r0, r1, r2, r3.
  __m512i u0 = _mm512_shuffle_i64x2(r0, r1, 0x44), u1 = _mm512_shuffle_i64x2(r2, r3, 0x44);
  __m512i u2 = _mm512_shuffle_i64x2(r0, r1, 0xEE), u3 = _mm512_shuffle_i64x2(r2, r3, 0xEE);
  _mm512_storeu_si512(words, _mm512_shuffle_i64x2(u0, u1, 0x88));
  _mm512_storeu_si512(words + 16, _mm512_shuffle_i64x2(u0, u1, 0xDD));
  _mm512_storeu_si512(words + 32, _mm512_shuffle_i64x2(u2, u3, 0x88));
  _mm512_storeu_si512(words + 48, _mm512_shuffle_i64x2(u2, u3, 0xDD));
}
#pragma GCC diagnostic pop

}  // namespace

PhiloxPath widestPhiloxPath() {
  static const PhiloxPath widest = __builtin_cpu_supports("avx512f") ? PhiloxPath::Avx512
                                   : __builtin_cpu_supports("avx2") ? PhiloxPath::Avx2
                                                                     : PhiloxPath::Portable;
  return widest;
}

void philoxBatch(uint64_t first, std::array<uint32_t, 2> key, uint32_t* words, PhiloxPath path) {
  if (path == PhiloxPath::Avx512) {
    philoxBatchAvx512(first, key, words);
    return;
  }
  uint32_t c[4][kBatch] = {};
  for (int j = 0; j < kBatch; ++j) {
    uint64_t counter = first + static_cast<uint64_t>(j);
    c[0][j] = static_cast<uint32_t>(counter);
    c[1][j] = static_cast<uint32_t>(counter >> 32);
  }
  if (path == PhiloxPath::Avx2) philoxRoundsAvx2(c, key);
  else philoxRounds<kBatch>(c, key);
  for (int j = 0; j < kBatch; ++j)
    for (int k = 0; k < 4; ++k) words[4 * j + k] = c[k][j];
}

}  // namespace nn::rt
