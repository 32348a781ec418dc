// Liveness-based memory estimates (see memory_plan.h).
#include "runtime/memory_plan.h"

#include <algorithm>
#include <unordered_map>

namespace nn::rt {
namespace {

size_t bytesOf(const ir::Type& t) {
  if (!t.isTensor() || !t.dtype || !t.shape) return 0;
  size_t n = ir::dtypeSize(*t.dtype);
  for (const ir::Dim& d : *t.shape) {
    if (!d.isKnown()) return 0;
    n *= static_cast<size_t>(d.size);
  }
  return n;
}

class Estimator {
 public:
  size_t naive = 0;

  // Peak bytes while the block runs, given `live` bytes alive around it.
  size_t block(const ir::Block& b, size_t live) {
    std::unordered_map<uint32_t, size_t> owned;  // value id -> bytes it holds
    size_t peak = live;
    for (const auto& a : b.args()) owned[a->id()] = 0;  // the caller's buffers
    for (const auto& np : b.nodes()) {
      const ir::Node& n = *np;
      for (size_t k = 0; k < n.numBlocks(); ++k) peak = std::max(peak, block(*n.block(k), live));
      for (size_t r = 0; r < n.numResults(); ++r) {
        size_t bytes = bytesOf(n.result(r)->type());
        naive += bytes;
        // An elementwise result reuses a dying operand of its type.
        bool reused = false;
        if (ir::hasTrait(n.op(), ir::ELEM))
          for (size_t k = 0; k < n.operands().size() && !reused; ++k)
            if (n.operandDies(k) && n.operand(k)->type() == n.result(r)->type() && owned[n.operand(k)->id()] == bytes) {
              owned[n.operand(k)->id()] = 0;
              reused = true;
            }
        if (!reused) live += bytes;
        owned[n.result(r)->id()] = bytes;
      }
      peak = std::max(peak, live);
      for (uint32_t id : n.kills()) {
        auto it = owned.find(id);
        if (it == owned.end()) continue;
        live -= it->second;
        it->second = 0;
      }
    }
    return peak;
  }
};

}  // namespace

MemoryEstimate estimateMemory(const ir::Function& fn) {
  Estimator e;
  size_t peak = e.block(*fn.body(), 0);
  return {peak, e.naive};
}

}  // namespace nn::rt
