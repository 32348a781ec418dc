// The per-thread vectors behind ScratchValues (scratch_values.h): one per
// nesting level, taken and given back in order (calls nest).
#include "runtime/scratch_values.h"

#include "runtime/per_thread.h"

namespace nn::rt {

namespace {

// Bounds: vectors for this many levels per thread, each kept with at most
// this many values of capacity (32 bytes each: 512 KiB per thread at worst).
constexpr size_t kLevels = 32, kMaxKeptCapacity = 512;

struct Levels {
  std::vector<Value> vectors[kLevels];
  size_t taken = 0;
};

}  // namespace

ScratchValues::ScratchValues() {
  Levels& l = perThread<Levels>();
  v_ = l.taken < kLevels ? &l.vectors[l.taken] : &own_;
  ++l.taken;
}

ScratchValues::~ScratchValues() {
  v_->clear();
  // A callee may have taken the buffer (moved the vector away), which
  // leaves it empty; one grown large is freed.
  if (v_->capacity() > kMaxKeptCapacity) std::vector<Value>().swap(*v_);
  --perThread<Levels>().taken;
}

}  // namespace nn::rt
