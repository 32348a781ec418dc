// Building block plans (see execution_plan.h).
#include "runtime/execution_plan.h"

#include <omp.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/placement.h"
#include "passes/effects.h"
#include "runtime/work_estimate.h"

namespace nn::rt {
namespace {

void nestedReads(const ir::Block& b, std::unordered_set<const ir::Value*>& out) {
  for (const auto& n : b.nodes()) {
    for (const ir::Value* v : n->operands()) out.insert(v);
    for (size_t i = 0; i < n->numBlocks(); ++i) nestedReads(*n->block(i), out);
  }
}

bool tensorTyped(const ir::Node& n) {
  for (const ir::Value* v : n.operands())
    if (v->type().isTensor()) return true;
  for (size_t i = 0; i < n.numResults(); ++i)
    if (n.result(i)->type().isTensor()) return true;
  return false;
}

Lane laneOf(const ir::Node& n, const WorkEstimate& work) {
  if (n.numBlocks() > 0 || passes::hasEffect(n)) return Lane::Main;
  // Running two kernels that each use every core side by side would only
  // oversubscribe them.
  if (work.splitsItself) return Lane::Main;
  if (n.op() == ir::Op::Call || (ir::isTensorOp(n.op()) && !ir::hasTrait(n.op(), ir::ELEM))) {
    // A pure builtin on tensors and numbers cannot call back into user
    // code, and a tensor op reading a list runs where the list's updates
    // run.
    for (size_t i = n.op() == ir::Op::Call ? 1 : 0; i < n.operands().size(); ++i) {
      ir::TypeKind k = n.operand(i)->type().kind;
      if (k != ir::TypeKind::Tensor && k != ir::TypeKind::Int && k != ir::TypeKind::Float && k != ir::TypeKind::Bool &&
          k != ir::TypeKind::None)
        return Lane::Main;
    }
    return Lane::Pool;
  }
  return tensorTyped(n) ? Lane::Pool : Lane::Inline;
}

// Each node's dependency level: one more than its deepest predecessor's.
// Pool nodes on the same level are independent.
std::vector<uint32_t> levels(const BlockPlan& p) {
  std::vector<uint32_t> level(p.nodes.size(), 0);
  for (uint32_t i = 0; i < p.nodes.size(); ++i)
    for (uint32_t s : p.successors[i]) level[s] = std::max(level[s], level[i] + 1);
  return level;
}

bool independentPoolNodes(const BlockPlan& p, const std::vector<uint32_t>& level) {
  std::map<uint32_t, int> poolPerLevel;
  for (uint32_t i = 0; i < p.nodes.size(); ++i)
    if (p.lane[i] == Lane::Pool && ++poolPerLevel[level[i]] >= 2) return true;
  return false;
}

// Whether running the block's pool nodes side by side saves more than
// handing them to other threads costs (each node's single-core time comes
// from work_estimate.h). On `workers` threads a level takes about the
// longest of its pool nodes or their total over the workers, whichever is
// more, instead of their total (nodes of different levels may overlap too,
// which this leaves out: the estimate errs towards the serial schedule,
// which never loses to eager mode).
bool parallelPays(const BlockPlan& p, const std::vector<uint32_t>& level, const PoolFacts& pool) {
  if (pool.workers < 2 || !p.independent) return false;
  std::map<uint32_t, std::pair<double, double>> perLevel;  // total, longest
  size_t handedOff = 0;
  for (uint32_t i = 0; i < p.nodes.size(); ++i) {
    if (p.lane[i] != Lane::Pool) continue;
    auto& [total, longest] = perLevel[level[i]];
    total += p.work[i];
    longest = std::max(longest, p.work[i]);
    ++handedOff;
  }
  double saved = 0;
  for (const auto& [lvl, tl] : perLevel) saved += tl.first - std::max(tl.second, tl.first / pool.workers);
  // Each pool node is one hand-off, and the block's own thread waits for
  // the last of them (one more).
  return saved > 0 && saved > pool.handOffNanos() * static_cast<double>(handedOff + 1);
}

}  // namespace

std::unique_ptr<BlockPlan> buildPlan(const ir::Block& b, Device& device, const PoolFacts& pool,
                                     const std::function<jit::Engine*()>& jit) {
  unsigned cores = static_cast<unsigned>(std::max(1, omp_get_max_threads()));
  auto p = std::make_unique<BlockPlan>();
  std::unordered_map<const ir::Node*, uint32_t> index;
  std::unordered_map<const ir::Value*, uint32_t> local;
  auto localOf = [&](const ir::Value* v) {
    auto [it, fresh] = local.emplace(v, static_cast<uint32_t>(p->valueIds.size()));
    if (fresh) {
      p->valueIds.push_back(v->id());
      p->readers.push_back(0);
      p->keep.push_back(false);
    }
    return it->second;
  };
  for (const auto& a : b.args()) localOf(a.get());
  // The body's plan is built first (nested blocks run from inside it).
  const ir::Block* body = b.function()->body();
  const auto* bodyPlan = &b == body ? nullptr : static_cast<const BlockPlan*>(body->executorData());
  p->placement = bodyPlan && bodyPlan->placement
                     ? bodyPlan->placement
                     : std::make_shared<const std::unordered_map<const ir::Value*, std::string>>(
                           ir::knownDevices(*b.function()));
  const std::unordered_map<const ir::Value*, std::string>& placed = *p->placement;
  std::unordered_map<std::string, int32_t> deviceIndex;
  for (const auto& owned : b.nodes()) {
    const ir::Node& n = *owned;
    if (ir::hasTrait(n.op(), ir::TERM)) {
      p->terminator = &n;
      for (const ir::Value* v : n.operands())
        if (v->owner() == &b) p->keep[localOf(v)] = true;
      continue;
    }
    uint32_t i = static_cast<uint32_t>(p->nodes.size());
    index[&n] = i;
    p->nodes.push_back(&n);
    WorkEstimate work = estimateWork(n, cores);
    int32_t on = -1;
    if (n.numResults() > 0)
      if (auto it = placed.find(n.result(0)); it != placed.end()) {
        auto [at, fresh] = deviceIndex.emplace(it->second, static_cast<int32_t>(p->devices.size()));
        if (fresh) {
          p->devices.push_back(it->second);
          p->queues.push_back(pool.threadQueue ? pool.threadQueue(it->second) : nullptr);
        }
        on = at->second;
      }
    p->device.push_back(on);
    Lane lane = laneOf(n, work);
    if (lane == Lane::Main && on >= 0 && n.numBlocks() == 0 && !passes::hasEffect(n) && pool.ownThread &&
        pool.ownThread(p->devices[on]))
      lane = Lane::Pool;  // it waits for its device's thread, not the cores
    if (lane == Lane::Pool && on >= 0 && p->queues[on]) lane = Lane::Device;
    p->lane.push_back(lane);
    p->work.push_back(work.nanos);
    p->successors.emplace_back();
    // Predecessors: the block's nodes defining an operand (or a value read
    // inside the node's blocks) or an order edge.
    std::unordered_set<const ir::Value*> read(n.operands().begin(), n.operands().end());
    for (size_t k = 0; k < n.numBlocks(); ++k) nestedReads(*n.block(k), read);
    std::set<uint32_t> preds;
    std::vector<uint32_t> reads;
    for (const ir::Value* v : read) {
      if (v->owner() != &b) continue;
      reads.push_back(localOf(v));
      if (v->def() && index.count(v->def())) preds.insert(index[v->def()]);
    }
    for (const ir::Value* t : n.orderAfter())
      if (t->def() && t->def()->parent() == &b && index.count(t->def())) preds.insert(index[t->def()]);
    std::sort(reads.begin(), reads.end());
    for (uint32_t r : reads) ++p->readers[r];
    p->reads.push_back(std::move(reads));
    p->deps.push_back(static_cast<uint32_t>(preds.size()));
    for (uint32_t q : preds) p->successors[q].push_back(i);
    std::vector<uint32_t> defs;
    for (size_t r = 0; r < n.numResults(); ++r) defs.push_back(localOf(n.result(r)));
    p->defines.push_back(std::move(defs));
    std::vector<int32_t> ops;
    for (const ir::Value* v : n.operands())
      ops.push_back(v->owner() == &b ? static_cast<int32_t>(localOf(v)) : -1);
    p->operandLocal.push_back(std::move(ops));
    p->fast.push_back(compileFastOp(n, device, jit));
  }
  std::vector<uint32_t> level = levels(*p);
  p->independent = independentPoolNodes(*p, level);
  p->parallel = parallelPays(*p, level, pool);
  // A partitioned block runs as one merged DAG (or split: the executor's
  // choice), whatever the estimate says of the CPU's own work.
  p->multiDevice = p->devices.size() >= 2;
  if (p->multiDevice) p->independent = p->parallel = true;
  // A try body runs in program order: the node that fails is the first
  // one that can, and nothing after it has run (its handler sees the
  // variables as eager mode's does).
  for (const ir::Block* in = &b; in && in->parentNode(); in = in->parentNode()->parent())
    if (in->parentNode()->op() == ir::Op::Try && in == in->parentNode()->block(0))
      p->independent = p->parallel = p->multiDevice = false;
  return p;
}

}  // namespace nn::rt
