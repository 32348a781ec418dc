// How a call binds a parameter, as in Python's signatures. Shared by the AST
// (what was written) and ir::Function (what calls bind against).
#pragma once

#include <cstdint>

namespace nn::ir {

// Positional or keyword; `*args` (a tuple of the extra positional
// arguments); keyword only (after `*` or `*args`); `**kwargs` (a dict of the
// extra keyword arguments). A signature declares them in that order.
enum class ParamKind : uint8_t { Positional, VarArgs, KeywordOnly, VarKeywords };

}  // namespace nn::ir
