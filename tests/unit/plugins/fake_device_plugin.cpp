// A device plugin for the plugin seam's tests (device_plugin_test.cpp):
// registers `cuda:0`, a device whose memory the host may not read
// directly (malloc'd, reached only through its transfers, as a GPU's is),
// with two kernels (fill and f32 add), so that loading, registration,
// copies both ways, memory accounting and the located "no kernel" error
// are tested on machines without a GPU.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/device_plugin.h"

namespace {

using namespace nn::rt;

class HeapAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes) override {
    void* p = std::malloc(bytes ? bytes : 1);
    if (!p) throw std::bad_alloc();
    count(static_cast<ptrdiff_t>(bytes));
    return p;
  }
  void deallocate(void* p, size_t bytes) override {
    std::free(p);
    count(-static_cast<ptrdiff_t>(bytes));
  }
};

float* at(const Tensor& t) { return reinterpret_cast<float*>(t.deviceBytes()); }

void fill(double value, Tensor& out) {
  for (int64_t i = 0; i < out.numel(); ++i) at(out)[i] = static_cast<float>(value);
}

// Contiguous or broadcast operands of out's shape.
void add(const Tensor& a, const Tensor& b, Tensor& out, nn::SourceLoc) {
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t ia = 0, ib = 0, rest = i;
    for (size_t d = out.shape().size(); d-- > 0;) {
      int64_t k = rest % out.shape()[d];
      rest /= out.shape()[d];
      ia += k * a.strides()[d];
      ib += k * b.strides()[d];
    }
    at(out)[i] = at(a)[ia] + at(b)[ib];
  }
}

const KernelTable& fakeKernels() {
  static const KernelTable table = [] {
    KernelTable t;
    t.add<nn::ir::Op::Full>(DType::F32, fill);
    t.addBinary(nn::ir::Op::Add, DType::F32, add);
    return t;
  }();
  return table;
}

struct Parts {
  HeapAllocator memory;
  ImmediateQueue launches;
};

class FakeDevice final : private Parts, public Device {
 public:
  FakeDevice() : Device("cuda:0", /*hostMemory=*/false, memory, fakeKernels(), launches) {}
  void copyFromHost(void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
  void copyToHost(void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
};

}  // namespace

extern "C" bool nn_register_devices(Context& context, std::string& why) {
  context.addDevice(std::make_unique<FakeDevice>());
  why.clear();
  return true;
}
