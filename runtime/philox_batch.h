// Philox4x32-10 (random.h) a batch of blocks at a time for the CPU's
// random kernels, in the widest vectors the CPU has: the ten rounds over
// kBatch counters at once, the words left in stream order. Each path does
// the same integer operations, so gives the same bits; the tests compare
// each the CPU can run with philox4x32.
#pragma once

#include <array>
#include <cstdint>

namespace nn::rt {

constexpr int kPhiloxBatch = 16;

enum class PhiloxPath { Portable, Avx2, Avx512 };

// The widest path this CPU runs.
PhiloxPath widestPhiloxPath();

// Blocks first, first + 1, ..., first + kPhiloxBatch - 1 under `key`: their
// 4 * kPhiloxBatch words into `words` in stream order (block j's at 4j).
void philoxBatch(uint64_t first, std::array<uint32_t, 2> key, uint32_t* words, PhiloxPath path);

}  // namespace nn::rt
