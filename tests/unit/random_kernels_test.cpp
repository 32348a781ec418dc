// The CPU's random kernels (runtime/kernels_cpu_random.cpp) compute the
// words of many elements from their positions in the generator's stream,
// on all cores: they must give the numbers that drawing the elements one
// by one gives (RandomGenerator's own rand, randn and dropout draws), and
// leave the generator where those draws leave it, from any position
// (inside a Philox block, with a normal's spare half waiting), for sizes
// around the kernels' chunks and batches, on 1, 2 and 3 threads; and each
// vectorised Philox batch this CPU runs gives philox4x32's blocks.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "runtime/device.h"
#include "runtime/philox_batch.h"
#include "runtime/random.h"
#include "test_device.h"

namespace {

using namespace nn::rt;
using nn::ir::Op;

uint64_t drawnBits(double d) { return std::bit_cast<uint64_t>(d); }

// A draw of each kind one by one on `g`, into the elements of out
// (dropout: of ones with p = 0.3).
void oneByOne(Op op, RandomGenerator& g, Tensor& out) {
  bool f32 = out.dtype() == DType::F32;
  for (int64_t i = 0; i < out.numel(); ++i) {
    double v = 0;
    if (op == Op::Rand) v = f32 ? g.uniformF32() : g.uniformF64();
    else if (op == Op::Randn) v = g.normal();
    else v = g.uniformF64() >= 0.3 ? 1.0 / 0.7 : 0.0;
    if (f32) out.data<float>()[i] = static_cast<float>(v);
    else out.data<double>()[i] = v;
  }
}

void byKernel(Op op, RandomGenerator& g, Tensor& out) {
  const KernelTable& k = cpuKernels();
  if (op == Op::Rand) return k.get<Op::Rand>(out.dtype())(g, out);
  if (op == Op::Randn) return k.get<Op::Randn>(out.dtype())(g, out);
  Tensor ones = Tensor::empty(out.dtype(), out.shape(), testDevice());
  for (int64_t i = 0; i < ones.numel(); ++i) {
    if (out.dtype() == DType::F32) ones.data<float>()[i] = 1;
    else ones.data<double>()[i] = 1;
  }
  k.get<Op::Dropout>(out.dtype())(ones, 0.3, g, out);
}

TEST(RandomKernels, GiveTheNumbersOfDrawingOneByOneFromAnyPosition) {
  int before = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    for (Op op : {Op::Rand, Op::Randn, Op::Dropout})
      for (DType dt : {DType::F32, DType::F64})
        // Positions: a block's start, inside one (a word or three drawn), a
        // spare normal waiting.
        for (int lead = 0; lead < 4; ++lead)
          for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{63}, int64_t{65}, int64_t{4097}, int64_t{70001}}) {
            RandomGenerator kernel(1234), single(1234);
            for (RandomGenerator* g : {&kernel, &single}) {
              if (lead == 3) g->normal();
              else
                for (int w = 0; w < lead * 2 - 1; ++w) g->nextU32();
            }
            Tensor got = Tensor::empty(dt, {n}, testDevice()), want = Tensor::empty(dt, {n}, testDevice());
            byKernel(op, kernel, got);
            oneByOne(op, single, want);
            std::string what = std::string(nn::ir::opInfo(op).name) + " " + std::string(dtypeName(dt)) + " n " +
                               std::to_string(n) + " lead " + std::to_string(lead) + " threads " + std::to_string(threads);
            for (int64_t i = 0; i < n; ++i)
              ASSERT_EQ(drawnBits(got.flatAsDouble(i)), drawnBits(want.flatAsDouble(i))) << what << " element " << i;
            // Both generators go on alike (a normal also reads a spare).
            EXPECT_EQ(drawnBits(kernel.normal()), drawnBits(single.normal())) << what;
            EXPECT_EQ(kernel.nextU32(), single.nextU32()) << what;
          }
  }
  omp_set_num_threads(before);
}

TEST(RandomKernels, PhiloxBatchesGiveTheBlocksOneByOne) {
  std::vector<PhiloxPath> paths{PhiloxPath::Portable};
  if (__builtin_cpu_supports("avx2")) paths.push_back(PhiloxPath::Avx2);
  if (__builtin_cpu_supports("avx512f")) paths.push_back(PhiloxPath::Avx512);
  // Batches whose counters' low words wrap around (carrying into the high
  // word), and the last counters before the whole counter wraps.
  for (uint64_t first : {uint64_t{0}, uint64_t{12345}, (uint64_t{1} << 32) - 7, (uint64_t{7} << 32) - 16,
                         ~uint64_t{0} - 5})
    for (std::array<uint32_t, 2> key : {std::array<uint32_t, 2>{0, 0}, std::array<uint32_t, 2>{1234, 0xDEADBEEF}})
      for (PhiloxPath path : paths) {
        uint32_t words[4 * kPhiloxBatch];
        philoxBatch(first, key, words, path);
        for (int j = 0; j < kPhiloxBatch; ++j) {
          uint64_t counter = first + static_cast<uint64_t>(j);
          std::array<uint32_t, 4> want =
              philox4x32({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0}, key);
          for (int k = 0; k < 4; ++k)
            ASSERT_EQ(words[4 * j + k], want[static_cast<size_t>(k)])
                << "path " << static_cast<int>(path) << " first " << first << " block " << j << " word " << k;
        }
      }
}

}  // namespace
