// Vectors of Values that calls reuse: each thread keeps one vector per
// nesting level of calls it has reached (up to a bound), and a call takes
// its level's, so a call in a loop allocates no argument list or frame and
// moves no vector around. Scratch memory, like a kernel's line buffer: a
// vector at rest holds no values, only capacity, and a large one is freed
// rather than kept.
#pragma once

#include <vector>

#include "runtime/value.h"

namespace nn::rt {

class ScratchValues {
 public:
  // An empty vector: this thread's for the next nesting level, with the
  // capacity its last user left, or past the bound a vector of its own.
  ScratchValues();
  // Empties the vector (its values are released here) and gives the level
  // back.
  ~ScratchValues();
  ScratchValues(const ScratchValues&) = delete;
  ScratchValues& operator=(const ScratchValues&) = delete;

  std::vector<Value>& operator*() { return *v_; }
  std::vector<Value>* operator->() { return v_; }

 private:
  std::vector<Value>* v_;
  std::vector<Value> own_;  // past the bound
};

}  // namespace nn::rt
