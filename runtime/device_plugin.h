// Device plugins: shared libraries loaded with dlopen at start-up that
// bring devices of their own (the CUDA plugin, libnn_cuda.so, built where
// the CUDA toolkit is). A plugin exports kDevicePluginEntry, which makes a
// Device per unit of its hardware (its own allocator, kernel table and
// queue: device.h) and registers each with the state's context; where the
// hardware or its driver is absent it registers none, so nn starts and
// runs the same on machines without them. A plugin is built against these
// headers and resolves nn's symbols from the binary or libnn.so that loads
// it (both export them; a host application linked with the static
// libraries must export them itself, or its plugins fail to load and
// register nothing); it is never unloaded, as its devices' code must outlive
// every state.
#pragma once

#include <string>
#include <vector>

namespace nn::rt {

class Context;

// The entry's name and type: returns true when the plugin could look for
// its hardware (having registered what it found), false with `why` when it
// cannot run at all.
inline constexpr const char* kDevicePluginEntry = "nn_register_devices";
using RegisterDevices = bool (*)(Context& context, std::string& why);

// Loads the plugin at `path` and lets it register its devices with
// `context`; returns "" or why it registered none.
std::string loadDevicePlugin(Context& context, const std::string& path);

// The plugins a state loads: each `libnn_*.so` in `folders` when there are
// any, else in NN_PLUGIN_PATH's folders (colon-separated) when it is set,
// else beside the file that holds nn's code (the `nn` binary, a host
// application linked with nn's static libraries, or libnn.so) and in the
// installed tree's lib/nn (../lib/nn from that file's folder).
std::vector<std::string> devicePluginPaths(const std::vector<std::string>& folders = {});

}  // namespace nn::rt
