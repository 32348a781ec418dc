// The random number generator behind seed/rand/randn/randint: Philox4x32-10
// (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11), a
// counter-based generator. seed(n) sets the 64-bit key to n and the counter
// to zero; every draw consumes counters in order, so a seeded program gives
// the same numbers on every run and platform. Conversions:
//   rand:    u32 >> 8 scaled by 2^-24 (f32 in [0, 1)), or 53 bits for f64;
//   randn:   Box-Muller on two uniforms in (0, 1], computed in double
//            with SLEEF's log and sincos (vmath::boxMuller);
//   randint: Lemire's unbiased bounded integers on 64-bit draws.
#pragma once

#include <array>
#include <cstdint>

namespace nn::rt {

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// Philox4x32's multipliers and key increments (the Weyl sequence's).
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53, kPhiloxM1 = 0xCD9E8D57, kPhiloxW0 = 0x9E3779B9,
                          kPhiloxW1 = 0xBB67AE85;

// Philox4x32-10's ten rounds on N blocks at once, word k of block j in
// c[k][j], lane by lane: one definition for philox4x32 (N = 1) and the
// portable path of the CPU's batches (kernels_cpu_philox.cpp, which has
// AVX2 and AVX-512 forms of the same rounds too), where each round is a
// vector operation over the blocks (the CUDA plugin, which includes this
// without OpenMP, makes no batches).
template <int N>
inline void philoxRounds(uint32_t (&c)[4][N], std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kPhiloxW0;
      key[1] += kPhiloxW1;
    }
#ifdef _OPENMP
#pragma omp simd
#endif
    for (int j = 0; j < N; ++j) {
      uint64_t p0 = uint64_t(kPhiloxM0) * c[0][j], p1 = uint64_t(kPhiloxM1) * c[2][j];
      uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1][j] ^ key[0];
      uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3][j] ^ key[1];
      c[1][j] = static_cast<uint32_t>(p1);
      c[3][j] = static_cast<uint32_t>(p0);
      c[0][j] = n0;
      c[2][j] = n2;
    }
  }
}

class RandomGenerator {
 public:
  explicit RandomGenerator(uint64_t seed = 0) { reseed(seed); }
  void reseed(uint64_t seed);
  uint32_t nextU32();
  uint64_t nextU64() {
    uint64_t high = nextU32();
    return (high << 32) | nextU32();
  }
  float uniformF32() { return unitF32(nextU32()); }
  double uniformF64() { return unitF64(nextU64()); }
  double normal();
  // Uniform in [0, n), n > 0.
  uint64_t below(uint64_t n);

  // The conversions of draws: a word to an f32 in [0, 1), 64 bits to an
  // f64 in [0, 1), and Box-Muller of two 64-bit draws to two normal values
  // (r cos t, then r sin t).
  static float unitF32(uint32_t w) { return static_cast<float>(w >> 8) * (1.0f / 16777216.0f); }
  static double unitF64(uint64_t d) { return static_cast<double>(d >> 11) * (1.0 / 9007199254740992.0); }
  static void normalPair(uint64_t a, uint64_t b, double& first, double& second);
  // Box-Muller's uniforms of two 64-bit draws: u1 in (0, 1] (log stays
  // finite), u2 in [0, 1); of `pairs` pairs from their words (four each).
  static void normalUniforms(uint64_t a, uint64_t b, double& u1, double& u2) {
    u1 = 1.0 - unitF64(a);
    u2 = unitF64(b);
  }
  static void normalUniforms(const uint32_t* words, int64_t pairs, double* u1, double* u2) {
    for (int64_t j = 0; j < pairs; ++j) {
      const uint32_t* w = words + 4 * j;
      normalUniforms((uint64_t(w[0]) << 32) | w[1], (uint64_t(w[2]) << 32) | w[3], u1[j], u2[j]);
    }
  }

  // The stream by position, for kernels that draw many numbers at once
  // (kernels_cpu_random.cpp): draws consume 32-bit words in order, word w
  // being lane w % 4 of the Philox block of counter w / 4 under key(); a
  // kernel computes its elements' words from their positions (on all
  // cores) and then moves the generator past them (skipTo), with the bits
  // of drawing them one by one. A normal value's spare half is outside
  // the stream (hasSpare: the next normal() returns it).
  uint64_t position() const { return counter_ * 4 - static_cast<uint64_t>(4 - used_); }
  void skipTo(uint64_t word);
  std::array<uint32_t, 2> key() const { return key_; }
  bool hasSpare() const { return hasSpare_; }

 private:
  std::array<uint32_t, 2> key_{};
  uint64_t counter_ = 0;
  std::array<uint32_t, 4> block_{};
  int used_ = 4;
  bool hasSpare_ = false;
  double spare_ = 0;
};

}  // namespace nn::rt
