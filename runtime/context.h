// What one interpreter state owns at run time and passes down, instead of
// process-wide objects: its CPU device (with its own allocator, so memory is
// counted and cached per state), its random generator, the thread pool its
// graphs run on (a handle: states may share a pool, which is internally
// synchronised), and the context its compilations give the passes. Two
// states built on two contexts share no mutable data, so they can run in
// two threads at once. Tensors must not outlive the context that made them.
#pragma once

#include <cstdint>

#include "passes/passes.h"
#include "runtime/device.h"
#include "runtime/random.h"
#include "runtime/thread_pool.h"

namespace nn::rt {

class Context {
 public:
  // `pool`: where graph mode runs independent nodes.
  explicit Context(ThreadPool& pool);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Where creation builtins (zeros, tensor, rand, load, ...) put tensors.
  CpuDevice& cpu() { return cpu_; }
  // seed/rand/randn/randint; an unseeded state starts from a random seed.
  RandomGenerator& rng() { return rng_; }
  ThreadPool& pool() { return pool_; }
  passes::PassContext& passes() { return passes_; }

 private:
  CpuDevice cpu_;
  RandomGenerator rng_;
  ThreadPool& pool_;
  passes::PassContext passes_;
};

}  // namespace nn::rt
