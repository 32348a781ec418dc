// libFuzzer harness: source text -> AST -> IR -> the whole graph-mode pass
// pipeline (what `nn --emit=ir-opt` does), without running the program.
// Errors come back as a failed Status; a crash, an escaping exception or a
// hang is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "stdlib/state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::ostringstream out, err;
  nn::StateOptions options;
  options.mode = nn::ExecMode::Graph;
  nn::State state(options, out, err);
  (void)state.emitText("fuzz.nn", std::string(reinterpret_cast<const char*>(data), size), nn::Stage::IrOpt);
  return 0;
}
