// `nn --check eager FILE`: runs a script in graph mode and in eager mode
// and reports the first operation whose value differs between the two
// beyond the dtype's tolerance, with its source location. Both runs start
// from the same random seed, and the eager run's time() and memory_stats()
// answer the graph run's readings in order (runtime/clock.h), so a script
// that times itself or reads its memory (which graph mode frees earlier)
// checks like any other; the eager run's output is discarded. Values
// are matched by the operation's source location and op and by occurrence
// (the third time a line's add runs in one mode against the third time in
// the other), or, where that one differs, any other occurrence of the
// same operation not matched yet that agrees (the copies of an unrolled
// loop may run in another order); operations the optimiser folded, merged
// or removed exist in one run only and are skipped.
#pragma once

#include <iosfwd>
#include <string>

#include "stdlib/state.h"

namespace nn {

// Returns the process exit status: 0 when the runs agree (a summary goes
// to err), 1 on a difference or when the graph run fails.
int checkAgainstEager(StateOptions options, const std::string& path, std::ostream& out, std::ostream& err);

// Empty when a graph-mode value matches an eager-mode one within the
// dtype's tolerance (f32: 1e-5 relative + 1e-6 absolute; f64 and Python
// floats: 1e-12; NaN matches NaN), else what differs.
std::string valueDifference(const rt::Value& graph, const rt::Value& eager);

}  // namespace nn
