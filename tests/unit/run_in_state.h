// Runs nn source in a fresh interpreter state and returns whether it
// succeeded, what it printed and its rendered diagnostics (the unit tests'
// way of running a whole program without a process).
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "stdlib/state.h"

namespace nn::test {

struct RunResult {
  bool ok;
  std::string out, err;
};

inline RunResult runInState(const std::string& code, ExecMode mode, std::vector<std::string> searchPath = {}) {
  std::ostringstream out, err;
  StateOptions opts;
  opts.mode = mode;
  opts.searchPath = std::move(searchPath);
  State state(opts, out, err);
  Status st = state.runString(code, "t.nn");
  if (!st.ok()) state.render(st.error(), err);
  return {st.ok(), out.str(), err.str()};
}

}  // namespace nn::test
