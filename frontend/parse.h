// Entry points of the front end: source text to tokens, AST, and (in
// lower.h) IR. Errors are thrown as NnError, the first one only.
#pragma once

#include <memory>
#include <ostream>

#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace nn::frontend {

// Lexes and parses a registered file into an AST.
std::unique_ptr<ast::Module> parseModule(SourceManager& sm, uint32_t file);

// `nn --emit=tokens`: one token per line with its position.
void dumpTokens(SourceManager& sm, uint32_t file, std::ostream& os);

// True when `text` ends inside an open block or bracket, so the REPL should
// read a continuation line before compiling it.
bool needsMoreInput(const std::string& text);

}  // namespace nn::frontend
