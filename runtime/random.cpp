// Philox4x32-10 and the conversions to uniform, normal and bounded values.
#include "runtime/random.h"

#include "runtime/vector_math.h"

namespace nn::rt {

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  uint32_t block[4][1] = {{c[0]}, {c[1]}, {c[2]}, {c[3]}};
  philoxRounds<1>(block, k);
  return {block[0][0], block[1][0], block[2][0], block[3][0]};
}

void RandomGenerator::reseed(uint64_t seed) {
  key_ = {uint32_t(seed), uint32_t(seed >> 32)};
  counter_ = 0;
  used_ = 4;
  hasSpare_ = false;
}

uint32_t RandomGenerator::nextU32() {
  if (used_ == 4) {
    block_ = philox4x32({uint32_t(counter_), uint32_t(counter_ >> 32), 0, 0}, key_);
    ++counter_;
    used_ = 0;
  }
  return block_[used_++];
}

void RandomGenerator::skipTo(uint64_t word) {
  counter_ = word / 4;
  used_ = 4;
  if (word % 4) {
    block_ = philox4x32({uint32_t(counter_), uint32_t(counter_ >> 32), 0, 0}, key_);
    ++counter_;
    used_ = static_cast<int>(word % 4);
  }
}

void RandomGenerator::normalPair(uint64_t a, uint64_t b, double& first, double& second) {
  double u1, u2;
  normalUniforms(a, b, u1, u2);
  vmath::boxMuller(&u1, &u2, &first, &second, 1);
}

double RandomGenerator::normal() {
  if (hasSpare_) {
    hasSpare_ = false;
    return spare_;
  }
  uint64_t a = nextU64();
  uint64_t b = nextU64();
  double first;
  normalPair(a, b, first, spare_);
  hasSpare_ = true;
  return first;
}

uint64_t RandomGenerator::below(uint64_t n) {
  // Lemire, "Fast Random Integer Generation in an Interval" (2019).
  unsigned __int128 m = static_cast<unsigned __int128>(nextU64()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    uint64_t threshold = -n % n;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(nextU64()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

}  // namespace nn::rt
