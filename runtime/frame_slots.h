// The slots of an interpreted call's frame, taken from a stack of values
// that each thread keeps: a call takes the next run of slots above its
// caller's and gives it back when it returns (calls nest, so the run is
// always the top one), which costs a bump of the stack's top and the
// release of what the frame left, instead of a vector sized, filled with
// None and emptied per call. Slots at rest hold None, so a frame starts
// with every value unbound, as runFunction's callers expect.
#pragma once

#include <cstddef>
#include <span>

#include "runtime/value.h"

namespace nn::rt {

class FrameSlots {
 public:
  // `n` slots, each None, above the frames this thread holds.
  explicit FrameSlots(size_t n);
  // Releases the values left in the slots and gives them back.
  ~FrameSlots();
  FrameSlots(const FrameSlots&) = delete;
  FrameSlots& operator=(const FrameSlots&) = delete;

  Value* data() { return slots_; }
  std::span<Value> span() { return {slots_, size_}; }

 private:
  Value* slots_;
  size_t size_;
  // Where the stack's top was: restored when the frame goes.
  size_t chunk_, used_;
};

}  // namespace nn::rt
