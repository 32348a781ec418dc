// sum_order.h's chunk sums of floats and doubles, its column sums a tile
// at a time and layer_norm's gradient's row sums, compiled twice: for the
// kernels' instruction set and for AVX-512, taken where the CPU has it.
// Widening floats to double is what bounds a sum (one conversion of 4
// floats a cycle with AVX2, 8 with AVX-512: a sum of 200,000 floats takes
// 15 us, 9 us). Only these loops, which run over whole chunks and tiles:
// the kernels at large are built without AVX-512, whose vector loops leave
// short rows (pooling's 14 columns) to slower scalar remainders. The
// additions are the same in either build, so the bits are.
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

// The three sums layer_norm's gradient takes of a row, each in kSumLanes
// independent running sums added pairwise at the end.
template <bool Weighted, class T>
__attribute__((always_inline)) inline void normGradientSumsBody(const T* x, const T* g, const T* w, int64_t n,
                                                                double mean, double* out) {
  double squares[kSumLanes] = {}, hs[kSumLanes] = {}, hcs[kSumLanes] = {};
  auto h = [&](int64_t j) { return Weighted ? static_cast<double>(g[j]) * w[j] : static_cast<double>(g[j]); };
  int64_t j = 0;
  for (; j + kSumLanes <= n; j += kSumLanes) {
#pragma omp simd
    for (int64_t k = 0; k < kSumLanes; ++k) {
      double c = x[j + k] - mean;
      squares[k] += c * c;
      hs[k] += h(j + k);
      hcs[k] += h(j + k) * c;
    }
  }
  for (int64_t width = kSumLanes / 2; width >= 1; width /= 2)
    for (int64_t k = 0; k < width; ++k) {
      squares[k] = squares[2 * k] + squares[2 * k + 1];
      hs[k] = hs[2 * k] + hs[2 * k + 1];
      hcs[k] = hcs[2 * k] + hcs[2 * k + 1];
    }
  for (; j < n; ++j) {
    double c = x[j] - mean;
    squares[0] += c * c;
    hs[0] += h(j);
    hcs[0] += h(j) * c;
  }
  out[0] = squares[0];
  out[1] = hs[0];
  out[2] = hcs[0];
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

template <class T>
void normGradientSumsOf(const T* x, const T* g, const T* w, int64_t n, double mean, double* out) {
  if (w) widest<normGradientSumsBody<true, T>>(x, g, w, n, mean, out);
  else widest<normGradientSumsBody<false, T>>(x, g, w, n, mean, out);
}

void normGradientSums(const float* x, const float* g, const float* w, int64_t n, double mean, double* out) {
  normGradientSumsOf(x, g, w, n, mean, out);
}
void normGradientSums(const double* x, const double* g, const double* w, int64_t n, double mean, double* out) {
  normGradientSumsOf(x, g, w, n, mean, out);
}

void columnTileSums(const float* d, int64_t count, int64_t a0, int64_t a1, int64_t width, double* out) {
  widest<tileSumsBody<float>>(d, count, a0, a1, width, out);
}
void columnTileSums(const double* d, int64_t count, int64_t a0, int64_t a1, int64_t width, double* out) {
  widest<tileSumsBody<double>>(d, count, a0, a1, width, out);
}

}  // namespace nn::rt
