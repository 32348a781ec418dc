// The textual form of the IR: a stable printer (values renumbered in order
// of definition, parameters by name), a parser for exactly that text, and a
// verifier. print(parse(print(g))) == print(g) holds for every graph.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "ir/ir.h"
#include "support/diagnostics.h"

namespace nn::ir {

void print(const Graph& g, std::ostream& os);
void print(const Function& f, std::ostream& os);
std::string toString(const Graph& g);

// Parses IR text registered as `file` in `sm`; errors are NnError with the
// position in the text.
std::unique_ptr<Graph> parse(SourceManager& sm, uint32_t file);

// Checks SSA dominance, operand/result/block counts against the op table and
// block terminators. Throws NnError describing the first violation.
void verify(const Graph& g);

}  // namespace nn::ir
