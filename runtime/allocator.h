// Device memory allocators. The CPU allocator returns 64-byte aligned blocks
// (one cache line, and the alignment AVX-512 loads want) and counts live and
// peak bytes, which memory reports and limits read.
#pragma once

#include <atomic>
#include <cstddef>

namespace nn::rt {

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Throws std::bad_alloc when memory is exhausted.
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* p, size_t bytes) = 0;
  size_t liveBytes() const { return live_.load(); }
  size_t peakBytes() const { return peak_.load(); }

 protected:
  void count(ptrdiff_t delta);

 private:
  std::atomic<size_t> live_{0}, peak_{0};
};

class CpuAllocator final : public Allocator {
 public:
  static constexpr size_t kAlignment = 64;
  void* allocate(size_t bytes) override;
  void deallocate(void* p, size_t bytes) override;
};

CpuAllocator& cpuAllocator();

}  // namespace nn::rt
