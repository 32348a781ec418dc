// progress(iterable, desc="", interval=None): a progress bar over a for
// loop with tqdm's habits. On a terminal the bar is redrawn in place at most
// every `interval` seconds (0.1 by default) and ends with a newline; where
// the error stream is a file or a pipe, a plain line is written every
// `interval` seconds (5 by default) and once at the end, so logs stay
// readable. The loop's items are the iterable's own, taken in order.
#pragma once

#include <cstdint>
#include <string>

#include "stdlib/builtins.h"

namespace nn::stdlib {

// One rendering of the bar: `done` of `total` items after `elapsed` seconds.
// Terminal: "desc: 45%|#####     | 450/1000 [00:02<00:03, 190.31it/s]"
// with Unicode blocks for the bar; otherwise the same without the bar.
std::string progressLine(const std::string& desc, int64_t done, int64_t total, double elapsed, bool terminal);

}  // namespace nn::stdlib
