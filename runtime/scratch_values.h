// Vectors of Values that calls reuse: each thread keeps the emptied
// vectors of calls that returned (about one per nesting level it has
// reached, up to a bound), so a call in a loop allocates no argument list
// or frame. Scratch memory, like a kernel's line buffer: a spare holds no
// values, only capacity, and a large one is freed rather than kept.
#pragma once

#include <vector>

#include "runtime/value.h"

namespace nn::rt {

class ScratchValues {
 public:
  // An empty vector, with the capacity of a spare when this thread has one.
  ScratchValues();
  // Empties the vector (its values are released here) and keeps it as a spare.
  ~ScratchValues();
  ScratchValues(const ScratchValues&) = delete;
  ScratchValues& operator=(const ScratchValues&) = delete;

  std::vector<Value>& operator*() { return v_; }
  std::vector<Value>* operator->() { return &v_; }

 private:
  std::vector<Value> v_;
};

}  // namespace nn::rt
