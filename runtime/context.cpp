// The per-state runtime context (see context.h).
#include "runtime/context.h"

#include <random>

#include "runtime/constant_eval.h"

namespace nn::rt {

Context::Context(ThreadPool& pool)
    : rng_((uint64_t(std::random_device{}()) << 32) | std::random_device{}()),
      pool_(pool),
      passes_{constantEvaluator()} {}

}  // namespace nn::rt
