// The pass pipeline: one readable list.
#include "passes/passes.h"

namespace nn::passes {

const std::vector<PassInfo>& pipeline() {
  static const std::vector<PassInfo> passes = {
      {"dce", deadCodeElimination},
  };
  return passes;
}

const PassInfo* findPass(const std::string& name) {
  for (const PassInfo& p : pipeline())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace nn::passes
