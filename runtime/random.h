// The random number generator behind seed/rand/randn/randint: Philox4x32-10
// (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11), a
// counter-based generator. seed(n) sets the 64-bit key to n and the counter
// to zero; every draw consumes counters in order, so a seeded program gives
// the same numbers on every run and platform. Conversions:
//   rand:    u32 >> 8 scaled by 2^-24 (f32 in [0, 1)), or 53 bits for f64;
//   randn:   Box-Muller on two uniforms in (0, 1], computed in double;
//   randint: Lemire's unbiased bounded integers on 64-bit draws.
#pragma once

#include <array>
#include <cstdint>

namespace nn::rt {

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

class RandomGenerator {
 public:
  explicit RandomGenerator(uint64_t seed = 0) { reseed(seed); }
  void reseed(uint64_t seed);
  uint32_t nextU32();
  uint64_t nextU64() { return (uint64_t(nextU32()) << 32) | nextU32(); }
  float uniformF32() { return static_cast<float>(nextU32() >> 8) * (1.0f / 16777216.0f); }
  double uniformF64() { return static_cast<double>(nextU64() >> 11) * (1.0 / 9007199254740992.0); }
  double normal();
  // Uniform in [0, n), n > 0.
  uint64_t below(uint64_t n);

 private:
  std::array<uint32_t, 2> key_{};
  uint64_t counter_ = 0;
  std::array<uint32_t, 4> block_{};
  int used_ = 4;
  bool hasSpare_ = false;
  double spare_ = 0;
};

}  // namespace nn::rt
