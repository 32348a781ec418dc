// The CUDA plugin's kernel table against the CPU's, without a GPU: for
// every op and dtype the CPU has a kernel for, a cuda device has one too,
// its own or made on the host (host_made_kernels.h), as docs/language.md
// §7 says. Built where the plugin is (NN_CUDA_PLUGIN names it); skipped
// elsewhere.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "ir/ir.h"
#include "runtime/device.h"
#include "runtime/host_made_kernels.h"

namespace {

using namespace nn::rt;

TEST(CudaPlugin, HasAKernelForEveryOpAndDtypeTheCpuHas) {
#ifndef NN_CUDA_PLUGIN
  GTEST_SKIP() << "the CUDA plugin is not built here";
#else
  void* plugin = dlopen(NN_CUDA_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(plugin, nullptr) << dlerror();
  auto table = reinterpret_cast<const KernelTable* (*)()>(dlsym(plugin, "nn_cuda_kernels"));
  ASSERT_NE(table, nullptr);
  KernelTable cuda = *table();
  addHostMadeKernels(cuda);
  const KernelTable& cpu = cpuKernels();
  std::string missing;
  for (size_t o = 0; o < nn::ir::kNumOps; ++o)
    for (size_t d = 0; d < kNumDTypes; ++d) {
      auto op = static_cast<nn::ir::Op>(o);
      auto dt = static_cast<DType>(d);
      if (cpu.has(op, dt) && !cuda.has(op, dt))
        missing += std::string(" ") + nn::ir::opInfo(op).name + ":" + dtypeName(dt);
    }
  EXPECT_EQ(missing, "") << "ops without a CUDA kernel";
#endif
}

}  // namespace
