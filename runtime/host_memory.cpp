// The calling thread's memory cap for strs and containers, and the checks
// made before a script-sized one is built (host_memory.h).
#include "runtime/host_memory.h"

#include <new>
#include <string>

namespace nn::rt {

namespace {

// Per thread: the cap of the state whose code the thread runs (set by
// HostMemoryScope only), and the bytes taken from it not yet charged to a
// value (chargeHost, releaseHost). No other thread can see either.
struct ThreadCredit {
  MemoryCap* cap = nullptr;
  size_t credit = 0;
};
thread_local ThreadCredit current;

// Credit is taken this much at a time, and given back past twice this.
constexpr size_t kChunk = 32 << 10;

void returnCredit() {
  if (current.cap && current.credit) current.cap->release(current.credit);
  current.credit = 0;
}

}  // namespace

MemoryCap* currentHostCap() { return current.cap; }

HostMemoryScope::HostMemoryScope(MemoryCap* cap) : previous_(current.cap) {
  if (cap == current.cap) return;
  returnCredit();
  current.cap = cap;
}

HostMemoryScope::~HostMemoryScope() {
  if (previous_ == current.cap) return;
  returnCredit();
  current.cap = previous_;
}

void chargeHost(MemoryCap& cap, size_t bytes, bool pastLimit) {
  if (&cap != current.cap) {
    if (pastLimit)
      cap.add(bytes);
    else
      cap.admit(bytes);
    return;
  }
  if (bytes <= current.credit) {
    current.credit -= bytes;
    return;
  }
  size_t need = bytes - current.credit;
  if (pastLimit) {
    cap.add(need);
  } else {
    // A chunk more than is needed where the limit allows, else just that.
    try {
      cap.admit(need + kChunk);
      need += kChunk;
    } catch (const MemoryLimitExceeded&) {
      cap.admit(need);
    }
  }
  current.credit = current.credit + need - bytes;
}

void releaseHost(MemoryCap& cap, size_t bytes) noexcept {
  if (&cap != current.cap) {
    cap.release(bytes);
    return;
  }
  current.credit += bytes;
  if (current.credit > 2 * kChunk) {
    cap.release(current.credit - kChunk);
    current.credit = kChunk;
  }
}

void checkHostAllocation(size_t count, size_t size) {
  constexpr size_t kTerabyte = size_t(1) << 40;
  if (size && count > kTerabyte / size) throw std::bad_alloc();
  // The thread's credit is counted already: it is room.
  size_t bytes = count * size;
  if (current.cap && bytes > current.credit) current.cap->checkRoom(bytes - current.credit);
}

size_t heapBytes(const std::string& s) {
  static const size_t kInPlace = std::string().capacity();
  return s.capacity() > kInPlace ? s.capacity() + 1 : 0;
}

}  // namespace nn::rt
