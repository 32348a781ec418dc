// The host CPU device (see device.h).
#include "runtime/device.h"

#include <cstring>
#include <stdexcept>

#include "runtime/dispatch.h"

namespace nn::rt {

const KernelTable& cpuKernels() {
  static const KernelTable table = [] {
    KernelTable t;
    registerCpuElementwiseKernels(t);
    registerCpuMathKernels(t);
    registerCpuNnKernels(t);
    registerCpuSoftmaxKernels(t);
    registerCpuConvKernels(t);
    registerCpuPoolKernels(t);
    registerCpuReduceKernels(t);
    registerCpuCopyKernels(t);
    registerCpuLossKernels(t);
    registerCpuCreateKernels(t);
    registerCpuRandomKernels(t);
    registerCpuOrderKernels(t);
    registerCpuResampleKernels(t);
    registerCpuLinalgKernels(t);
    registerCpuLuKernels(t);
    registerCpuCtcKernels(t);
    return t;
  }();
  return table;
}

void Device::extendKernels(const std::function<void(KernelTable&)>& add) {
  if (!ownKernels_) {
    ownKernels_ = std::make_unique<KernelTable>(*kernels_);
    kernels_ = ownKernels_.get();
  }
  add(*ownKernels_);
}

void Device::copyFromHost(void* dst, const void* src, size_t bytes) const {
  if (bytes) std::memcpy(dst, src, bytes);
}

void Device::copyToHost(void* dst, const void* src, size_t bytes) const {
  if (bytes) std::memcpy(dst, src, bytes);
}

void detail::noKernel(ir::Op op, DType t, const Device& device, SourceLoc loc) {
  fail(loc, std::string(ir::opInfo(op).name) + " has no " + dtypeName(t) + " kernel on device '" + device.name() + "'");
}

void detail::kernelFailed(ir::Op op, const Device& device, const std::exception& e, SourceLoc loc) {
  fail(loc, std::string(ir::opInfo(op).name) + " failed on device '" + device.name() + "': " + e.what());
}

void* detail::InlineOnlyAllocator::allocate(size_t bytes) {
  throw std::logic_error("a scalar computation allocated " + std::to_string(bytes) + " bytes");
}

ScalarDevice::ScalarDevice() : Device("cpu", /*hostMemory=*/true, memory, cpuKernels(), runQueue) {}

CpuDevice::CpuDevice() : Device("cpu", /*hostMemory=*/true, memory, cpuKernels(), runQueue) {}

WorkerCpuDevice::WorkerCpuDevice(std::string name)
    : Device(std::move(name), /*hostMemory=*/true, memory, cpuKernels(), runQueue) {}

}  // namespace nn::rt
