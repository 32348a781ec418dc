// A stand-in for the CUDA plugin on machines without a GPU, for one
// question: do the GPU scripts and benchmarks (tests/gpu/*.nn,
// bench/cuda_steps.nn) use any op, for any dtype, that a cuda device has
// no kernel for? It registers `cuda:0` with the CPU's kernels for exactly
// the ops and dtypes the real plugin covers (read from libnn_cuda.so, whose
// path is NN_CUDA_PLUGIN), plus the creation ops the context makes on the
// host for a GPU (host_made_kernels.h), and a queue that, like the CUDA
// one, is not immediate. A missing kernel is then the runtime's located
// "has no kernel on device 'cuda:0'" error here, not on the first GPU run.
// Its memory is in fact the host's, but it tells the runtime otherwise, as
// a GPU does: tensors reach the host only through its transfers, and only
// its kernels, while they run, may address its memory directly
// (Device::kernelAddressesOnHost). Host code that reads one of its tensors
// without copying it first is then an error here too, not a crash on the
// first GPU run.
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "runtime/allocator.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/device_plugin.h"
#include "runtime/host_made_kernels.h"

namespace {

using namespace nn::rt;

// Runs each launch at once on the calling thread, as the CUDA queue does
// (which only enqueues on its stream), without claiming to be immediate,
// and counts the kernels running. The count is the device's, not the
// thread's, because a CPU kernel may hand its loop to other threads.
class LaunchQueue final : public ExecutionQueue {
 public:
  LaunchQueue() : ExecutionQueue(false) {}
  void run(nn::FunctionRef<void()> work) override {
    running.fetch_add(1);
    struct Done {
      std::atomic<int>& n;
      ~Done() { n.fetch_sub(1); }
    } done{running};
    work();
  }
  std::atomic<int> running{0};
};

struct Parts {
  explicit Parts(const KernelTable& cuda) : covered(cpuKernels()) {
    covered.keepOnly(cuda);
    addHostMadeKernels(covered);
  }
  KernelTable covered;
  CpuAllocator memory;
  LaunchQueue launches;
};

class CoverageDevice final : private Parts, public Device {
 public:
  explicit CoverageDevice(const KernelTable& cuda)
      : Parts(cuda), Device("cuda:0", /*hostMemory=*/false, memory, covered, launches) {}
  void copyFromHost(void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  void copyToHost(void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  bool kernelAddressesOnHost() const override { return launches.running.load() > 0; }
};

}  // namespace

extern "C" bool nn_register_devices(Context& context, std::string& why) {
  void* cuda = dlopen(NN_CUDA_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    const char* e = dlerror();
    why = e ? e : "cannot load " NN_CUDA_PLUGIN;
    return false;
  }
  using Table = const KernelTable* (*)();
  auto table = reinterpret_cast<Table>(dlsym(cuda, "nn_cuda_kernels"));
  if (!table) {
    why = NN_CUDA_PLUGIN " has no nn_cuda_kernels";
    return false;
  }
  context.addDevice(std::make_unique<CoverageDevice>(*table()));
  why.clear();
  return true;
}
