// A device plugin for the plugin seam's tests (device_plugin_test.cpp):
// registers `cuda:0`, a device whose memory the host may not read
// directly (malloc'd, reached only through its transfers, as a GPU's is),
// with a few f32 kernels (fill, add, copies, indexing reads and writes,
// gather, and a subtraction whose library fails), so that loading,
// registration, copies both ways, memory accounting, index arrays read on
// the host, the located "no kernel" error and a kernel's library error are
// tested on machines without a GPU.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
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

// A kernel whose library fails, as a GPU library's call can (a launch that
// does not start, a library status): the runtime locates what it throws.
void subFails(const Tensor&, const Tensor&, Tensor&, nn::SourceLoc) {
  throw std::runtime_error("the library said no");
}

// f32 copies between any strides (contiguous, clone, a view's .to).
void copy(const Tensor& src, const Tensor& dst) {
  for (int64_t i = 0; i < dst.numel(); ++i) at(dst)[dst.flatOffset(i)] = at(src)[src.flatOffset(i)];
}

// Indexing: offsets (host memory) count from the storage's start.
void take(const Tensor& t, const int64_t* offsets, int64_t n, int64_t run, Tensor& out) {
  const float* base = at(t) - t.offset();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < run; ++j) at(out)[i * run + j] = base[offsets[i] + j];
}

void put(const Tensor& values, const int64_t* offsets, int64_t n, Tensor& dst) {
  float* base = at(dst) - dst.offset();
  for (int64_t i = 0; i < n; ++i) base[offsets[i]] = at(values)[values.flatOffset(i)];
}

// out[i] = x at index element i along axis (index: i64 on this device).
void gather(const Tensor& x, int axis, const Tensor& index, Tensor& out) {
  const int64_t* idx = reinterpret_cast<const int64_t*>(index.deviceBytes());
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t k = idx[index.flatOffset(i)], rest = i, off = 0;
    if (k < 0) k += x.dim(axis);
    for (int d = index.ndim() - 1; d >= 0; --d) {
      off += (d == axis ? k : rest % index.dim(d)) * x.strides()[d];
      rest /= index.dim(d);
    }
    at(out)[i] = at(x)[off];
  }
}

const KernelTable& fakeKernels() {
  static const KernelTable table = [] {
    KernelTable t;
    t.add<nn::ir::Op::Full>(DType::F32, fill);
    t.addBinary(nn::ir::Op::Add, DType::F32, add);
    t.addBinary(nn::ir::Op::Sub, DType::F32, subFails);
    t.add<nn::ir::Op::AsType>(DType::F32, copy);
    t.add<nn::ir::Op::GetItem>(DType::F32, take);
    t.add<nn::ir::Op::SetItem>(DType::F32, put);
    t.add<nn::ir::Op::Gather>(DType::F32, gather);
    return t;
  }();
  return table;
}

struct Parts {
  HeapAllocator memory;
  ImmediateQueue launches;
};

// Transfers into the device so far, read by the tests through
// nn_fake_transfers_in (a GPU's transfer in waits for its queued work, so
// the runtime must not make one per operation).
std::atomic<int64_t> transfersIn{0};

class FakeDevice final : private Parts, public Device {
 public:
  FakeDevice() : Device("cuda:0", /*hostMemory=*/false, memory, fakeKernels(), launches) {}
  void copyFromHost(void* dst, const void* src, size_t bytes) const override {
    transfersIn.fetch_add(1);
    std::memcpy(dst, src, bytes);
  }
  void copyToHost(void* dst, const void* src, size_t bytes) const override { std::memcpy(dst, src, bytes); }
};

}  // namespace

extern "C" int64_t nn_fake_transfers_in() { return transfersIn.load(); }

extern "C" bool nn_register_devices(Context& context, std::string& why) {
  context.addDevice(std::make_unique<FakeDevice>());
  why.clear();
  return true;
}
