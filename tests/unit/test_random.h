// The unit tests' pseudo-random numbers: Marsaglia's xorshift64 (13, 7,
// 17), from a seed each test picks, so that its data is the same on every
// run and machine.
#pragma once

#include <cstdint>

namespace nn::rt {

struct XorShift64 {
  uint64_t state;
  uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
};

}  // namespace nn::rt
