// The device plugin seam (runtime/device_plugin.h) without a GPU: a fake
// plugin (plugins/fake_device_plugin.cpp) registers `cuda:0`, whose memory
// is reached through its transfers only; tensors go there and back, with
// device blocks place work on it, its memory is counted, the creation ops
// it has no kernels for are made on the host with the CPU's numbers, and
// an op it has no kernel for is a located error, in both modes. A library that is no
// plugin, or no library, is a reason, never a crash.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "runtime/context.h"
#include "runtime/device_plugin.h"
#include "stdlib/state.h"

namespace {

// Runs `script` in a state of `mode` with the fake plugin's cuda:0: its
// status, and its printed output in `out`.
nn::Status runOnFakeDevice(nn::ExecMode mode, const char* script, std::string& out) {
  nn::StateOptions options;
  options.mode = mode;
  options.devicePlugins = false;
  std::ostringstream printed, err;
  nn::State state(options, printed, err);
  std::string why = nn::rt::loadDevicePlugin(state.interpreter().context(), NN_FAKE_PLUGIN);
  if (!why.empty()) ADD_FAILURE() << why;
  nn::Status s = state.runString(script, "fake.nn");
  out = printed.str();
  return s;
}

const char* kOnFakeDevice =
    "x = tensor([1.0, 2.0, 3.0])\n"
    "g = x.to('cuda:0')\n"
    "h = g + 1.0\n"
    "print(devices(), g.device, h.to('cpu').tolist(), memory_stats('cuda:0')['live_bytes'] > 0)\n"
    "with device('cuda:0'):\n"
    "    z = zeros(3) + x\n"
    "print(z.device, z.to('cpu').tolist())\n"
    "y = g * 2.0\n";

TEST(DevicePlugins, APluginsDevicesRunWhatTheyHaveKernelsFor) {
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    std::string out;
    nn::Status s = runOnFakeDevice(mode, kOnFakeDevice, out);
    EXPECT_EQ(out, "['cpu', 'cuda:0'] cuda:0 [2.0, 3.0, 4.0] True\ncuda:0 [1.0, 2.0, 3.0]\n");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "mul has no f32 kernel on device 'cuda:0'");
    EXPECT_EQ(s.error().line, 8u);
  }
}

// A library error inside a device's kernel (here the fake subtraction's)
// is a located error naming the op and the device, in both modes, also
// for the elementwise ops, whose kernels the front ends call directly.
TEST(DevicePlugins, AKernelsLibraryErrorIsLocated) {
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    std::string out;
    nn::Status s = runOnFakeDevice(mode,
                                   "g = tensor([1.0, 2.0]).to('cuda:0')\n"
                                   "print(g.device)\n"
                                   "h = g - 1.0\n",
                                   out);
    EXPECT_EQ(out, "cuda:0\n");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "sub failed on device 'cuda:0': the library said no");
    EXPECT_EQ(s.error().line, 3u);
    EXPECT_EQ(s.error().column, 5u);
  }
}

// The creation ops the fake device has no kernels for are made on the
// host by the CPU's kernels and copied in: after the same seed, the
// device holds the CPU's numbers.
const char* kMadeOnTheHost =
    "def made(dev):\n"
    "    seed(5)\n"
    "    r = [randn(3, 4, device=dev), rand(5, device=dev), randint(0, 9, (6,), device=dev),\n"
    "         randperm(7, device=dev), eye(3, device=dev), arange(5, device=dev),\n"
    "         linspace(0.0, 1.0, 5, device=dev), dropout(ones(8).to(dev), 0.5)]\n"
    "    with device(dev):\n"
    "        r.append(randn(2))\n"
    "    return r\n"
    "fake = made('cuda:0')\n"
    "cpu = made('cpu')\n"
    "print([t.device for t in fake][0], all(bool((a.to('cpu') == b).all()) for a, b in zip(fake, cpu)))\n"
    "print(float(fake[0].to('cpu').std()) > 0.5, fake[2].dtype, fake[3].to('cpu').sort()[0].tolist())\n";

TEST(DevicePlugins, CreationOpsAreMadeOnTheHostWithTheCpusNumbers) {
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    std::string out;
    nn::Status s = runOnFakeDevice(mode, kMadeOnTheHost, out);
    EXPECT_TRUE(s.ok()) << s.error().line << ": " << s.error().message;
    EXPECT_EQ(out, "cuda:0 True\nTrue i64 [0, 1, 2, 3, 4, 5, 6]\n");
  }
}

// Index arrays on a device whose memory the host cannot address are read
// on the host; the device's kernels get the offsets.
const char* kIndexedOnTheDevice =
    "x = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\n"
    "g = x.to('cuda:0')\n"
    "i = tensor([1, 0, 1]).to('cuda:0')\n"
    "m = (x > 2.5).to('cuda:0')\n"
    "print(g[i].to('cpu').tolist(), g[m].to('cpu').tolist(), g[[1, 0], [2, 2]].to('cpu').tolist())\n"
    "g[0, [0, 2]] = tensor([9.0, 8.0]).to('cuda:0')\n"
    "print(g.device, g.to('cpu').tolist(), g.T.to('cpu').tolist())\n"
    "print(gather(g, 1, tensor([[2, 0], [1, 1]]).to('cuda:0')).to('cpu').tolist())\n"
    "print(g[tensor([5]).to('cuda:0')])\n";

TEST(DevicePlugins, IndexArraysOnADeviceAreReadOnTheHost) {
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    std::string out;
    nn::Status s = runOnFakeDevice(mode, kIndexedOnTheDevice, out);
    EXPECT_EQ(out,
              "[[4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] [3.0, 4.0, 5.0, 6.0] [6.0, 3.0]\n"
              "cuda:0 [[9.0, 2.0, 8.0], [4.0, 5.0, 6.0]] [[9.0, 4.0], [2.0, 5.0], [8.0, 6.0]]\n"
              "[[8.0, 9.0], [5.0, 5.0]]\n");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "index 5 is out of bounds for axis with size 2");
    EXPECT_EQ(s.error().line, 9u);
  }
}

// A Python number meeting a device's tensor, and tensor(number, device=),
// are filled in by the device's kernel: no transfer in, which on a GPU
// would wait for all the work queued before it. A list is copied in once.
const char* kNumbersOnTheDevice =
    "g = ones(3, device='cuda:0')\n"
    "h = g + 2.0\n"
    "k = tensor(0.5, device='cuda:0')\n"
    "print((h + k).to('cpu').tolist(), (1 + g).to('cpu').tolist())\n";

TEST(DevicePlugins, NumbersMeetADevicesTensorWithoutATransfer) {
  void* plugin = dlopen(NN_FAKE_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(plugin, nullptr) << dlerror();
  auto transfers = reinterpret_cast<int64_t (*)()>(dlsym(plugin, "nn_fake_transfers_in"));
  ASSERT_NE(transfers, nullptr);
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    std::string out;
    int64_t before = transfers();
    nn::Status s = runOnFakeDevice(mode, kNumbersOnTheDevice, out);
    EXPECT_TRUE(s.ok()) << s.error().line << ": " << s.error().message;
    EXPECT_EQ(out, "[3.5, 3.5, 3.5] [2.0, 2.0, 2.0]\n");
    EXPECT_EQ(transfers() - before, 0);
    before = transfers();
    s = runOnFakeDevice(mode, "t = tensor([1.0, 2.0], device='cuda:0')\n", out);
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(transfers() - before, 1);
  }
  dlclose(plugin);
}

// What reads elements on the host (printing, tolist, item, conversions,
// truth values) copies a device's tensor there first, as PyTorch does.
const char* kReadOnTheHost =
    "g = tensor([[1.5, -2.0], [0.0, 4.0]]).to('cuda:0')\n"
    "print(g)\n"
    "print([g[0]], g.tolist(), float(g[0, 0]), int(g[1, 1]), g[0, 1].item(), bool(g[1, 0]))\n"
    "print(f'{g[1]}', str(g.T), 'yes' if g[0, 0] else 'no')\n";

TEST(DevicePlugins, TensorsOnADeviceAreReadOnTheHost) {
  for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
    std::string out;
    nn::Status s = runOnFakeDevice(mode, kReadOnTheHost, out);
    EXPECT_TRUE(s.ok()) << s.error().line << ": " << s.error().message;
    EXPECT_EQ(out,
              "[[ 1.5 -2. ]\n [ 0.   4. ]]\n"
              "[tensor([ 1.5, -2. ], device='cuda:0', dtype=f32)] [[1.5, -2.0], [0.0, 4.0]] 1.5 4 -2.0 False\n"
              "[0. 4.] [[ 1.5  0. ]\n [-2.   4. ]] yes\n");
  }
}

TEST(DevicePlugins, WhatIsNoPluginIsAReason) {
  std::ostringstream out, err;
  nn::StateOptions options;
  options.devicePlugins = false;
  nn::State state(options, out, err);
  nn::rt::Context& context = state.interpreter().context();
  EXPECT_NE(nn::rt::loadDevicePlugin(context, "/nonexistent/libnn_none.so"), "");
  EXPECT_NE(nn::rt::loadDevicePlugin(context, "libm.so.6").find("has no nn_register_devices"), std::string::npos);
  EXPECT_EQ(context.devices().size(), 1u);
}

}  // namespace
