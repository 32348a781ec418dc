// The CPU allocator: aligned_alloc with live/peak accounting.
#include "runtime/allocator.h"

#include <cstdlib>
#include <new>

namespace nn::rt {

void Allocator::count(ptrdiff_t delta) {
  size_t now = live_.fetch_add(static_cast<size_t>(delta)) + static_cast<size_t>(delta);
  size_t peak = peak_.load();
  while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
  }
}

void MemoryCap::admit(size_t bytes) {
  size_t before = used_.fetch_add(bytes, std::memory_order_relaxed);
  size_t limit = limit_.load(std::memory_order_relaxed);
  if (before + bytes > limit || before + bytes < before) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    throw MemoryLimitExceeded(limit);
  }
}

void MemoryCap::checkRoom(size_t bytes) const {
  size_t used = used_.load(std::memory_order_relaxed);
  size_t limit = limit_.load(std::memory_order_relaxed);
  if (bytes > limit || used > limit - bytes) throw MemoryLimitExceeded(limit);
}

static size_t roundUp(size_t bytes) {
  size_t rounded = (bytes + CpuAllocator::kAlignment - 1) / CpuAllocator::kAlignment * CpuAllocator::kAlignment;
  return rounded == 0 ? CpuAllocator::kAlignment : rounded;
}

CpuAllocator::~CpuAllocator() { releaseCache(); }

void* CpuAllocator::allocate(size_t bytes) {
  if (injectedFailure()) throw std::bad_alloc();
  if (cap_) cap_->admit(bytes);
  try {
    return take(bytes);
  } catch (...) {
    if (cap_) cap_->release(bytes);
    throw;
  }
}

void* CpuAllocator::take(size_t bytes) {
  size_t rounded = roundUp(bytes);
  void* p = nullptr;
  if (rounded >= kCacheFrom) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(rounded);
    if (it != cache_.end()) {
      p = it->second;
      cache_.erase(it);
      cached_ -= rounded;
    }
  }
  if (!p) p = std::aligned_alloc(kAlignment, rounded);
  if (!p) {
    releaseCache();  // memory is short: give the cache back and retry once
    p = std::aligned_alloc(kAlignment, rounded);
    if (!p) throw std::bad_alloc();
  }
  count(static_cast<ptrdiff_t>(bytes));
  return p;
}

void CpuAllocator::deallocate(void* p, size_t bytes) {
  count(-static_cast<ptrdiff_t>(bytes));
  if (cap_) cap_->release(bytes);
  size_t rounded = roundUp(bytes);
  if (rounded >= kCacheFrom) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_ + rounded <= kCacheLimit) {
      cache_.emplace(rounded, p);
      cached_ += rounded;
      return;
    }
  }
  std::free(p);
}

size_t CpuAllocator::cachedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_;
}

void CpuAllocator::releaseCache() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& kv : cache_) std::free(kv.second);
  cache_.clear();
  cached_ = 0;
}

}  // namespace nn::rt
