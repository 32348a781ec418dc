// The optimisation passes. Each pass is one file with one entry function
// `bool name(ir::Graph&)` that returns whether it changed the graph; the
// pipeline below lists them in order in one place.
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace nn::passes {

// Removes pure nodes whose results are never used (never side effects).
bool deadCodeElimination(ir::Graph& g);

struct PassInfo {
  const char* name;
  bool (*run)(ir::Graph&);
};

// The optimisation pipeline, in order.
const std::vector<PassInfo>& pipeline();
const PassInfo* findPass(const std::string& name);

}  // namespace nn::passes
