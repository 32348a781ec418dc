// Loading device plugins (device_plugin.h).
#include "runtime/device_plugin.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "runtime/context.h"

namespace nn::rt {

std::string loadDevicePlugin(Context& context, const std::string& path) {
  // RTLD_LOCAL: a plugin's own libraries (the CUDA runtime) stay its own.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return why ? why : "cannot load " + path;
  }
  auto entry = reinterpret_cast<RegisterDevices>(dlsym(handle, kDevicePluginEntry));
  if (!entry) return path + " has no " + kDevicePluginEntry;
  std::string why;
  try {
    if (!entry(context, why)) return why.empty() ? "the plugin cannot run here" : why;
  } catch (const std::exception& e) {
    return std::string("the plugin failed: ") + e.what();
  }
  return why;
}

// The file this code was loaded from: libnn.so when nn is a shared
// library, else the executable (which dladdr names by its argv[0], so it is
// read from /proc instead).
static std::filesystem::path fileOfThisCode() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&fileOfThisCode), &info) && info.dli_fname && *info.dli_fname &&
      std::strcmp(info.dli_fname, program_invocation_name) != 0)
    return info.dli_fname;
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe;
}

std::vector<std::string> devicePluginPaths(const std::vector<std::string>& given) {
  namespace fs = std::filesystem;
  std::vector<fs::path> folders(given.begin(), given.end());
  if (folders.empty()) {
    if (const char* env = std::getenv("NN_PLUGIN_PATH")) {
      std::string list = env;
      for (size_t start = 0; start <= list.size();) {
        size_t end = list.find(':', start);
        if (end == std::string::npos) end = list.size();
        if (end > start) folders.emplace_back(list.substr(start, end - start));
        start = end + 1;
      }
    } else if (fs::path file = fileOfThisCode(); !file.empty()) {
      // Beside it (a build tree), and where an installed tree keeps them:
      // lib/nn, from bin/nn and from lib/libnn.so alike.
      folders.push_back(file.parent_path());
      folders.push_back((file.parent_path() / ".." / "lib" / "nn").lexically_normal());
    }
  }
  std::vector<std::string> paths;
  for (const fs::path& folder : folders) {
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.rfind("libnn_", 0) == 0 && it->path().extension() == ".so") paths.push_back(it->path().string());
    }
  }
  return paths;
}

}  // namespace nn::rt
