// The device seam: a device made at run time with its own allocator,
// kernel table and execution queue (as a plugin would) receives the
// dispatch of the ops on its tensors, and its kernels run on its queue; a
// device whose memory the host cannot address refuses raw access with an
// error instead of handing out a pointer; operands on two devices are an
// error, never silently wrong; graphs placed on several devices give the
// numbers of one.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/state.h"
#include "test_device.h"

using namespace nn;
using namespace nn::rt;

namespace {

class MallocAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes) override { return std::malloc(bytes ? bytes : 1); }
  void deallocate(void* p, size_t) override { std::free(p); }
};

ImmediateQueue immediate;

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
  Device test("test:0", /*hostMemory=*/true, memory, kernels, immediate);
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
  Device remote("remote:0", /*hostMemory=*/false, memory, none, immediate);
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
// conv2d and its gradients, the norms, pooling, reductions, gather and even a copy, each
// with the op and the device in the message.
TEST(Device, EveryOpFamilyDispatchesByDevice) {
  MallocAllocator memory;
  KernelTable none;
  Device bare("bare:0", /*hostMemory=*/true, memory, none, immediate);
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
  Tensor g1 = Tensor::empty(DType::F32, {1, 1, 1, 1}, bare);  // conv2d(x4, x4)'s shape
  refuses("conv2d_grad_input", [&] { conv2dGradInput(g1, x4, x4, ConvParams{}, {}); });
  refuses("conv2d_grad_weight", [&] { conv2dGradWeight(g1, x4, x4, ConvParams{}, {}); });
  refuses("max_pool2d", [&] { pool2d(x4, PoolParams{}, true, {}); });
  refuses("pool2d_grad", [&] { pool2dGrad(x4, x4, PoolParams{}, true, {}); });
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
  RandomGenerator rng(1);
  refuses("arange", [&] { rampTensor(ir::Op::Arange, DType::F32, 3, Ramp{}, bare, {}); });
  refuses("linspace", [&] { rampTensor(ir::Op::Linspace, DType::F32, 3, Ramp{}, bare, {}); });
  refuses("eye", [&] { eye(DType::F32, 2, 2, bare, {}); });
  refuses("rand", [&] { randomTensor(ir::Op::Rand, DType::F32, {2}, rng, bare, {}); });
  refuses("randn", [&] { randomTensor(ir::Op::Randn, DType::F32, {2}, rng, bare, {}); });
  refuses("randint", [&] { randint(DType::I64, {2}, 0, 5, rng, bare, {}); });
  refuses("dropout", [&] { dropout(m, 0.5, rng, {}); });
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
    t.add<ir::Op::Sum>(DType::F32, [](const Tensor&, int64_t, int64_t, Tensor& out) { out.data<float>()[0] = 7.0f; });
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

// A device's kernels run on its execution queue: a logical CPU device runs
// them on its own worker thread, with the results, random streams and
// errors of the CPU device that runs them on the caller's thread.
TEST(Device, KernelsRunOnTheDevicesQueue) {
  WorkerCpuDevice worker("cpu:1");
  CpuDevice cpu;
  ASSERT_NE(worker.workerId(), std::this_thread::get_id());
  std::thread::id ranOn;
  worker.extendKernels([&](KernelTable& t) {
    static std::thread::id* where;
    where = &ranOn;
    t.add<ir::Op::Eye>(DType::F32, [](Tensor& out) {
      *where = std::this_thread::get_id();
      for (int64_t i = 0; i < out.numel(); ++i) out.data<float>()[i] = 5.0f;
    });
  });
  EXPECT_EQ(eye(DType::F32, 2, 2, worker, {}).flatAsDouble(3), 5.0);
  EXPECT_EQ(ranOn, worker.workerId());

  // Every kind of kernel (oneDNN's, the loops, the random ones) computes
  // on the worker what it computes on the caller's thread.
  auto ops = [](Device& d) {
    RandomGenerator rng(7);
    Tensor a = randomTensor(ir::Op::Randn, DType::F32, {3, 4}, rng, d, {});
    Tensor b = rampTensor(ir::Op::Arange, DType::F32, 4, Ramp{0.5, 1.5, false, 0, 1, {}}, d, {});
    Tensor s = tensorOf(tensorBinary(ir::Op::Mul, makeTensorValue(a), makeTensorValue(b), {}));
    Tensor m = matmul(softmax(s, 1, false, {}), transpose(a, {1, 0}, {}), {});
    Tensor r = reduce(dropout(m, 0.25, rng, {}), Reduction::Sum, {0}, false, {}, "sum");
    return std::vector<double>{r.flatAsDouble(0), r.flatAsDouble(1), r.flatAsDouble(2),
                               randint(DType::I32, {1}, -3, 9, rng, d, {}).flatAsDouble(0)};
  };
  EXPECT_EQ(ops(worker), ops(cpu));

  // A kernel's failure on the worker reaches the caller, located.
  Tensor labels = rampTensor(ir::Op::Arange, DType::I64, 3, Ramp{0, 1, true, 0, 4, {}}, worker, {});
  try {
    oneHot(labels, 5, SourceLoc{1, 4, 2, 4, 9});
    FAIL() << "an out-of-range label was accepted";
  } catch (const NnError& e) {
    EXPECT_NE(std::string(e.what()).find("label 8 is out of range"), std::string::npos) << e.what();
    EXPECT_EQ(e.diag().loc.line, 4u);
  }
  worker.extendKernels([](KernelTable& t) {
    t.add<ir::Op::Softmax>(DType::F32, [](const Tensor&, int, Tensor&) { throw std::runtime_error("lost engine"); });
  });
  try {
    softmax(fullLike(DType::F32, {2}, 1.0, worker), 0, false, SourceLoc{1, 6, 1, 6, 3});
    FAIL() << "the worker's exception was lost";
  } catch (const NnError& e) {
    EXPECT_NE(std::string(e.what()).find("softmax failed on device 'cpu:1': lost engine"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.diag().loc.line, 6u);
  }
}

// Callers on several threads share one device's queue: their kernels run
// one at a time, in arrival order, each caller getting its own result.
TEST(Device, ConcurrentCallersShareADevicesQueue) {
  WorkerCpuDevice worker("cpu:1");
  std::vector<double> sums(4);
  std::vector<std::thread> callers;
  for (int k = 0; k < 4; ++k)
    callers.emplace_back([&, k] {
      Value x = makeTensorValue(fullLike(DType::F64, {64}, k, worker));
      for (int i = 0; i < 50; ++i) x = tensorBinary(ir::Op::Add, x, makeTensorValue(fullLike(DType::F64, {64}, 1.0, worker)), {});
      sums[k] = reduce(tensorOf(x), Reduction::Sum, {}, false, {}, "sum").flatAsDouble(0);
    });
  for (std::thread& t : callers) t.join();
  for (int k = 0; k < 4; ++k) EXPECT_EQ(sums[k], 64.0 * (k + 50));
}

// Work posted to a device's queue runs on its thread, in posting order,
// after what was submitted before; kernels that work launches on the same
// device run at once there (the merged DAG runs a device's nodes on its
// thread this way), with what they throw reaching the work.
TEST(Device, PostedWorkRunsOnTheDevicesThreadInOrder) {
  WorkerCpuDevice worker("cpu:1");
  std::mutex m;
  std::condition_variable cv;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  double sum = 0;
  std::string caught;
  for (int k = 0; k < 3; ++k)
    worker.queue().post([&, k] {
      Tensor t = fullLike(DType::F64, {8}, k, worker);  // launches on cpu:1 from its own thread
      double s = reduce(t, Reduction::Sum, {}, false, {}, "sum").flatAsDouble(0);
      if (k == 2) {
        try {
          oneHot(fullLike(DType::I64, {1}, 7.0, worker), 3, {});
        } catch (const NnError& e) {
          caught = e.what();
        }
      }
      std::lock_guard<std::mutex> lock(m);
      order.push_back(k);
      threads.push_back(std::this_thread::get_id());
      sum += s;
      cv.notify_all();
    });
  std::unique_lock<std::mutex> lock(m);
  cv.wait(lock, [&] { return order.size() == 3; });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  for (std::thread::id t : threads) EXPECT_EQ(t, worker.workerId());
  EXPECT_EQ(sum, 8.0 * 3);
  EXPECT_NE(caught.find("out of range"), std::string::npos) << caught;
  EXPECT_TRUE(worker.queue().ownThread());
  CpuDevice cpu;
  EXPECT_FALSE(cpu.queue().ownThread());
}

// A state's devices are registered at run time, by name.
TEST(Device, AContextRegistersDevicesAtRunTime) {
  ThreadPool pool(1);
  Context ctx(pool);
  ASSERT_EQ(ctx.devices().size(), 1u);
  EXPECT_EQ(ctx.devices()[0], &ctx.cpu());
  EXPECT_EQ(ctx.findDevice("cpu"), &ctx.cpu());
  EXPECT_EQ(ctx.findDevice("cpu:1"), nullptr);
  Device& added = ctx.addDevice(std::make_unique<WorkerCpuDevice>("cpu:1"));
  EXPECT_EQ(ctx.findDevice("cpu:1"), &added);
  EXPECT_EQ(ctx.devices().size(), 2u);
  EXPECT_EQ(eye(DType::I64, 2, 3, added, {}).flatAsInt(4), 1);
  EXPECT_THROW(ctx.addDevice(std::make_unique<WorkerCpuDevice>("cpu:1")), std::invalid_argument);
}

}  // namespace

namespace {

// Two chains on cpu:1 and cpu:2 and their sum on the CPU: in graph mode a
// merged DAG in which both devices' worker threads run at once (the
// ThreadSanitizer run checks the hand-offs), and as the split strategy;
// each gives the numbers of one device.
const char* kTwoDeviceChains =
    "seed(2)\n"
    "def f(a, b, w):\n"
    "    with device('cpu:1'):\n"
    "        x = a\n"
    "        for i in range(8):\n"
    "            x = tanh(x @ w)\n"
    "    with device('cpu:2'):\n"
    "        y = b\n"
    "        for i in range(8):\n"
    "            y = sigmoid(y @ w) * 2.0\n"
    "    return x.to('cpu') + y.to('cpu')\n"
    "def g(a, b, w):\n"
    "    x = a\n"
    "    for i in range(8):\n"
    "        x = tanh(x @ w)\n"
    "    y = b\n"
    "    for i in range(8):\n"
    "        y = sigmoid(y @ w) * 2.0\n"
    "    return x + y\n"
    "a, b, w = randn(16, 32), randn(16, 32), randn(32, 32) * 0.2\n"
    "same = True\n"
    "for k in range(20):\n"
    "    same = same and bool((f(a, b, w) == g(a, b, w)).all())\n"
    "print(same)\n";

std::string runPartitioned(Partition partition) {
  StateOptions options;
  options.mode = ExecMode::Graph;
  options.cpuDevices = 3;
  options.partition = partition;
  options.jitCache = false;
  std::ostringstream out, err;
  State state(options, out, err);
  Status s = state.runString(kTwoDeviceChains, "chains.nn");
  return s.ok() ? out.str() : err.str();
}

}  // namespace

TEST(Device, PartitionedGraphsGiveTheNumbersOfOneDevice) {
  EXPECT_EQ(runPartitioned(Partition::Merge), "True\n");
  EXPECT_EQ(runPartitioned(Partition::Split), "True\n");
}

namespace {

// oneDNN primitives made for the first time on two devices' threads at
// once (the merged DAG runs the two with-blocks together), the same matmul
// on both and then other kinds: nothing of oneDNN's process state may be
// shared between them unguarded (the ThreadSanitizer run checks it; a
// fresh process is where it matters). The matmul is large enough for
// oneDNN (smaller ones run on nn's own loop).
const char* kFirstPrimitivesOnTwoDevices =
    "seed(3)\n"
    "def f(x, img, w, k):\n"
    "    with device('cpu:1'):\n"
    "        a = log_softmax(softmax(x @ w) * 3.0)\n"
    "        b = layer_norm(a, (80,))\n"
    "    with device('cpu:2'):\n"
    "        c = conv2d(img * (x @ w).mean(), k, padding=1)\n"
    "        d = batch_norm(c, zeros(4), ones(4))\n"
    "    return a.sum().to('cpu') + b.sum().to('cpu') + c.sum().to('cpu') + d.sum().to('cpu')\n"
    "x, img = randn(64, 80), randn(2, 3, 8, 8)\n"
    "w, k = randn(80, 80) * 0.1, randn(4, 3, 3, 3)\n"
    "print(bool(isfinite(f(x, img, w, k))))\n";

}  // namespace

TEST(Device, TwoDevicesMakeTheirFirstPrimitivesAtOnce) {
  StateOptions options;
  options.mode = ExecMode::Graph;
  options.cpuDevices = 3;
  options.jitCache = false;
  std::ostringstream out, err;
  State state(options, out, err);
  Status s = state.runString(kFirstPrimitivesOnTwoDevices, "first_primitives.nn");
  EXPECT_TRUE(s.ok()) << err.str();
  EXPECT_EQ(out.str(), "True\n");
}
