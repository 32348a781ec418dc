// sum_order.h's chunk sums of floats and doubles, compiled twice: for the
// kernels' instruction set and for AVX-512, taken where the CPU has it.
// Widening floats to double is what bounds a sum (one conversion of 4
// floats a cycle with AVX2, 8 with AVX-512: a sum of 200,000 floats takes
// 15 us, 9 us). Only these loops, which run over whole chunks: the
// kernels at large are built without AVX-512, whose vector loops leave
// short rows (pooling's 14 columns) to slower scalar remainders. The
// additions are laneFold's in either build, so the bits are the same.
#include "runtime/sum_order.h"

namespace nn::rt {
namespace {

template <class T>
double sumOf(const T* d, int64_t n) {
  return laneFold(d, n, 0.0, kAdd, kAdd);
}

template <class T>
double squaredDeviationsOf(const T* d, int64_t n, double mean) {
  auto step = [mean](double acc, double x) { return acc + (x - mean) * (x - mean); };
  return laneFold(d, n, 0.0, step, kAdd);
}

template <class T>
__attribute__((target("avx512f"))) double sumOf512(const T* d, int64_t n) {
  return laneFold(d, n, 0.0, kAdd, kAdd);
}

template <class T>
__attribute__((target("avx512f"))) double squaredDeviationsOf512(const T* d, int64_t n, double mean) {
  auto step = [mean](double acc, double x) { return acc + (x - mean) * (x - mean); };
  return laneFold(d, n, 0.0, step, kAdd);
}

bool hasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

}  // namespace

double chunkSum(const float* d, int64_t n) { return hasAvx512() ? sumOf512(d, n) : sumOf(d, n); }
double chunkSum(const double* d, int64_t n) { return hasAvx512() ? sumOf512(d, n) : sumOf(d, n); }

double chunkSquaredDeviations(const float* d, int64_t n, double mean) {
  return hasAvx512() ? squaredDeviationsOf512(d, n, mean) : squaredDeviationsOf(d, n, mean);
}
double chunkSquaredDeviations(const double* d, int64_t n, double mean) {
  return hasAvx512() ? squaredDeviationsOf512(d, n, mean) : squaredDeviationsOf(d, n, mean);
}

}  // namespace nn::rt
