// sum_order.h's chunk sums of floats and doubles, and its column sums a
// tile at a time, compiled twice: for the kernels' instruction set and for
// AVX-512, taken where the CPU has it. Widening floats to double is what
// bounds a sum (one conversion of 4 floats a cycle with AVX2, 8 with
// AVX-512: a sum of 200,000 floats takes 15 us, 9 us). Only these loops,
// which run over whole chunks and tiles: the kernels at large are built
// without AVX-512, whose vector loops leave short rows (pooling's 14
// columns) to slower scalar remainders. The additions are the same in
// either build, so the bits are.
#include "runtime/sum_order.h"

namespace nn::rt {
namespace {

// The bodies, always inlined into the wrappers below, which compile them
// for one instruction set each.
template <class T>
__attribute__((always_inline)) inline double sumBody(const T* d, int64_t n) {
  return laneFold(d, n, 0.0, kAdd, kAdd);
}

template <class T>
__attribute__((always_inline)) inline double squaredDeviationsBody(const T* d, int64_t n, double mean) {
  auto step = [mean](double acc, double x) { return acc + (x - mean) * (x - mean); };
  return laneFold(d, n, 0.0, step, kAdd);
}

// Each square rounded to T, as x * x (the square op) rounds it, then
// summed as a sum adds.
template <class T>
__attribute__((always_inline)) inline double sumOfSquaresBody(const T* d, int64_t n) {
  auto step = [](double acc, double x) {
    T v = static_cast<T>(x);
    return acc + static_cast<double>(v * v);
  };
  return laneFold(d, n, 0.0, step, kAdd);
}

template <class T>
__attribute__((always_inline)) inline void tileSumsBody(const T* d, int64_t count, int64_t a0, int64_t a1,
                                                       int64_t width, double* out) {
  int64_t main = a0 + (a1 - a0) / kSumLanes * kSumLanes;
  double lanes[kSumLanes][kColumnTile] = {};
  for (int64_t a = a0; a < main; a += kSumLanes)
    for (int64_t l = 0; l < kSumLanes; ++l) {
      const T* row = d + (a + l) * count;
#pragma omp simd
      for (int64_t k = 0; k < width; ++k) lanes[l][k] += static_cast<double>(row[k]);
    }
  for (int64_t half = kSumLanes / 2; half >= 1; half /= 2)
    for (int64_t j = 0; j < half; ++j) {
#pragma omp simd
      for (int64_t k = 0; k < width; ++k) lanes[j][k] = lanes[2 * j][k] + lanes[2 * j + 1][k];
    }
  for (int64_t k = 0; k < width; ++k) out[k] = lanes[0][k];
  for (int64_t a = main; a < a1; ++a) {
    const T* row = d + a * count;
    for (int64_t k = 0; k < width; ++k) out[k] += static_cast<double>(row[k]);
  }
}

template <auto Body, class... A>
auto kernelsBuild(A... a) {
  return Body(a...);
}

template <auto Body, class... A>
__attribute__((target("avx512f"))) auto avx512Build(A... a) {
  return Body(a...);
}

// Body(a...) in the AVX-512 build where the CPU has it.
template <auto Body, class... A>
auto widest(A... a) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 ? avx512Build<Body>(a...) : kernelsBuild<Body>(a...);
}

}  // namespace

double chunkSum(const float* d, int64_t n) { return widest<sumBody<float>>(d, n); }
double chunkSum(const double* d, int64_t n) { return widest<sumBody<double>>(d, n); }

double chunkSumOfSquares(const float* d, int64_t n) { return widest<sumOfSquaresBody<float>>(d, n); }
double chunkSumOfSquares(const double* d, int64_t n) { return widest<sumOfSquaresBody<double>>(d, n); }

double chunkSquaredDeviations(const float* d, int64_t n, double mean) {
  return widest<squaredDeviationsBody<float>>(d, n, mean);
}
double chunkSquaredDeviations(const double* d, int64_t n, double mean) {
  return widest<squaredDeviationsBody<double>>(d, n, mean);
}

void columnTileSums(const float* d, int64_t count, int64_t a0, int64_t a1, int64_t width, double* out) {
  widest<tileSumsBody<float>>(d, count, a0, a1, width, out);
}
void columnTileSums(const double* d, int64_t count, int64_t a0, int64_t a1, int64_t width, double* out) {
  widest<tileSumsBody<double>>(d, count, a0, a1, width, out);
}

}  // namespace nn::rt
