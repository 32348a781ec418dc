// vmath::apply (vector_math.h): each SLEEF function over an array, in
// vectors of the widest form the CPU runs (their loops are compiled for
// that instruction set alone, and run only after the CPU said it has it),
// every NaN result made the default quiet NaN. The last partial vector
// takes one vector call too, padded with zeros (AVX-512: masked), as the
// scalar form is slower than a whole vector (SLEEF's tanhf: 54 ns; 16 of
// them: 58 ns).
#include "runtime/vector_math.h"

#include "runtime/sleef_functions.h"

namespace nn::rt::vmath {
namespace {

using Vector4 = __m128 (*)(__m128);
using Vector8 = __m256 (*)(__m256);
using Vector16 = __m512 (*)(__m512);

constexpr float kNaN = __builtin_nanf("");

// SSE2 has no blend: NaN lanes from the mask, the others from r.
inline __m128 quietNaNs(__m128 r) {
  __m128 nan = _mm_cmpunord_ps(r, r);
  return _mm_or_ps(_mm_and_ps(nan, _mm_set1_ps(kNaN)), _mm_andnot_ps(nan, r));
}

template <Vector4 F>
void map4(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, quietNaNs(F(_mm_loadu_ps(x + i))));
  if (i < n) {
    alignas(16) float pad[4] = {};
    for (int64_t k = i; k < n; ++k) pad[k - i] = x[k];
    _mm_store_ps(pad, quietNaNs(F(_mm_load_ps(pad))));
    for (int64_t k = i; k < n; ++k) y[k] = pad[k - i];
  }
}

template <Vector8 F>
__attribute__((target("avx"))) inline __m256 call8(__m256 v) {
  __m256 r = F(v);
  return _mm256_blendv_ps(r, _mm256_set1_ps(kNaN), _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
}

template <Vector8 F>
__attribute__((target("avx"))) void map8(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, call8<F>(_mm256_loadu_ps(x + i)));
  if (i < n) {
    alignas(32) float pad[8] = {};
    for (int64_t k = i; k < n; ++k) pad[k - i] = x[k];
    _mm256_store_ps(pad, call8<F>(_mm256_load_ps(pad)));
    for (int64_t k = i; k < n; ++k) y[k] = pad[k - i];
  }
}

template <Vector16 F>
__attribute__((target("avx512f"))) inline __m512 call16(__m512 v) {
  __m512 r = F(v);
  return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q), _mm512_set1_ps(kNaN));
}

template <Vector16 F>
__attribute__((target("avx512f"))) void map16(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, call16<F>(_mm512_loadu_ps(x + i)));
  if (i < n) {
    __mmask16 live = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, live, call16<F>(_mm512_maskz_loadu_ps(live, x + i)));
  }
}

template <Vector4 F4, Vector8 F8, Vector16 F16>
void map(const float* x, float* y, int64_t n) {
  int width = sleef::widestForm();
  if (width >= 16) return map16<F16>(x, y, n);
  if (width >= 8) return map8<F8>(x, y, n);
  map4<F4>(x, y, n);
}

}  // namespace

void apply(Fn fn, const float* x, float* y, int64_t n) {
  switch (fn) {
#define SLEEF_FUNCTION(Name, f)                                                                                \
  case Fn::Name:                                                                                               \
    return map<Sleef_cinz_##f##f4_u10sse2, Sleef_cinz_##f##f8_u10avx, Sleef_cinz_##f##f16_u10avx512fnofma>(x, y, \
                                                                                                           n);
#include "runtime/sleef_functions.def"
#undef SLEEF_FUNCTION
  }
}

}  // namespace nn::rt::vmath
