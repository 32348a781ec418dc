// libFuzzer harness: source text run to its end, as a host application
// runs an untrusted script through the embedding API (include/nn/nn.h):
// eager or graph mode (the input's length picks), with the state's tensor
// memory capped and step and time limits on the run. Any status is fine;
// a crash, a sanitizer report, an escaping exception or a run past
// libFuzzer's -timeout is a finding. Scripts may write files (save) into
// the current folder: ctest runs it in the build tree, and a campaign by
// hand should run it from a scratch folder.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "nn/nn.h"

namespace {

void discard(void*, int, const char*, size_t) {}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nn_options options;
  nn_options_init(&options);
  options.mode = size % 2 ? NN_MODE_EAGER : NN_MODE_GRAPH;
  options.jit = 0;  // compiling fused kernels costs more than most inputs run
  options.device_plugins = 0;
  options.library_dir = NN_LIB_SOURCE_DIR;
  nn_state* state = nn_state_new(&options);
  if (!state) std::abort();
  nn_set_output(state, discard, nullptr);
  nn_set_memory_limit(state, 64u << 20);
  nn_set_time_limit(state, 1.0);
  // Most runs end at the step limit, the same way every time.
  nn_set_step_limit(state, 20000);
  std::string code(reinterpret_cast<const char*>(data), size);
  (void)nn_run_string(state, code.c_str(), "fuzz.nn");
  nn_state_free(state);
  return 0;
}
