// The memory limit for the values a script builds in host memory: strs,
// lists, tuples, dicts and tensor handles count against the same MemoryCap
// as the state's tensors (the embedding API's nn_set_memory_limit), so that
// `"a" * 10**11` or a list of a billion items fails at the operation that
// asks, as a too-large tensor does, instead of taking the host process down.
//
// Such values are made everywhere (Value::str, makeList, ...) by code that
// knows no state, so the cap to count against is the calling thread's:
// a state sets it (HostMemoryScope) while it runs code on a thread — its
// entry points, the graph executor's tasks on the pool and device threads
// — and each object keeps the cap it was counted against until it dies
// (HostCharge). Objects made outside any scope (unit tests, the compiler
// before a state exists) count against nothing. Like tensors, values must
// not outlive the context whose cap they count against.
//
// Strs and tuples are made and freed at every step of a loop, so a thread
// does not go to the cap's shared atomic counter for each: it takes credit
// from its scope's cap a chunk at a time and charges against that, giving
// the credit back when it leaves the scope. The cap's count is then exact
// whenever no thread is in a scope (an entry point has returned), and ahead
// of what is held by at most a few chunks per thread in between (the limit
// is met that much early).
#pragma once

#include <cstddef>
#include <string>

#include "runtime/allocator.h"

namespace nn::rt {

// The cap of the state running code on this thread, or null.
MemoryCap* currentHostCap();

// Makes `cap` the calling thread's for the scope's lifetime, restoring the
// previous one after (a host function may run another state's code). The
// thread's credit goes back to a cap whenever the thread leaves it.
class HostMemoryScope {
 public:
  explicit HostMemoryScope(MemoryCap* cap);
  ~HostMemoryScope();
  HostMemoryScope(const HostMemoryScope&) = delete;
  HostMemoryScope& operator=(const HostMemoryScope&) = delete;

 private:
  MemoryCap* previous_;
};

// Counts `bytes` against `cap`, from the thread's credit where it is the
// thread's cap; throws MemoryLimitExceeded (counting nothing) past the
// limit, unless `pastLimit` (for memory already taken).
void chargeHost(MemoryCap& cap, size_t bytes, bool pastLimit = false);
// Gives back bytes chargeHost counted.
void releaseHost(MemoryCap& cap, size_t bytes) noexcept;

// What one heap value holds against the cap current when it was made.
class HostCharge {
 public:
  HostCharge() : cap_(currentHostCap()) {}
  ~HostCharge() {
    if (cap_ && bytes_) releaseHost(*cap_, bytes_);
  }
  HostCharge(const HostCharge&) = delete;
  HostCharge& operator=(const HostCharge&) = delete;
  // The value now holds `bytes` in all: counts the difference. Growth past
  // the limit throws MemoryLimitExceeded and leaves the count as it was.
  void set(size_t bytes) { change(bytes, false); }
  // As set(), for memory already taken by a change that cannot be undone
  // (a rehash, a list replaced by a copy): counted even past the limit,
  // which the value's next growth then meets.
  void settle(size_t bytes) { change(bytes, true); }
  size_t bytes() const { return bytes_; }

 private:
  void change(size_t bytes, bool pastLimit) {
    if (!cap_) return;
    if (bytes > bytes_)
      chargeHost(*cap_, bytes - bytes_, pastLimit);
    else if (bytes < bytes_)
      releaseHost(*cap_, bytes_ - bytes);
    bytes_ = bytes;
  }
  MemoryCap* cap_;
  size_t bytes_ = 0;
};

// Throws before a str or container of `count` items of `size` bytes is
// built, for sizes a script computes (s * n, list(range(n)), a join, a
// format width): std::bad_alloc past a terabyte, which no machine here
// could hold (the sanitizers' allocators abort on such a request where the
// normal one fails it), and MemoryLimitExceeded when the current cap has
// no room for it.
void checkHostAllocation(size_t count, size_t size);

// The heap bytes of a std::string's text beyond the object itself (none
// while it fits in the string's own buffer).
size_t heapBytes(const std::string& s);

}  // namespace nn::rt
