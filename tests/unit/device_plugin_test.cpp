// The device plugin seam (runtime/device_plugin.h) without a GPU: a fake
// plugin (plugins/fake_device_plugin.cpp) registers `cuda:0`, whose memory
// is reached through its transfers only; tensors go there and back, with
// device blocks place work on it, its memory is counted, and an op it has
// no kernel for is a located error, in both modes. A library that is no
// plugin, or no library, is a reason, never a crash.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "runtime/context.h"
#include "runtime/device_plugin.h"
#include "stdlib/state.h"

namespace {

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
    nn::StateOptions options;
    options.mode = mode;
    options.devicePlugins = false;
    std::ostringstream out, err;
    nn::State state(options, out, err);
    EXPECT_EQ(nn::rt::loadDevicePlugin(state.interpreter().context(), NN_FAKE_PLUGIN), "");
    nn::Status s = state.runString(kOnFakeDevice, "fake.nn");
    EXPECT_EQ(out.str(), "['cpu', 'cuda:0'] cuda:0 [2.0, 3.0, 4.0] True\ncuda:0 [1.0, 2.0, 3.0]\n");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "mul has no f32 kernel on device 'cuda:0'");
    EXPECT_EQ(s.error().line, 8u);
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
