// The optimisation passes. Each pass is one file with one entry function
// `bool name(ir::Graph&)` that returns whether it changed the graph; the
// pipeline below lists them in order in one place.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace nn::passes {

// Gives every value the type its op's rule implies (ir/type_rules.h).
bool inferTypes(ir::Graph& g);

// Removes pure nodes whose results are never used (never side effects).
// Not in the default pipeline yet: pure ops can still raise (1 / 0), and
// removing them would change what a program reports until ops that may
// raise are marked.
bool deadCodeElimination(ir::Graph& g);

struct PassInfo {
  const char* name;
  bool (*run)(ir::Graph&);
};

// The optimisation pipeline, in order.
const std::vector<PassInfo>& pipeline();
// Any pass by name, in the pipeline or not (for tests and --print-ir-after).
const PassInfo* findPass(const std::string& name);
// Runs the pipeline, verifying after each pass; `after` is called with each
// pass's name once it has run.
void runPipeline(ir::Graph& g, const std::function<void(const char*)>& after = {});

}  // namespace nn::passes
