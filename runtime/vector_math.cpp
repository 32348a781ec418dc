// vmath::apply (vector_math.h): each SLEEF function (and nn's erf) over an
// array, in vectors of the widest form the CPU runs (their loops are
// compiled for that instruction set alone, and run only after the CPU said
// it has it), every NaN result made the default quiet NaN. The last
// partial vector takes one vector call too, padded with zeros (AVX-512:
// masked), as the scalar form is slower than a whole vector (SLEEF's
// tanhf: 54 ns; 16 of them: 58 ns). vmath::fmod likewise, for floats and
// doubles, with libm for the elements SLEEF's fmod gets wrong, and
// vmath::atan2 and vmath::hypot of floats; and vmath::boxMuller, SLEEF's
// double log and sincos, and vmath::logSumExp3, its double exp and log.
#include "runtime/vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

// Whether a vector has a NaN lane.
inline bool anyNaN(__m128 r) { return _mm_movemask_ps(_mm_cmpunord_ps(r, r)) != 0; }
inline bool anyNaN(__m128d r) { return _mm_movemask_pd(_mm_cmpunord_pd(r, r)) != 0; }
__attribute__((target("avx"))) inline bool anyNaN(__m256 r) {
  return _mm256_movemask_ps(_mm256_cmp_ps(r, r, _CMP_UNORD_Q)) != 0;
}
__attribute__((target("avx"))) inline bool anyNaN(__m256d r) {
  return _mm256_movemask_pd(_mm256_cmp_pd(r, r, _CMP_UNORD_Q)) != 0;
}
__attribute__((target("avx512f"))) inline bool anyNaN(__m512 r) { return _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q) != 0; }
__attribute__((target("avx512f"))) inline bool anyNaN(__m512d r) { return _mm512_cmp_pd_mask(r, r, _CMP_UNORD_Q) != 0; }

// One vector call of SLEEF's two-argument F on vectors V: out[0..w) = F(x, y),
// compiled for the instruction set F needs (Target); whether a result is
// NaN. (A macro: a function's instruction set cannot be a template
// argument, and a shared inlined body would pass V by value without it.)
#define NN_BINARY_CALL(Name, Target)                 \
  template <class T, class V, V (*F)(V, V)>          \
  Target bool Name(const T* x, const T* y, T* out) { \
    V a, b;                                          \
    std::memcpy(&a, x, sizeof a);                    \
    std::memcpy(&b, y, sizeof b);                    \
    V r = F(a, b);                                   \
    std::memcpy(out, &r, sizeof r);                  \
    return anyNaN(r);                                \
  }
NN_BINARY_CALL(binaryCall4, )
NN_BINARY_CALL(binaryCall8, __attribute__((target("avx"))))
NN_BINARY_CALL(binaryCall16, __attribute__((target("avx512f"))))
#undef NN_BINARY_CALL

// What binaryCalls does with the NaNs of a call: computes them again with
// libm's fmod (SLEEF's fmod is NaN where the quotient |x / y| is beyond
// about 2^127, FLT_MAX % 0.5 or 1 % a denormal; the true ones are rare),
// or makes them the default quiet NaN.
enum class NaNs { LibmFmod, Quiet };

// out[i] = F(x[i], y[i]) in calls of w elements; a single value x[0] or
// y[0] is broadcast, and the last partial call is padded with ones.
template <class T, int64_t w, bool (*Call)(const T*, const T*, T*), NaNs kNaNs>
void binaryCalls(const T* x, bool xSingle, const T* y, bool ySingle, T* out, int64_t n) {
  if (n <= 0) return;
  T xs[w], ys[w];
  for (int64_t k = 0; k < w; ++k) xs[k] = x[0], ys[k] = y[0];
  for (int64_t i = 0; i < n; i += w) {
    int64_t len = std::min(w, n - i);
    const T* a = xSingle ? xs : x + i;
    const T* b = ySingle ? ys : y + i;
    T padA[w], padB[w], r[w];
    if (len < w) {
      for (int64_t k = 0; k < w; ++k) padA[k] = k < len ? a[k] : T(1), padB[k] = k < len ? b[k] : T(1);
      a = padA, b = padB;
    }
    T* o = len < w ? r : out + i;
    if (Call(a, b, o))
      for (int64_t k = 0; k < len; ++k)
        if (o[k] != o[k]) o[k] = kNaNs == NaNs::LibmFmod ? std::fmod(a[k], b[k]) : kNaN;
    if (len < w) std::copy(r, r + len, out + i);
  }
}

// binaryCalls in the widest form this CPU runs, of Wide (AVX-512), Middle
// (AVX) and Narrow (SSE2), SLEEF's forms of one function on vectors V16,
// V8 and V4 of 16, 8 and 4 floats or the doubles of their size.
template <class T, class V16, class V8, class V4, V16 (*Wide)(V16, V16), V8 (*Middle)(V8, V8), V4 (*Narrow)(V4, V4),
          NaNs kNaNs>
void widest(const T* x, bool xSingle, const T* y, bool ySingle, T* out, int64_t n) {
  constexpr int64_t lanes = 16 / sizeof(T);
  int width = sleef::widestForm();
  if (width >= 16) return binaryCalls<T, lanes * 4, binaryCall16<T, V16, Wide>, kNaNs>(x, xSingle, y, ySingle, out, n);
  if (width >= 8) return binaryCalls<T, lanes * 2, binaryCall8<T, V8, Middle>, kNaNs>(x, xSingle, y, ySingle, out, n);
  binaryCalls<T, lanes, binaryCall4<T, V4, Narrow>, kNaNs>(x, xSingle, y, ySingle, out, n);
}

}  // namespace

void fmod(const float* x, bool xSingle, const float* y, bool ySingle, float* out, int64_t n) {
  widest<float, __m512, __m256, __m128, Sleef_cinz_fmodf16_avx512fnofma, Sleef_cinz_fmodf8_avx, Sleef_cinz_fmodf4_sse2,
         NaNs::LibmFmod>(x, xSingle, y, ySingle, out, n);
}

void fmod(const double* x, bool xSingle, const double* y, bool ySingle, double* out, int64_t n) {
  widest<double, __m512d, __m256d, __m128d, Sleef_cinz_fmodd8_avx512fnofma, Sleef_cinz_fmodd4_avx,
         Sleef_cinz_fmodd2_sse2, NaNs::LibmFmod>(x, xSingle, y, ySingle, out, n);
}

void atan2(const float* x, bool xSingle, const float* y, bool ySingle, float* out, int64_t n) {
  widest<float, __m512, __m256, __m128, Sleef_cinz_atan2f16_u10avx512fnofma, Sleef_cinz_atan2f8_u10avx,
         Sleef_cinz_atan2f4_u10sse2, NaNs::Quiet>(x, xSingle, y, ySingle, out, n);
}

void hypot(const float* x, bool xSingle, const float* y, bool ySingle, float* out, int64_t n) {
  widest<float, __m512, __m256, __m128, Sleef_cinz_hypotf16_u05avx512fnofma, Sleef_cinz_hypotf8_u05avx,
         Sleef_cinz_hypotf4_u05sse2, NaNs::Quiet>(x, xSingle, y, ySingle, out, n);
}

namespace {

// Box-Muller of w pairs (one vector call of each function), in the
// instruction set of its forms. SLEEF's functions come as template
// arguments: clang rejects a direct call passing a vector type that the
// callee's declaration was not compiled for (the ABI differs), as map16's
// do above.
template <__m128d (*Log)(__m128d), SleefM128d2 (*SinCos)(__m128d)>
void boxMuller2(const double* u1, const double* u2, double* first, double* second) {
  __m128d r = _mm_sqrt_pd(_mm_mul_pd(_mm_set1_pd(-2.0), Log(_mm_loadu_pd(u1))));
  SleefM128d2 t = SinCos(_mm_mul_pd(_mm_set1_pd(2.0 * M_PI), _mm_loadu_pd(u2)));
  _mm_storeu_pd(first, _mm_mul_pd(r, t.cos));
  _mm_storeu_pd(second, _mm_mul_pd(r, t.sin));
}

template <__m256d (*Log)(__m256d), SleefM256d2 (*SinCos)(__m256d)>
__attribute__((target("avx"))) void boxMuller4(const double* u1, const double* u2, double* first, double* second) {
  __m256d r = _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), Log(_mm256_loadu_pd(u1))));
  SleefM256d2 t = SinCos(_mm256_mul_pd(_mm256_set1_pd(2.0 * M_PI), _mm256_loadu_pd(u2)));
  _mm256_storeu_pd(first, _mm256_mul_pd(r, t.cos));
  _mm256_storeu_pd(second, _mm256_mul_pd(r, t.sin));
}

template <__m512d (*Log)(__m512d), SleefM512d2 (*SinCos)(__m512d)>
__attribute__((target("avx512f"))) void boxMuller8(const double* u1, const double* u2, double* first,
                                                    double* second) {
  // maskz with every lane: _mm512_sqrt_pd's undefined source makes GCC 12
  // warn (bug 105593).
  __m512d r = _mm512_maskz_sqrt_pd(0xFF, _mm512_mul_pd(_mm512_set1_pd(-2.0), Log(_mm512_loadu_pd(u1))));
  SleefM512d2 t = SinCos(_mm512_mul_pd(_mm512_set1_pd(2.0 * M_PI), _mm512_loadu_pd(u2)));
  _mm512_storeu_pd(first, _mm512_mul_pd(r, t.cos));
  _mm512_storeu_pd(second, _mm512_mul_pd(r, t.sin));
}

// Calls of w pairs; the last, partial one padded (u1 = 1: log 0).
template <int64_t w, void (*Call)(const double*, const double*, double*, double*)>
void boxMullerCalls(const double* u1, const double* u2, double* first, double* second, int64_t n) {
  int64_t i = 0;
  for (; i + w <= n; i += w) Call(u1 + i, u2 + i, first + i, second + i);
  if (i == n) return;
  double a[w], b[w], c[w], d[w];
  for (int64_t k = 0; k < w; ++k) a[k] = i + k < n ? u1[i + k] : 1.0, b[k] = i + k < n ? u2[i + k] : 0.0;
  Call(a, b, c, d);
  std::copy(c, c + (n - i), first + i);
  std::copy(d, d + (n - i), second + i);
}

// logSumExp3 of w lanes (see vector_math.h): `shift` is the largest of
// the three, or 0 where that is -inf, so that exp(-inf - shift) is 0.
template <__m128d (*Exp)(__m128d), __m128d (*Log)(__m128d)>
void logSumExp2(const double* a, const double* b, const double* c, double* out) {
  __m128d x = _mm_loadu_pd(a), y = _mm_loadu_pd(b), z = _mm_loadu_pd(c);
  __m128d high = _mm_max_pd(x, _mm_max_pd(y, z));
  __m128d shift = _mm_andnot_pd(_mm_cmpeq_pd(high, _mm_set1_pd(-INFINITY)), high);
  __m128d sum = _mm_add_pd(_mm_add_pd(Exp(_mm_sub_pd(x, shift)), Exp(_mm_sub_pd(y, shift))), Exp(_mm_sub_pd(z, shift)));
  _mm_storeu_pd(out, _mm_add_pd(high, Log(sum)));
}

template <__m256d (*Exp)(__m256d), __m256d (*Log)(__m256d)>
__attribute__((target("avx"))) void logSumExp4(const double* a, const double* b, const double* c, double* out) {
  __m256d x = _mm256_loadu_pd(a), y = _mm256_loadu_pd(b), z = _mm256_loadu_pd(c);
  __m256d high = _mm256_max_pd(x, _mm256_max_pd(y, z));
  __m256d shift = _mm256_andnot_pd(_mm256_cmp_pd(high, _mm256_set1_pd(-INFINITY), _CMP_EQ_OQ), high);
  __m256d sum = _mm256_add_pd(_mm256_add_pd(Exp(_mm256_sub_pd(x, shift)), Exp(_mm256_sub_pd(y, shift))),
                              Exp(_mm256_sub_pd(z, shift)));
  _mm256_storeu_pd(out, _mm256_add_pd(high, Log(sum)));
}

template <__m512d (*Exp)(__m512d), __m512d (*Log)(__m512d)>
__attribute__((target("avx512f"))) void logSumExp8(const double* a, const double* b, const double* c, double* out) {
  __m512d x = _mm512_loadu_pd(a), y = _mm512_loadu_pd(b), z = _mm512_loadu_pd(c);
  // maskz with every lane: _mm512_max_pd's undefined source makes GCC 12
  // warn (bug 105593), as _mm512_sqrt_pd's does.
  __m512d high = _mm512_maskz_max_pd(0xFF, x, _mm512_maskz_max_pd(0xFF, y, z));
  __m512d shift = _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(high, _mm512_set1_pd(-INFINITY), _CMP_NEQ_UQ), high);
  __m512d sum = _mm512_add_pd(_mm512_add_pd(Exp(_mm512_sub_pd(x, shift)), Exp(_mm512_sub_pd(y, shift))),
                              Exp(_mm512_sub_pd(z, shift)));
  _mm512_storeu_pd(out, _mm512_add_pd(high, Log(sum)));
}

// Calls of w lanes; the last, partial one padded with -inf.
template <int64_t w, void (*Call)(const double*, const double*, const double*, double*)>
void logSumExpCalls(const double* a, const double* b, const double* c, double* out, int64_t n) {
  if (n <= 0) return;
  int64_t i = 0;
  for (; i + w <= n; i += w) Call(a + i, b + i, c + i, out + i);
  if (i == n) return;
  double x[w], y[w], z[w], r[w];
  for (int64_t k = 0; k < w; ++k) {
    bool in = i + k < n;
    x[k] = in ? a[i + k] : -INFINITY, y[k] = in ? b[i + k] : -INFINITY, z[k] = in ? c[i + k] : -INFINITY;
  }
  Call(x, y, z, r);
  std::copy(r, r + (n - i), out + i);
}

}  // namespace

void logSumExp3(const double* a, const double* b, const double* c, double* out, int64_t n) {
  int width = sleef::widestForm();
  if (width >= 16)
    return logSumExpCalls<8, logSumExp8<Sleef_cinz_expd8_u10avx512fnofma, Sleef_cinz_logd8_u10avx512fnofma>>(
        a, b, c, out, n);
  if (width >= 8)
    return logSumExpCalls<4, logSumExp4<Sleef_cinz_expd4_u10avx, Sleef_cinz_logd4_u10avx>>(a, b, c, out, n);
  logSumExpCalls<2, logSumExp2<Sleef_cinz_expd2_u10sse2, Sleef_cinz_logd2_u10sse2>>(a, b, c, out, n);
}

void boxMuller(const double* u1, const double* u2, double* first, double* second, int64_t n) {
  int width = sleef::widestForm();
  if (width >= 16)
    return boxMullerCalls<8, boxMuller8<Sleef_cinz_logd8_u10avx512fnofma, Sleef_cinz_sincosd8_u10avx512fnofma>>(
        u1, u2, first, second, n);
  if (width >= 8)
    return boxMullerCalls<4, boxMuller4<Sleef_cinz_logd4_u10avx, Sleef_cinz_sincosd4_u10avx>>(u1, u2, first, second,
                                                                                             n);
  boxMullerCalls<2, boxMuller2<Sleef_cinz_logd2_u10sse2, Sleef_cinz_sincosd2_u10sse2>>(u1, u2, first, second, n);
}

void apply(Fn fn, const float* x, float* y, int64_t n) {
  switch (fn) {
#define SLEEF_FUNCTION(Name, f)                                                                                \
  case Fn::Name:                                                                                               \
    return map<Sleef_cinz_##f##f4_u10sse2, Sleef_cinz_##f##f8_u10avx, Sleef_cinz_##f##f16_u10avx512fnofma>(x, y, \
                                                                                                           n);
#include "runtime/sleef_functions.def"
#undef SLEEF_FUNCTION
    case Fn::Erf: return map<nn_erff4, nn_erff8, nn_erff16>(x, y, n);
  }
}

}  // namespace nn::rt::vmath
