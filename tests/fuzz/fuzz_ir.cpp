// libFuzzer harness: IR text -> parser -> verifier -> printer -> parser.
// What parses and verifies must print as text that parses back to the same
// text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ir/text.h"
#include "support/diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nn::SourceManager sm;
  uint32_t file = sm.add("fuzz.ir", std::string(reinterpret_cast<const char*>(data), size));
  std::string printed;
  try {
    auto g = nn::ir::parse(sm, file);
    nn::ir::verify(*g);
    printed = nn::ir::toString(*g);
  } catch (const nn::NnError&) {
    return 0;
  }
  uint32_t again = sm.add("printed.ir", printed);
  try {
    auto g = nn::ir::parse(sm, again);
    if (nn::ir::toString(*g) != printed) std::abort();  // printing is not stable
  } catch (const nn::NnError&) {
    std::abort();  // printed IR that does not parse back
  }
  return 0;
}
