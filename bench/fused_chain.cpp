// The hand-fused C++ baseline of bench/fusion.nn: relu(a*b + c)*d - a on
// 1M f32 as one loop, compiled -O3 -march=native -fopenmp (CMakeLists.txt),
// split among the OpenMP threads, the result written over `a` (as nn does:
// `a` dies in the chain, so its buffer takes the result). Prints the best mean time per chain over the rounds in
// the script's format. Usage: fused_chain [rounds] [chains per round]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  int per = argc > 2 ? std::atoi(argv[2]) : 50;
  const long n = 1000 * 1000;
  std::mt19937 gen(0);
  std::normal_distribution<float> normal;
  std::vector<float> a(n), b(n), c(n), d(n);
  for (long i = 0; i < n; ++i) {
    a[i] = normal(gen);
    b[i] = normal(gen) * 0.3f;
    c[i] = normal(gen);
    d[i] = normal(gen) * 0.3f;
  }
  auto chains = [&](int count) {
    for (int k = 0; k < count; ++k) {
      float* pa = a.data();
      const float *pb = b.data(), *pc = c.data(), *pd = d.data();
#pragma omp parallel for simd
      for (long i = 0; i < n; ++i) {
        float x = pa[i] * pb[i] + pc[i];
        pa[i] = (x > 0 ? x : 0.0f) * pd[i] - pa[i];
      }
    }
  };
  chains(5);
  double best = 1e9;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    chains(per);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / per;
    best = std::min(best, s);
  }
  std::printf("chain_1M_us %.0f (checksum %g)\n", best * 1e6, static_cast<double>(a[n / 2]));
  return 0;
}
