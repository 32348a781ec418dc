// Device memory allocators. The CPU allocator returns 64-byte aligned blocks
// (one cache line, and the alignment AVX-512 loads want) and counts live and
// peak bytes, which memory reports and limits read.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

namespace nn::rt {

// A cap on the bytes a state holds in host memory (the embedding API's
// memory limit, include/nn/nn.h): its CPU devices' tensors, and its strs
// and containers (host_memory.h). Bytes are admitted before they are
// allocated, so an allocation past the cap fails before it touches the
// system's memory.
class MemoryCap {
 public:
  // Counts `bytes` in; throws MemoryLimitExceeded (and counts nothing)
  // when that would pass the limit.
  void admit(size_t bytes);
  void release(size_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }
  // Counts `bytes` already taken, even past the limit (which the next
  // admit() then meets).
  void add(size_t bytes) { used_.fetch_add(bytes, std::memory_order_relaxed); }
  // Throws MemoryLimitExceeded when `bytes` more would pass the limit now
  // (counts nothing: for a size known before what it sizes is built).
  void checkRoom(size_t bytes) const;
  // SIZE_MAX: no limit.
  void setLimit(size_t bytes) { limit_.store(bytes); }
  size_t limit() const { return limit_.load(); }
  size_t used() const { return used_.load(); }

 private:
  std::atomic<size_t> used_{0};
  std::atomic<size_t> limit_{SIZE_MAX};
};

// An allocation refused by a MemoryCap: out of memory, by the limit the
// host set rather than by the system; what() is the message users see.
class MemoryLimitExceeded : public std::bad_alloc {
 public:
  explicit MemoryLimitExceeded(size_t limit)
      : message_("out of memory: the memory limit of " + std::to_string(limit) + " bytes is reached") {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Throws std::bad_alloc when memory is exhausted.
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* p, size_t bytes) = 0;
  size_t liveBytes() const { return live_.load(); }
  size_t peakBytes() const { return peak_.load(); }
  // Starts a new peak from the bytes live now (torch's
  // reset_peak_memory_stats), to measure the peak of one piece of work.
  void resetPeak() { peak_.store(live_.load()); }
  // Failure injection for tests: the allocation after the next `n` throws
  // std::bad_alloc, once (a negative n: never).
  void failAfter(long n) { failIn_.store(n); }
  // Counts this allocator's blocks against `cap` (set before the first
  // allocation: blocks already out would be released uncounted).
  void setCap(MemoryCap* cap) { cap_ = cap; }

 protected:
  void count(ptrdiff_t delta);
  // Whether this allocation is the one failAfter() asked to fail.
  bool injectedFailure() { return failIn_.load(std::memory_order_relaxed) >= 0 && failIn_.fetch_sub(1) == 0; }
  MemoryCap* cap_ = nullptr;

 private:
  std::atomic<size_t> live_{0}, peak_{0};
  std::atomic<long> failIn_{-1};
};

// Large blocks are cached after release and handed out again for requests
// of the same size: tensors of one shape are allocated over and over, and
// fresh pages from the OS cost a page fault per 4 KiB (more than the
// arithmetic on them).
class CpuAllocator final : public Allocator {
 public:
  static constexpr size_t kAlignment = 64;
  // Blocks from this size up are cached; smaller ones go to malloc's own
  // free lists, which already serve them fast.
  static constexpr size_t kCacheFrom = 64 << 10;
  // The cache never holds more than this; beyond it blocks are freed.
  static constexpr size_t kCacheLimit = size_t(512) << 20;
  ~CpuAllocator() override;
  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes) override;
  size_t cachedBytes() const;
  // Returns every cached block to the system.
  void releaseCache();

 private:
  void* take(size_t bytes);  // allocate() once admitted by the cap

  mutable std::mutex mutex_;
  std::unordered_multimap<size_t, void*> cache_;
  size_t cached_ = 0;
};

}  // namespace nn::rt
