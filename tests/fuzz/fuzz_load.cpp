// libFuzzer harness: `load(path)` of arbitrary bytes as a .npy file, or as
// a .npz archive when they start like a ZIP file ("PK"): every input must
// load or fail with a located error.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "stdlib/state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::ostringstream out, err;
  static nn::State state(nn::StateOptions{}, out, err);
  bool zip = size >= 2 && data[0] == 'P' && data[1] == 'K';
  std::string path = "/tmp/nn_fuzz_load_" + std::to_string(::getpid()) + (zip ? ".npz" : ".npy");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  (void)state.runString("x = load('" + path + "')\nx = None\n", "fuzz.nn");
  out.str("");
  err.str("");
  return 0;
}
