// The interactive prompt: reads complete inputs (continuing after a ':' line
// until a blank line, or while brackets are open), runs each in the
// persistent main module of a State, echoes expression values, and keeps
// going after errors. Line editing and history come from libedit when the
// input is a terminal.
#pragma once

#include <istream>

#include "stdlib/state.h"

namespace nn {

// Returns the process exit status (0).
int runRepl(State& state, std::istream& in, bool interactive);

}  // namespace nn
