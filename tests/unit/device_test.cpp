// The device seam: a device made at run time with its own allocator and
// kernel table (as a plugin would) receives the dispatch of the ops on its
// tensors; a device whose memory the host cannot address refuses raw
// access with an error instead of handing out a pointer; operands on two
// devices are an error, never silently wrong.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

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

// Every op family goes through the device's table, not only the
// elementwise ones: a device with no kernels refuses matmul, softmax,
// conv2d, the norms, pooling, reductions, gather and even a copy, each
// with the op and the device in the message.
TEST(Device, EveryOpFamilyDispatchesByDevice) {
  MallocAllocator memory;
  KernelTable none;
  Device bare("bare:0", /*hostMemory=*/true, memory, none);
  Tensor m = Tensor::empty(DType::F32, {2, 2}, bare);
  Tensor x4 = Tensor::empty(DType::F32, {1, 1, 2, 2}, bare);
  Tensor idx = Tensor::empty(DType::I64, {2, 2}, bare);
  for (int64_t i = 0; i < 4; ++i) idx.data<int64_t>()[i] = 0;
  auto refuses = [](const char* what, auto&& f) {
    try {
      f();
      ADD_FAILURE() << what << " ran without a kernel";
    } catch (const NnError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(what) + " has no"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("on device 'bare:0'"), std::string::npos) << e.what();
    }
  };
  refuses("matmul", [&] { matmul(m, m, {}); });
  refuses("softmax", [&] { softmax(m, -1, false, {}); });
  refuses("log_softmax", [&] { softmax(m, -1, true, {}); });
  refuses("conv2d", [&] { conv2d(x4, x4, nullptr, ConvParams{}, {}); });
  refuses("max_pool2d", [&] { pool2d(x4, PoolParams{}, true, {}); });
  refuses("layer_norm", [&] { layerNorm(m, nullptr, nullptr, 1e-5, {}); });
  refuses("sum", [&] { reduce(m, Reduction::Sum, {}, false, {}, "sum"); });
  refuses("argmax", [&] { reduce(m, Reduction::ArgMax, {1}, false, {}, "argmax"); });
  refuses("gather", [&] { gather(m, 1, idx, {}); });
  Tensor rows = Tensor::empty(DType::I64, {1}, bare);
  rows.data<int64_t>()[0] = 1;
  refuses("getitem", [&] { advancedGetItem(m, makeTensorValue(rows), {}); });
  refuses("where", [&] { whereOp(makeTensorValue(Tensor::empty(DType::Bool, {2}, bare)), makeTensorValue(m), makeTensorValue(m), {}); });
  refuses("astype", [&] { astype(m, DType::F64); });
  refuses("full", [&] { Tensor::zeros(DType::F32, {2}, bare); });
  refuses("astype", [&] { transpose(m, {}, {}).contiguous(); });
}

// A device's kernels can be added or replaced while the program runs (as a
// plugin does), and only that device sees the change: the CPU device's
// table stays shared by everyone else.
TEST(Device, KernelsAreExtendedAtRunTimePerDevice) {
  CpuDevice patched, plain;
  Tensor a = fullLike(DType::F32, {2, 3}, 1.0, patched), b = fullLike(DType::F32, {3, 2}, 1.0, patched);
  EXPECT_EQ(matmul(a, b, {}).flatAsDouble(0), 3.0);
  patched.extendKernels([](KernelTable& t) {
    t.add<ir::Op::MatMul>(DType::F32, [](const Tensor&, const Tensor&, Tensor& out) {
      for (int64_t i = 0; i < out.numel(); ++i) out.data<float>()[i] = -1.0f;
    });
    t.add<ir::Op::Sum>(DType::F32, [](const Tensor&, int64_t, Tensor& out) { out.data<float>()[0] = 7.0f; });
  });
  EXPECT_EQ(matmul(a, b, {}).flatAsDouble(3), -1.0);
  EXPECT_EQ(reduce(a, Reduction::Sum, {}, false, {}, "sum").flatAsDouble(0), 7.0);
  // The kernels it did not replace are still the CPU's.
  EXPECT_EQ(reduce(a, Reduction::Mean, {}, false, {}, "mean").flatAsDouble(0), 1.0);
  Tensor c = fullLike(DType::F32, {2, 3}, 1.0, plain), d = fullLike(DType::F32, {3, 2}, 1.0, plain);
  EXPECT_EQ(matmul(c, d, {}).flatAsDouble(3), 3.0);
  EXPECT_EQ(&plain.kernels(), &cpuKernels());
  EXPECT_NE(&patched.kernels(), &cpuKernels());
}

// A library exception inside a kernel becomes a located error naming the
// op and the device, never an escaping C++ exception of another type.
TEST(Device, AKernelsLibraryErrorIsLocated) {
  CpuDevice cpu;
  cpu.extendKernels([](KernelTable& t) {
    t.add<ir::Op::Softmax>(DType::F32, [](const Tensor&, int, Tensor&) { throw std::runtime_error("no engine"); });
  });
  Tensor x = fullLike(DType::F32, {2}, 1.0, cpu);
  try {
    softmax(x, 0, false, SourceLoc{1, 3, 5, 3, 9});
    FAIL() << "the kernel's exception was lost";
  } catch (const NnError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("softmax failed on device 'cpu': no engine"), std::string::npos) << msg;
    EXPECT_EQ(e.diag().loc.line, 3u);
  }
}

}  // namespace
