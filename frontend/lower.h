// AST -> IR lowering (SSA construction). Each module becomes an ir::Graph
// whose function `__main__` runs the top-level statements; every def and
// lambda becomes a function of its own (closure conversion: captured
// variables are extra arguments bound when the closure is made).
#pragma once

#include <memory>
#include <set>
#include <string>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "support/diagnostics.h"

namespace nn::frontend {

struct LowerOptions {
  // The REPL echoes the value of top-level expression statements.
  bool echoExpressions = false;
  // Module-level names that already exist (earlier REPL inputs).
  std::set<std::string> knownGlobals;
  // Names that resolve to builtins when no global of that name exists.
  const std::set<std::string>* builtins = nullptr;
  // The host application's functions (include/nn/nn.h): they resolve as
  // builtins do, ahead of them.
  const std::set<std::string>* hostFunctions = nullptr;
  // Updates that can never be seen warn when they update a tensor
  // (lost_updates.h); `-Wno-lost-update` turns this off.
  bool lostUpdateWarnings = true;
  // The module is a script's main module: no other code reads its globals.
  bool mainScript = false;
};

std::unique_ptr<ir::Graph> lowerModule(const ast::Module& m, const SourceManager& sm,
                                       const LowerOptions& options);

}  // namespace nn::frontend
