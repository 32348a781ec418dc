// A device that tensors live on: its name ("cpu"; the heterogeneous issue
// adds "cpu:N" and "cuda:N"), its memory (an Allocator), whether the host
// can address that memory, its kernel table, through which every op
// dispatches by (device, op, dtype), and its execution queue, on which
// those kernels run (execution_queue.h). Devices are objects created at run
// time, so a plugin (the CUDA one, loaded with dlopen) makes its own with
// its own allocator, kernels and queue; nothing in the runtime enumerates
// device kinds. Each interpreter state owns its devices (runtime/context.h);
// there is no process-wide device.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "runtime/allocator.h"
#include "runtime/execution_queue.h"
#include "runtime/kernels.h"

namespace nn::rt {

// What a device's kernels keep between calls (the CPU's oneDNN primitive
// cache): one object per device, so that nothing of the kind is shared
// between interpreter states.
class KernelState {
 public:
  virtual ~KernelState() = default;
};

class Device {
 public:
  // `hostMemory`: raw pointers into this device's memory are valid on the
  // CPU (Tensor::data checks it). `kernels` is filled before the device is
  // made and outlives it (the CPU's is one immutable table, cpuKernels(),
  // shared until a device extends it); `memory` and `queue` outlive it.
  Device(std::string name, bool hostMemory, Allocator& memory, const KernelTable& kernels, ExecutionQueue& queue)
      : name_(std::move(name)), hostMemory_(hostMemory), memory_(memory), kernels_(&kernels), queue_(queue) {}
  // Virtual: a context owns registered devices through Device pointers.
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const std::string& name() const { return name_; }
  bool hostMemory() const { return hostMemory_; }
  Allocator& allocator() const { return memory_; }
  // The kernels of this device, by op and dtype.
  const KernelTable& kernels() const { return *kernels_; }
  // Where this device's kernels run, in launch order.
  ExecutionQueue& queue() const { return queue_; }
  // Adds or replaces kernels of this device at run time (a plugin's, a
  // test's): the device takes its own copy of the shared table first, so
  // no other device sees the change. Not while this device runs work.
  void extendKernels(const std::function<void(KernelTable&)>& add);
  // Transfers between this device's memory and the host's (a device whose
  // memory the host cannot address brings its own: a GPU's copy engine);
  // `bytes` from host `src` to this device's `dst`, and back. They are
  // ordered with the device's queued work. The default (host memory) is a
  // memcpy.
  virtual void copyFromHost(void* dst, const void* src, size_t bytes) const;
  virtual void copyToHost(void* dst, const void* src, size_t bytes) const;
  // The host device this one makes values on when its memory is not the
  // host's (host_made_kernels.h): the context's CPU, set when the context
  // registers it. Null before that.
  Device* host() const { return host_; }
  void setHost(Device& host) { host_ = &host; }
  // Where host code makes or reads values for this device: the device
  // itself when the host can address its memory (or it has no host yet),
  // else its host.
  Device& hostSide() { return hostMemory_ || !host_ ? *this : *host_; }
  // Whether Tensor::bytes() may give the host this device's memory although
  // hostMemory() is false: never for a real device. The tests' stand-in GPU
  // (whose memory is in fact the host's, run by the CPU's kernels) says yes
  // while one of its kernels runs, so that host code reading its tensors
  // anywhere else fails there as it would on a GPU.
  virtual bool kernelAddressesOnHost() const { return false; }
  // The kernels' state of type S, made on first use (from any thread).
  template <class S>
  S& kernelState() const {
    std::call_once(stateOnce_, [this] { state_ = std::make_unique<S>(); });
    S* s = dynamic_cast<S*>(state_.get());
    if (!s) throw std::logic_error("device '" + name_ + "' holds kernel state of another kind");
    return *s;
  }

 private:
  std::string name_;
  bool hostMemory_;
  Allocator& memory_;
  const KernelTable* kernels_;
  ExecutionQueue& queue_;
  std::unique_ptr<KernelTable> ownKernels_;
  Device* host_ = nullptr;
  mutable std::once_flag stateOnce_;
  mutable std::unique_ptr<KernelState> state_;
};

namespace detail {
// Memory for 0-d tensors only, which live in their storage's inline bytes:
// any real allocation is a bug in the caller.
class InlineOnlyAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes) override;
  void deallocate(void*, size_t) override {}
};
struct ScalarMemory {
  InlineOnlyAllocator memory;
  ImmediateQueue runQueue;
};
}  // namespace detail

// Python-number math (exp(1.0), maximum(2, 3)) runs through the CPU
// kernels, so numbers and tensors compute alike, on 0-d tensors of this
// device, made on the stack for one computation; results leave it as
// numbers.
class ScalarDevice final : private detail::ScalarMemory, public Device {
 public:
  ScalarDevice();
};

// The CPU kernels (built once, then only read; every CPU device uses them).
const KernelTable& cpuKernels();

namespace detail {
// Holds the CPU device's allocator and queue so that they are built before
// the Device base that refers to them.
struct CpuMemory {
  CpuAllocator memory;
  ImmediateQueue runQueue;
};
}  // namespace detail

// The host CPU: oneDNN and the runtime's own loops, on its own CPU
// allocator (so each interpreter state counts, caches and limits its own
// memory), run on the launching thread (its kernels use every core
// themselves). Tensors must not outlive the device that holds them.
class CpuDevice final : private detail::CpuMemory, public Device {
 public:
  CpuDevice();
  CpuAllocator& cpuAllocator() { return memory; }
};

namespace detail {
struct WorkerCpuMemory {
  CpuAllocator memory;
  WorkerQueue runQueue;
};
}  // namespace detail

// A logical CPU device (the heterogeneous issue's "cpu:N"): the CPU's
// kernels on host memory of its own allocator, run on the device's own
// worker thread, so that work placed on two such devices runs
// concurrently and every placement and copy path is testable on one host.
class WorkerCpuDevice final : private detail::WorkerCpuMemory, public Device {
 public:
  explicit WorkerCpuDevice(std::string name);
  CpuAllocator& cpuAllocator() { return memory; }
  std::thread::id workerId() const { return runQueue.workerId(); }
};

}  // namespace nn::rt
