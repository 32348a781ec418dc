// The per-thread stack of values behind FrameSlots (frame_slots.h): chunks
// of slots, used from the first up, each made when a call first reaches it
// and kept for the thread's later calls (a recursion 1,000 calls deep of
// small functions fits in the first).
#include "runtime/frame_slots.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/per_thread.h"

namespace nn::rt {

namespace {

constexpr size_t kChunkSlots = 8192;  // 256 KiB of values

struct Chunk {
  std::unique_ptr<Value[]> slots;
  size_t size = 0;
};

struct SlotStack {
  std::vector<Chunk> chunks;
  size_t chunk = 0;  // the chunk in use
  size_t used = 0;   // its slots taken
};

}  // namespace

FrameSlots::FrameSlots(size_t n) : size_(n) {
  SlotStack& s = perThread<SlotStack>();
  chunk_ = s.chunk;
  used_ = s.used;
  if (!s.chunks.empty() && s.used + n <= s.chunks[s.chunk].size) {
    slots_ = s.chunks[s.chunk].slots.get() + s.used;
    s.used += n;
    return;
  }
  // The next chunk, made (or made larger: no frame is in it) as needed.
  size_t next = s.chunks.empty() ? 0 : s.chunk + 1;
  if (next == s.chunks.size()) s.chunks.emplace_back();
  Chunk& c = s.chunks[next];
  if (c.size < n) {
    size_t size = std::max(kChunkSlots, n);
    c.slots = std::make_unique<Value[]>(size);
    c.size = size;
  }
  s.chunk = next;
  s.used = n;
  slots_ = c.slots.get();
}

FrameSlots::~FrameSlots() {
  // Back to None, not only released: the next frame here starts unbound.
  for (size_t i = 0; i < size_; ++i) slots_[i].clear();
  SlotStack& s = perThread<SlotStack>();
  s.chunk = chunk_;
  s.used = used_;
}

}  // namespace nn::rt
