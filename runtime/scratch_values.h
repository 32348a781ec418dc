// Vectors of Values that calls reuse: each thread keeps one vector per
// nesting level of calls it has reached (up to a bound), and a call takes
// its level's, so a call in a loop allocates no argument list or frame and
// moves no vector around. Scratch memory, like a kernel's line buffer: a
// vector at rest holds no values, only capacity, and a large one is freed
// rather than kept. Taking and giving back are inline: every builtin call
// does both.
#pragma once

#include <optional>
#include <vector>

#include "runtime/per_thread.h"
#include "runtime/value.h"

namespace nn::rt {

class ScratchValues {
 public:
  // An empty vector: this thread's for the next nesting level, with the
  // capacity its last user left, or past the bound a vector of its own.
  ScratchValues() : levels_(perThread<Levels>()) {
    v_ = levels_.taken < kLevels ? &levels_.vectors[levels_.taken] : &own_.emplace();
    ++levels_.taken;
  }
  // Empties the vector (its values are released here) and gives the level
  // back. A callee may have taken the buffer (moved the vector away), which
  // leaves it empty; one grown large is freed.
  ~ScratchValues() {
    v_->clear();
    if (v_->capacity() > kMaxKeptCapacity) [[unlikely]]
      std::vector<Value>().swap(*v_);
    --levels_.taken;
  }
  ScratchValues(const ScratchValues&) = delete;
  ScratchValues& operator=(const ScratchValues&) = delete;

  // Room for n values; inline where the kept capacity suffices (nearly
  // every call), which std::vector::reserve, out of line, is not.
  void reserve(size_t n) {
    if (v_->capacity() < n) [[unlikely]]
      v_->reserve(n);
  }
  std::vector<Value>& operator*() { return *v_; }
  std::vector<Value>* operator->() { return v_; }

 private:
  // Bounds: vectors for this many levels per thread, each kept with at
  // most this many values of capacity (32 bytes each: 512 KiB per thread
  // at worst).
  static constexpr size_t kLevels = 32, kMaxKeptCapacity = 512;
  struct Levels {
    std::vector<Value> vectors[kLevels];
    size_t taken = 0;
  };
  Levels& levels_;
  std::vector<Value>* v_;
  std::optional<std::vector<Value>> own_;  // past the bound
};

}  // namespace nn::rt
