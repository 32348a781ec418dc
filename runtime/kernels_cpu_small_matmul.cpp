// The CPU's f32 matmul for small problems (an RNN cell, a batch-1 dense
// layer, a 4x4 transform), where oneDNN's fixed cost per call (about two
// microseconds to set up and enter its kernel) is most of the time: a
// register-blocked loop (small_matmul_loop.inc) on AVX2 and FMA or on
// AVX-512, chosen at run time by what the CPU has. matmulF32 and
// linearF32 (kernels_cpu_nn.cpp, the kernels registered for the two ops)
// decide by the same rule on the same figures, so `x @ w + b` computes
// the same bits whether fuse-post-ops made it a linear or not.
//
// Each output element is one f32 accumulator starting at +0 with one fused
// multiply-add per k in ascending order (what oneDNN's brgemm kernels gave
// too, bit for bit, on the AVX-512 machines tried); a bias is added after,
// rounded once, as a separate add would.
#include <immintrin.h>

#include <algorithm>
#include <memory>

#include "runtime/nn_ops.h"

namespace nn::rt {

namespace {

// The widest vectors this CPU has for the loop (asked once).
enum class Simd { None, Avx2, Avx512 };
Simd simd() {
  static const Simd level = [] {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Simd::None;
    return __builtin_cpu_supports("avx512f") ? Simd::Avx512 : Simd::Avx2;
  }();
  return level;
}

// One operand of C[M, N] = A[M, K] @ B[K, N]: a base pointer and strides.
struct Operand {
  const float* p;
  int64_t rowStride, colStride;
  float at(int64_t r, int64_t c) const { return p[r * rowStride + c * colStride]; }
};

// AVX2 and FMA: eight floats a vector.
namespace avx2 {
#define NN_SIMD __attribute__((target("avx2,fma")))
using Vec = __m256;
using Mask = __m256i;
constexpr int kWidth = 8, kRows = 6;  // 12 accumulators of 16 registers
NN_SIMD inline Vec zero() { return _mm256_setzero_ps(); }
NN_SIMD inline Vec load(const float* p) { return _mm256_loadu_ps(p); }
NN_SIMD inline Vec loadPart(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
NN_SIMD inline void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
NN_SIMD inline void storePart(float* p, Mask m, Vec v) { _mm256_maskstore_ps(p, m, v); }
NN_SIMD inline Vec splat(float x) { return _mm256_set1_ps(x); }
NN_SIMD inline Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
NN_SIMD inline Mask firstLanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
#include "runtime/small_matmul_loop.inc"
#undef NN_SIMD
}  // namespace avx2

// AVX-512: sixteen floats a vector, the same operations per element.
namespace avx512 {
#define NN_SIMD __attribute__((target("avx512f")))
using Vec = __m512;
using Mask = __mmask16;
constexpr int kWidth = 16, kRows = 8;  // 16 accumulators of 32 registers
NN_SIMD inline Vec zero() { return _mm512_setzero_ps(); }
NN_SIMD inline Vec load(const float* p) { return _mm512_loadu_ps(p); }
NN_SIMD inline Vec loadPart(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
NN_SIMD inline void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
NN_SIMD inline void storePart(float* p, Mask m, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
NN_SIMD inline Vec splat(float x) { return _mm512_set1_ps(x); }
NN_SIMD inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
NN_SIMD inline Mask firstLanes(int n) { return static_cast<Mask>((1u << n) - 1); }
#include "runtime/small_matmul_loop.inc"
#undef NN_SIMD
}  // namespace avx512

// C [M, N] (row-major, ldc) = A @ B: on 16-float vectors where the CPU has
// them and C is wide enough to fill two (narrower, their masked tails cost
// more than the wider vectors gain), else on 8-float ones. Both compute
// the same bits.
void product(const Operand& a, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t M, int64_t N, int64_t K) {
  if (simd() == Simd::Avx512 && N >= 32) avx512::product(a, b, ldb, c, ldc, M, N, K);
  else avx2::product(a, b, ldb, c, ldc, M, N, K);
}

// B's rows as the kernel reads them: in place when they are contiguous,
// else copied into this thread's buffer (a transposed weight, say).
const float* rowMajor(const Operand& b, int64_t K, int64_t N, int64_t& ldb) {
  // One column is read as a column of stride rowStride whatever its own.
  if (b.colStride == 1 || N == 1) {
    ldb = b.rowStride;
    return b.p;
  }
  thread_local std::unique_ptr<float[]> buffer;
  thread_local size_t capacity = 0;
  size_t need = static_cast<size_t>(K * N);
  if (need > capacity) {
    buffer.reset(new float[need]);
    capacity = need;
  }
  float* dst = buffer.get();
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) dst[k * N + j] = b.at(k, j);
  ldb = N;
  return dst;
}

// The bound below which the loop beats oneDNN's call: multiply-adds in
// all (rows of C, over every batch, times N times K). Measured with
// bench/small_models.nn on Xeon cores, one thread: up to 64x64x64 the loop
// takes less time than oneDNN (a 32x32x32 product on AVX2 about what
// oneDNN takes to start one; 64x64x64 on AVX-512 half oneDNN's time).
constexpr int64_t kSmallWork = 64 * 64 * 64;

}  // namespace

bool smallMatmulApplies(int64_t rows, int64_t K, int64_t N) {
  auto within = [](int64_t n) { return n > 0 && n <= kSmallWork; };
  return simd() != Simd::None && within(rows) && within(K) && within(N) && rows * K * N <= kSmallWork;
}

void smallMatmulF32(const Tensor& a, const Tensor& b, Tensor& out) {
  int rank = out.ndim();
  int64_t M = out.dim(rank - 2), N = out.dim(rank - 1), K = a.dim(rank - 1);
  int64_t batches = out.numel() / std::max<int64_t>(1, M * N);
  float* o = out.data<float>();
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t offA, offB;
    matmulBatchOffsets(a, b, out, bi, offA, offB);
    Operand pa{a.data<float>() + offA, a.strides()[rank - 2], a.strides()[rank - 1]};
    Operand pb{b.data<float>() + offB, b.strides()[rank - 2], b.strides()[rank - 1]};
    int64_t ldb = 0;
    const float* rowsOfB = rowMajor(pb, K, N, ldb);
    product(pa, rowsOfB, ldb, o + bi * M * N, N, M, N, K);
  }
}

void smallLinearF32(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out) {
  int64_t rows = x.dim(0), K = x.dim(1), N = w.dim(0);
  // w [N, K] read as B [K, N].
  Operand pa{x.data<float>(), x.strides()[0], x.strides()[1]};
  Operand pb{w.data<float>(), w.strides()[1], w.strides()[0]};
  int64_t ldb = 0;
  const float* rowsOfB = rowMajor(pb, K, N, ldb);
  float* o = out.data<float>();
  product(pa, rowsOfB, ldb, o, N, rows, N, K);
  if (!bias) return;
  const float* bv = bias->data<float>();
  int64_t bs = bias->strides()[0];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < N; ++j) o[r * N + j] += bv[j * bs];
}

}  // namespace nn::rt
