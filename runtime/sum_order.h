// The order in which a float sum adds its elements: one definition for the
// CPU's sum and mean kernels (kernels_cpu_reduce.cpp) and the JIT's fused
// sums (jit/reduction_codegen.cpp emits the same additions), so that a
// fused and an op-by-op sum agree bit for bit, in every mode and with any
// number of threads. A run of n elements, widened to double, is cut into
// chunks of kSumChunk; each chunk adds every kSumLanes-th element into its
// own running sum (lane k: elements k, k + 16, ...; vectorised, 16
// independent additions a step instead of one chain), the lanes are added
// pairwise (0+1, 2+3, ..., then those pairs, ...), then the chunk's last
// n % 16 elements in order; the chunks' sums are added in order. Chunks
// are independent, so a long run is summed on all cores and gives the same
// bits as one thread. (A product multiplies in a chunk's order, unchunked.)
#pragma once

#include <algorithm>
#include <cstdint>

namespace nn::rt {

inline constexpr int64_t kSumLanes = 16;
inline constexpr int64_t kSumChunk = 4096;

// Folds n elements, widened to double, as a chunk is summed: kSumLanes
// running values of every sixteenth element (each starting at `init`,
// advanced by step(value, element)), merged pairwise, then the last n % 16
// elements stepped in order: a sum steps and merges with +, a product
// with *, a sum of squared deviations steps with value + (x - m)^2.
// Always inlined, so that it is compiled for its caller's instruction set
// (kernels_cpu_sums.cpp).
template <class T, class Step, class Merge>
__attribute__((always_inline)) inline double laneFold(const T* d, int64_t n, double init, Step step, Merge merge) {
  double lane[kSumLanes];
  for (double& l : lane) l = init;
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes)
    for (int64_t k = 0; k < kSumLanes; ++k) lane[k] = step(lane[k], static_cast<double>(d[i + k]));
#pragma GCC unroll 4
  for (int64_t width = kSumLanes / 2; width >= 1; width /= 2) {
#pragma GCC unroll 8
    for (int64_t k = 0; k < width; ++k) lane[k] = merge(lane[2 * k], lane[2 * k + 1]);
  }
  double folded = lane[0];
  for (; i < n; ++i) folded = step(folded, static_cast<double>(d[i]));
  return folded;
}

// The step and merge of a sum.
inline constexpr auto kAdd = [](double a, double b) { return a + b; };

// The sum of one chunk's n <= kSumChunk elements, the sum of their squares
// (each rounded to the elements' type: the sum of x * x), and the sum of
// the squares of their deviations from `mean` (kernels_cpu_sums.cpp:
// compiled for AVX-512 too, where the CPU has it).
double chunkSum(const float* d, int64_t n);
double chunkSum(const double* d, int64_t n);
double chunkSumOfSquares(const float* d, int64_t n);
double chunkSumOfSquares(const double* d, int64_t n);
double chunkSquaredDeviations(const float* d, int64_t n, double mean);
double chunkSquaredDeviations(const double* d, int64_t n, double mean);

// layer_norm's gradient's sums over a row of n elements: of (x - mean)^2,
// of h = g w (w null: g) and of h (x - mean), into out[0], out[1], out[2],
// in double, each in kSumLanes running sums (kernels_cpu_sums.cpp).
void normGradientSums(const float* x, const float* g, const float* w, int64_t n, double mean, double* out);
void normGradientSums(const double* x, const double* g, const double* w, int64_t n, double mean, double* out);

// Column sums a tile at a time (kernels_cpu_reduce.cpp columnSums): the
// sums over rows [a0, a1) of one chunk of the `width` <= kColumnTile
// columns starting at d (rows `count` apart) into out[0, width), each
// column in a chunk's order: row a into lane a % kSumLanes, the lanes
// added pairwise, then the chunk's last rows in order.
inline constexpr int64_t kColumnTile = 64;
void columnTileSums(const float* d, int64_t count, int64_t a0, int64_t a1, int64_t width, double* out);
void columnTileSums(const double* d, int64_t count, int64_t a0, int64_t a1, int64_t width, double* out);

// The sum of a run of n elements: its chunks' sums added in order.
template <class T>
double runSum(const T* d, int64_t n) {
  double sum = 0;
  for (int64_t c = 0; c < n; c += kSumChunk) sum += chunkSum(d + c, std::min(kSumChunk, n - c));
  return sum;
}

}  // namespace nn::rt
