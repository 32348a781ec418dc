// The CPU's kernels of the random ops: rand, randn, randint, randperm and
// dropout's masked scaling. They draw from the interpreter state's
// generator (random.h) in row-major order, so a seeded program gives the
// same numbers whatever the dtype's kernel, and the same as drawing the
// elements one by one: rand, randn and dropout take a fixed number of
// words of the generator's stream per element (or pair), so each chunk of
// elements computes its words from their position, Philox blocks a batch
// at a time (the rounds vectorised over the counters), on all cores;
// randint and randperm reject draws, so they draw one after another.
#include <algorithm>
#include <cmath>
#include <memory>

#include "runtime/kernel_loops.h"
#include "runtime/philox_batch.h"
#include "runtime/random.h"
#include "runtime/vector_math.h"

namespace nn::rt {

namespace {

// Words [from, from + count) of the stream under `key` into out.
void streamWords(std::array<uint32_t, 2> key, uint64_t from, int64_t count, uint32_t* out) {
  uint32_t batch[4 * kPhiloxBatch];
  PhiloxPath path = widestPhiloxPath();
  uint64_t block = from / 4;
  int64_t skip = static_cast<int64_t>(from % 4), done = 0;
  while (done < count) {
    if (skip == 0 && count - done >= 4 * kPhiloxBatch) {  // whole batches straight into out
      philoxBatch(block, key, out + done, path);
      done += 4 * kPhiloxBatch;
      block += kPhiloxBatch;
      continue;
    }
    philoxBatch(block, key, batch, path);
    int64_t take = std::min<int64_t>(4 * kPhiloxBatch - skip, count - done);
    std::copy_n(batch + skip, take, out + done);
    done += take;
    skip = 0;
    block += kPhiloxBatch;
  }
}

// Elements a task draws at once.
constexpr int64_t kDrawChunk = 4096;

// Makes `count` elements, each from `words` consecutive words of rng's
// stream from its position, chunk by chunk: makeChunk(first, last, the
// words of elements [first, last)), on all cores when `parallel`; then
// moves rng past the words.
template <class F>
void drawChunks(RandomGenerator& rng, int64_t count, int words, bool parallel, F makeChunk) {
  uint64_t start = rng.position();
  std::array<uint32_t, 2> key = rng.key();
  forEachLine((count + kDrawChunk - 1) / kDrawChunk, parallel, [&](int64_t c) {
    int64_t first = c * kDrawChunk, last = std::min(count, first + kDrawChunk);
    int64_t n = (last - first) * words;
    auto w = std::make_unique_for_overwrite<uint32_t[]>(static_cast<size_t>(n));
    streamWords(key, start + static_cast<uint64_t>(first * words), n, w.get());
    makeChunk(first, last, w.get());
  });
  rng.skipTo(start + static_cast<uint64_t>(count * words));
}

// The same, element by element: make(i, its words).
template <class F>
void drawInBulk(RandomGenerator& rng, int64_t count, int words, bool parallel, F make) {
  drawChunks(rng, count, words, parallel, [&](int64_t first, int64_t last, const uint32_t* w) {
    for (int64_t i = first; i < last; ++i) make(i, w + (i - first) * words);
  });
}

uint64_t wide(const uint32_t* w) { return (uint64_t(w[0]) << 32) | w[1]; }

template <class T>
void uniformKernel(RandomGenerator& rng, Tensor& out) {
  T* o = out.data<T>();
  int64_t n = out.numel();
  if constexpr (std::is_same_v<T, float>)
    drawInBulk(rng, n, 1, n >= kParallelThreshold,
               [o](int64_t i, const uint32_t* w) { o[i] = RandomGenerator::unitF32(w[0]); });
  else
    drawInBulk(rng, n, 2, n >= kParallelThreshold / 2,
               [o](int64_t i, const uint32_t* w) { o[i] = RandomGenerator::unitF64(wide(w)); });
}

// A spare half left by an earlier normal() comes first; then pairs from
// four words each; an odd last element leaves its pair's spare.
template <class T>
void normalKernel(RandomGenerator& rng, Tensor& out) {
  T* o = out.data<T>();
  int64_t n = out.numel(), i = 0;
  if (n > 0 && rng.hasSpare()) o[i++] = static_cast<T>(rng.normal());
  T* pairs = o + i;
  int64_t count = (n - i) / 2;
  // A pair costs a log, a sqrt and a sincos: worth other cores sooner.
  drawChunks(rng, count, 4, count >= 2048, [pairs](int64_t begin, int64_t end, const uint32_t* w) {
    int64_t m = end - begin;
    auto u = std::make_unique_for_overwrite<double[]>(static_cast<size_t>(4 * m));
    double *u1 = u.get(), *u2 = u1 + m, *first = u2 + m, *second = first + m;
    RandomGenerator::normalUniforms(w, m, u1, u2);
    vmath::boxMuller(u1, u2, first, second, m);
    for (int64_t j = 0; j < m; ++j) {
      pairs[2 * (begin + j)] = static_cast<T>(first[j]);
      pairs[2 * (begin + j) + 1] = static_cast<T>(second[j]);
    }
  });
  if (i + 2 * count < n) o[n - 1] = static_cast<T>(rng.normal());
}

template <class T>
void randintKernel(RandomGenerator& rng, int64_t low, uint64_t range, Tensor& out) {
  T* o = out.data<T>();
  for (int64_t i = 0, n = out.numel(); i < n; ++i)
    o[i] = static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + rng.below(range)));
}

template <class T>
void randpermKernel(RandomGenerator& rng, Tensor& out) {
  T* o = out.data<T>();
  int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(i);
  for (int64_t i = n - 1; i > 0; --i) std::swap(o[i], o[rng.below(static_cast<uint64_t>(i) + 1)]);
}

// Dropout of a chunk: element i kept, scaled, where its draw's 53 bits
// reach `least`. Comparing the integers instead of the f64 in [0, 1) they
// make lets the loop vectorise without a branch (a draw kept or not at
// random costs a mispredicted branch in two at p = 0.5).
template <class T>
[[gnu::noinline]] void dropoutChunk(const T* __restrict in, const uint32_t* __restrict w, uint64_t least,
                                    double scale, T* __restrict o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = ((uint64_t(w[2 * i]) << 32) | w[2 * i + 1]) >> 11;
    o[i] = bits >= least ? static_cast<T>(in[i] * scale) : T(0);
  }
}

// Each element is kept (scaled by 1 / (1 - p)) where its f64 draw is >= p,
// that is where the draw's 53 bits, d * 2^-53, reach ceil(p * 2^53) (exact:
// both sides are p's and the draw's values scaled by a power of two).
template <class T>
void dropoutKernel(const Tensor& x, double p, RandomGenerator& rng, Tensor& out) {
  const T* in = x.data<T>();
  T* o = out.data<T>();
  double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  constexpr double kUnits = 9007199254740992.0;  // 2^53
  uint64_t least = p <= 0 ? 0 : p >= 1 ? uint64_t{1} << 53 : static_cast<uint64_t>(std::ceil(p * kUnits));
  int64_t n = out.numel();
  drawChunks(rng, n, 2, n >= kParallelThreshold / 2, [&](int64_t first, int64_t last, const uint32_t* w) {
    dropoutChunk<T>(in + first, w, least, scale, o + first, last - first);
  });
}

}  // namespace

void registerCpuRandomKernels(KernelTable& t) {
  forFloatDTypes([&](auto type, DType d) {
    using T = decltype(type);
    t.add<ir::Op::Rand>(d, uniformKernel<T>);
    t.add<ir::Op::Randn>(d, normalKernel<T>);
    t.add<ir::Op::Dropout>(d, dropoutKernel<T>);
  });
  t.add<ir::Op::Randint>(DType::I32, randintKernel<int32_t>);
  t.add<ir::Op::Randint>(DType::I64, randintKernel<int64_t>);
  t.add<ir::Op::Randperm>(DType::I32, randpermKernel<int32_t>);
  t.add<ir::Op::Randperm>(DType::I64, randpermKernel<int64_t>);
  t.add<ir::Op::Randperm>(DType::F32, randpermKernel<float>);
  t.add<ir::Op::Randperm>(DType::F64, randpermKernel<double>);
}

}  // namespace nn::rt
