// ModuleInstance's graphs (module.h): adding one marks the globals its
// functions store, which compiled versions must then not bind.
#include "runtime/module.h"

namespace nn::rt {

namespace {

void markStores(const ir::Block& b, ModuleInstance& m) {
  for (const auto& n : b.nodes()) {
    if (n->op() == ir::Op::StoreGlobal) m.entry(n->strAttr("name")).markStoredByFunction();
    for (size_t k = 0; k < n->numBlocks(); ++k) markStores(*n->block(k), m);
  }
}

}  // namespace

const ir::Graph* ModuleInstance::addGraph(std::unique_ptr<ir::Graph> g) {
  // The top-level code stores globals too, but it cannot run while one of
  // the module's functions does (it waits for the calls it makes).
  for (const auto& f : g->functions())
    if (f->name() != "__main__") markStores(*f->body(), *this);
  graphs_.push_back(std::move(g));
  return graphs_.back().get();
}

}  // namespace nn::rt
