// A stand-in for the CUDA plugin on machines without a GPU, for one
// question: do the GPU scripts and benchmarks (tests/gpu/*.nn,
// bench/cuda_steps.nn) use any op, for any dtype, that a cuda device has
// no kernel for? It registers `cuda:0` with the CPU's kernels for exactly
// the ops and dtypes the real plugin covers (read from libnn_cuda.so, whose
// path is NN_CUDA_PLUGIN), plus the creation ops the context makes on the
// host for a GPU (host_made_kernels.h), and a queue that, like the CUDA
// one, is not immediate. A missing kernel is then the runtime's located
// "has no kernel on device 'cuda:0'" error here, not on the first GPU run.
// Its memory is the host's, so what it checks is coverage, not the
// transfers (the fake plugin tests those).
#include <dlfcn.h>

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
// (which only enqueues on its stream), without claiming to be immediate.
class LaunchQueue final : public ExecutionQueue {
 public:
  LaunchQueue() : ExecutionQueue(false) {}
  void run(nn::FunctionRef<void()> work) override { work(); }
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
      : Parts(cuda), Device("cuda:0", /*hostMemory=*/true, memory, covered, launches) {}
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
