// libFuzzer harness: source text -> tokens -> AST. Every input must end in
// an AST or a located NnError; anything else (a crash, another exception,
// a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/parse.h"
#include "support/diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nn::SourceManager sm;
  uint32_t file = sm.add("fuzz.nn", std::string(reinterpret_cast<const char*>(data), size));
  try {
    nn::frontend::parseModule(sm, file);
  } catch (const nn::NnError&) {
  }
  return 0;
}
