// The host CPU device (see device.h).
#include "runtime/device.h"

#include <stdexcept>

namespace nn::rt {

const KernelTable& cpuKernels() {
  static const KernelTable table = [] {
    KernelTable t;
    registerCpuElementwiseKernels(t);
    registerCpuMathKernels(t);
    return t;
  }();
  return table;
}

void* detail::InlineOnlyAllocator::allocate(size_t bytes) {
  throw std::logic_error("a scalar computation allocated " + std::to_string(bytes) + " bytes");
}

ScalarDevice::ScalarDevice() : Device("cpu", /*hostMemory=*/true, memory, cpuKernels()) {}

CpuDevice::CpuDevice() : Device("cpu", /*hostMemory=*/true, memory, cpuKernels()) {}

}  // namespace nn::rt
