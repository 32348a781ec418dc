// The device seam: a device made at run time with its own allocator and
// kernel table (as a plugin would) receives the dispatch of the ops on its
// tensors; a device whose memory the host cannot address refuses raw
// access with an error instead of handing out a pointer; operands on two
// devices are an error, never silently wrong.
#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/device.h"
#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"
#include "test_device.h"

using namespace nn;
using namespace nn::rt;

namespace {

class MallocAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes) override { return std::malloc(bytes ? bytes : 1); }
  void deallocate(void* p, size_t) override { std::free(p); }
};

TEST(Device, TensorsKnowTheirDevice) {
  CpuDevice cpu;
  Tensor t = Tensor::empty(DType::F32, {3}, cpu);
  EXPECT_EQ(&t.device(), &cpu);
  EXPECT_EQ(t.device().name(), "cpu");
  EXPECT_EQ(&t.view({3}, {1}, 0).device(), &cpu);
  EXPECT_EQ(&t.clone().device(), &cpu);
}

// Two CPU devices (two states' devices) are two devices: their tensors do
// not mix silently, although both run the same kernels.
TEST(Device, TwoCpuDevicesDoNotMix) {
  CpuDevice a, b;
  Value x = makeTensorValue(fullLike(DType::F32, {2}, 1.0, a));
  Value y = makeTensorValue(fullLike(DType::F32, {2}, 2.0, b));
  EXPECT_EQ(&tensorOf(tensorBinary(ir::Op::Add, x, x, {})).device(), &a);
  EXPECT_THROW(tensorBinary(ir::Op::Add, x, y, {}), NnError);
  EXPECT_THROW(matmul(tensorOf(x), tensorOf(y), {}), NnError);
}

TEST(Device, OpsDispatchThroughTheOperandsDevice) {
  MallocAllocator memory;
  KernelTable kernels;
  // This device's add writes 42 everywhere: the dispatch must find it.
  kernels.addBinary(ir::Op::Add, DType::F32, [](const Tensor&, const Tensor&, Tensor& out, SourceLoc) {
    for (int64_t i = 0; i < out.numel(); ++i) out.data<float>()[i] = 42.0f;
  });
  Device test("test:0", /*hostMemory=*/true, memory, kernels);
  Tensor a = Tensor::empty(DType::F32, {4}, test), b = Tensor::empty(DType::F32, {4}, test);
  Value r = tensorBinary(ir::Op::Add, makeTensorValue(a), makeTensorValue(b), {});
  const Tensor& out = tensorOf(r);
  EXPECT_EQ(&out.device(), &test);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(out.data<float>()[i], 42.0f);
  // An op this device has no kernel for is an error, not the CPU's kernel.
  EXPECT_THROW(tensorBinary(ir::Op::Mul, makeTensorValue(a), makeTensorValue(b), {}), NnError);
  // Mixing devices is an error naming both.
  try {
    tensorBinary(ir::Op::Add, makeTensorValue(a), makeTensorValue(fullLike(DType::F32, {4}, 1.0, testDevice())), {});
    FAIL() << "mixed devices were accepted";
  } catch (const NnError& e) {
    EXPECT_NE(std::string(e.what()).find("different devices: test:0 and cpu"), std::string::npos) << e.what();
  }
}

TEST(Device, MemoryTheHostCannotAddressIsNeverHandedOut) {
  MallocAllocator memory;
  KernelTable none;
  Device remote("remote:0", /*hostMemory=*/false, memory, none);
  Tensor t = Tensor::empty(DType::F32, {2}, remote);
  EXPECT_EQ(t.device().name(), "remote:0");
  try {
    (void)t.data<float>();
    FAIL() << "raw access to device memory";
  } catch (const NnError& e) {
    EXPECT_NE(std::string(e.what()).find("not addressable from the host"), std::string::npos);
  }
}

}  // namespace
