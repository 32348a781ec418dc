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

void* CpuAllocator::allocate(size_t bytes) {
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (!p) throw std::bad_alloc();
  count(static_cast<ptrdiff_t>(bytes));
  return p;
}

void CpuAllocator::deallocate(void* p, size_t bytes) {
  std::free(p);
  count(-static_cast<ptrdiff_t>(bytes));
}

CpuAllocator& cpuAllocator() {
  static CpuAllocator a;
  return a;
}

}  // namespace nn::rt
