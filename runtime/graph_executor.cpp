// The graph executor (graph_executor.h): runs a block by its plan with a
// dependency-counting FIFO ready queue. A node whose predecessors are done
// becomes ready: Inline nodes run at once on the thread that readied them,
// Pool nodes are queued to the thread pool, Device nodes to the thread of
// the device they are placed on (which runs the nodes they make ready on
// that device next, itself), Main nodes to this thread's queue (effects
// keep program order through their order edges; calls and control flow
// stay on the thread that owns the interpreter's call stack).
// if/loop nodes run their blocks through exec() again, so a loop body is
// a sub-plan run repeatedly without leaving the executor.
//
// A value is dropped when the last node reading it is done, and that node
// may write into its buffer (the operand is dying). When nodes fail, the
// error reported is the first in program order: after a failure only nodes
// before it still start, and the lowest failing node's error is rethrown
// once everything running has finished.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>

#include "runtime/graph_executor.h"

#include "runtime/execution_plan.h"
#include "runtime/execution_queue.h"
#include "runtime/host_memory.h"
#include "runtime/interpreter.h"
#include "runtime/jit/jit.h"
#include "runtime/thread_pool.h"

namespace nn::rt {

namespace {

struct BlockRun {
  explicit BlockRun(const BlockPlan& p)
      : plan(p),
        pending(new std::atomic<uint32_t>[p.nodes.size()]),
        remaining(new std::atomic<uint32_t>[p.valueIds.size()]) {
    for (size_t i = 0; i < p.nodes.size(); ++i) pending[i].store(p.deps[i], std::memory_order_relaxed);
    for (size_t k = 0; k < p.valueIds.size(); ++k) remaining[k].store(p.readers[k], std::memory_order_relaxed);
  }
  const BlockPlan& plan;
  std::unique_ptr<std::atomic<uint32_t>[]> pending, remaining;
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<uint32_t> mainQueue;
  size_t active = 0;  // dispatched and not finished
  uint32_t failedAt = UINT32_MAX;
  std::exception_ptr error;
};

}  // namespace

const BlockPlan& GraphExecutor::plan(const ir::Block& b) {
  if (void* p = b.executorData()) return *static_cast<const BlockPlan*>(p);
  ThreadPool& pool = interp_.context().pool();
  Context& context = interp_.context();
  PoolFacts facts{pool.size(), [&pool] { return pool.handOffNanos(); },
                  [&context](const std::string& name) {
                    const Device* d = context.findDevice(name);
                    return d && !d->queue().immediate();
                  },
                  [&context](const std::string& name) -> ExecutionQueue* {
                    Device* d = context.findDevice(name);
                    return d && d->queue().ownThread() ? &d->queue() : nullptr;
                  }};
  std::shared_ptr<BlockPlan> p = buildPlan(b, context.cpu(), facts, [&context] { return context.jit(); });
  const BlockPlan& ref = *p;
  b.setExecutorData(std::move(p));
  return ref;
}

const jit::GlueFunction* GraphExecutor::loopGlue(const ir::Node& loop, uint64_t iterations,
                                                 const std::vector<const FastOp*>*& fast) {
  const BlockPlan& body = plan(*loop.block(1));
  body.iterations += iterations;
  jit::Engine* engine = interp_.context().jit();
  if (!body.glueTried && (!engine || engine->hot(body.iterations, 0))) {
    body.glueTried = true;
    bool parallel = schedule_ == Schedule::Parallel ||
                    (schedule_ == Schedule::Auto && (body.parallel || plan(*loop.block(0)).parallel));
    if (engine && !parallel) body.glue = engine->compileLoop(loop);
    if (engine && parallel) engine->notCompiled(loop, "the loop's blocks run in parallel on the thread pool");
    if (body.glue)
      for (const ir::Node* n : body.glue->nodes) {
        const BlockPlan& own = plan(*n->parent());
        const FastOp* op = nullptr;
        for (size_t k = 0; k < own.nodes.size(); ++k)
          if (own.nodes[k] == n) op = own.fast[k].get();
        body.glueFast.push_back(op);
      }
  }
  fast = &body.glueFast;
  return body.glue.get();
}

const jit::NativeFunction* GraphExecutor::nativeFunction(const ir::Function& version) {
  const BlockPlan& body = plan(*version.body());
  if (body.nativeTried) return body.native.get();
  jit::Engine* engine = interp_.context().jit();
  if (!engine) {
    body.nativeTried = true;
    return nullptr;
  }
  if (!engine->hot(++body.calls, 0)) return nullptr;
  body.nativeTried = true;
  if (jit::compilesAsNative(version)) body.native = engine->compileFunction(version);
  return body.native.get();
}

void GraphExecutor::countIterations(const ir::Node& loop, uint64_t iterations) {
  plan(*loop.block(1)).iterations += iterations;
}

const ir::Node* GraphExecutor::run(const ir::Block& b, Frame& f) {
  const BlockPlan& p = plan(b);
  bool parallel = schedule_ == Schedule::Auto ? p.parallel : schedule_ == Schedule::Parallel && p.independent;
  // A tape records the ops one at a time, as they run (runtime/tape.h).
  if (interp_.tape()) parallel = false;
  if (parallel && p.multiDevice && partition_ == Partition::Split) return runSplit(p, f);
  if (parallel) return runParallel(p, f);
  return runSerial(p, f);
}

const ir::Node* GraphExecutor::runSerial(const BlockPlan& p, Frame& f) {
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const ir::Node& n = *p.nodes[i];
    interp_.checkInterrupt(n.loc());
    if (!p.fast[i] || interp_.tape() || !runFastOp(*p.fast[i], n, f.slots.data(), n.dyingOperands()))
      interp_.runNode(n, f, n.dyingOperands());
    interp_.trace(n, f);
    for (uint32_t id : n.kills()) f.slots[id] = Value();
  }
  return p.terminator;
}

// The split strategy: each device's ready nodes (and those they make ready
// there) run until that device has none, then the next device's, so each
// device's part of the block runs as far as it can in one go (on the
// device's own thread where it has one) and no two devices work at once.
// Values are freed after their last reader, as in the merged DAG (the
// nodes do not run in program order, so the plan's kill lists do not
// apply).
const ir::Node* GraphExecutor::runSplit(const BlockPlan& p, Frame& f) {
  size_t n = p.nodes.size();
  std::vector<uint32_t> pending(p.deps.begin(), p.deps.end());
  std::vector<uint32_t> remaining(p.readers.begin(), p.readers.end());
  // Ready nodes per device, the nodes no device claims (-1) last.
  std::vector<std::vector<uint32_t>> ready(p.devices.size() + 1);
  auto group = [&](uint32_t i) -> std::vector<uint32_t>& {
    return ready[p.device[i] < 0 ? p.devices.size() : static_cast<size_t>(p.device[i])];
  };
  for (uint32_t i = 0; i < n; ++i)
    if (pending[i] == 0) group(i).push_back(i);
  size_t current = 0, done = 0;
  // Runs the current device's ready nodes, and those they make ready
  // there, until it has none.
  auto drain = [&] {
    std::vector<uint32_t>& queue = ready[current];
    while (!queue.empty()) {
      // Lowest index first: program order within a device.
      auto first = std::min_element(queue.begin(), queue.end());
      uint32_t i = *first;
      queue.erase(first);
      const ir::Node& node = *p.nodes[i];
      uint64_t dying = 0;
      for (size_t k = 0; k < node.operands().size() && k < ir::Node::kMaxDyingOperands; ++k) {
        int32_t l = p.operandLocal[i][k];
        if (l >= 0 && !p.keep[l] && remaining[l] == 1 && node.operandDies(k)) dying |= uint64_t(1) << k;
      }
      interp_.checkInterrupt(node.loc());
      if (!p.fast[i] || !runFastOp(*p.fast[i], node, f.slots.data(), dying)) interp_.runNode(node, f, dying);
      ++done;
      for (uint32_t l : p.reads[i])
        if (--remaining[l] == 0 && !p.keep[l]) f.slots[p.valueIds[l]] = Value();
      for (uint32_t l : p.defines[i])
        if (p.readers[l] == 0 && !p.keep[l]) f.slots[p.valueIds[l]] = Value();
      for (uint32_t s : p.successors[i])
        if (--pending[s] == 0) group(s).push_back(s);
    }
  };
  while (done < n) {
    // The current device while it has ready nodes, else the first that has.
    if (ready[current].empty())
      for (current = 0; current < ready.size() && ready[current].empty(); ++current) {
      }
    if (current == ready.size()) break;  // cannot happen in a DAG
    // A device with a thread of its own runs its part there, in one go.
    ExecutionQueue* queue = current < p.queues.size() ? p.queues[current] : nullptr;
    if (queue) queue->run(drain);
    else drain();
  }
  return p.terminator;
}

const ir::Node* GraphExecutor::runParallel(const BlockPlan& p, Frame& f) {
  BlockRun run(p);
  ThreadPool& pool = interp_.context().pool();
  stats_.parallelBlocks.fetch_add(1, std::memory_order_relaxed);
  size_t n = p.nodes.size();

  // Pool and device threads count what the nodes make as this thread does.
  MemoryCap* hostCap = currentHostCap();
  // Runs node i and everything Inline it makes ready, on this thread.
  auto execute = [&](uint32_t first, auto& dispatch) -> void {
    std::vector<uint32_t> work{first};
    while (!work.empty()) {
      // Left before the node counts as finished, which may end the run and
      // free its state: the credit goes back while the cap exists.
      std::optional<HostMemoryScope> scope(std::in_place, hostCap);
      uint32_t i = work.back();
      work.pop_back();
      const ir::Node& node = *p.nodes[i];
      // Operands no other unfinished node reads can take the result.
      uint64_t dying = 0;
      for (size_t k = 0; k < node.operands().size() && k < ir::Node::kMaxDyingOperands; ++k) {
        int32_t l = p.operandLocal[i][k];
        if (l >= 0 && !p.keep[l] && run.remaining[l].load(std::memory_order_acquire) == 1 &&
            node.operandDies(k))
          dying |= uint64_t(1) << k;
      }
      bool ok = true;
      try {
        interp_.checkInterrupt(node.loc());
        if (!p.fast[i] || !runFastOp(*p.fast[i], node, f.slots.data(), dying)) interp_.runNode(node, f, dying);
      } catch (...) {
        ok = false;
        std::lock_guard<std::mutex> lock(run.mutex);
        if (i < run.failedAt) {
          run.failedAt = i;
          run.error = std::current_exception();
        }
      }
      for (uint32_t l : p.reads[i])
        if (run.remaining[l].fetch_sub(1, std::memory_order_acq_rel) == 1 && !p.keep[l]) f.slots[p.valueIds[l]] = Value();
      for (uint32_t l : p.defines[i])
        if (p.readers[l] == 0 && !p.keep[l]) f.slots[p.valueIds[l]] = Value();
      if (ok)
        for (uint32_t s : p.successors[i])
          if (run.pending[s].fetch_sub(1, std::memory_order_acq_rel) == 1) {
            // On a device's thread, the nodes made ready on that device
            // run next, here, with no hand-off.
            bool here = p.lane[s] == Lane::Device && p.lane[i] == Lane::Device && p.device[s] == p.device[i];
            if (p.lane[s] == Lane::Inline || here) {
              std::lock_guard<std::mutex> lock(run.mutex);
              if (s > run.failedAt) continue;
              ++run.active;
              work.push_back(s);
            } else {
              dispatch(s);
            }
          }
      scope.reset();
      std::lock_guard<std::mutex> lock(run.mutex);
      if (--run.active == 0 || !run.mainQueue.empty()) run.wake.notify_all();
    }
  };
  std::function<void(uint32_t)> dispatch = [&](uint32_t i) {
    {
      std::lock_guard<std::mutex> lock(run.mutex);
      if (i > run.failedAt) return;
      ++run.active;
      if (p.lane[i] == Lane::Main) {
        run.mainQueue.push_back(i);
        run.wake.notify_all();
        return;
      }
    }
    if (p.lane[i] == Lane::Pool) {
      stats_.poolNodes.fetch_add(1, std::memory_order_relaxed);
      pool.submit([&, i] { execute(i, dispatch); });
    } else if (p.lane[i] == Lane::Device) {
      p.queues[static_cast<size_t>(p.device[i])]->post([&, i] { execute(i, dispatch); });
    } else {
      execute(i, dispatch);
    }
  };

  for (uint32_t i = 0; i < n; ++i)
    if (p.deps[i] == 0) dispatch(i);
  while (true) {
    std::unique_lock<std::mutex> lock(run.mutex);
    run.wake.wait(lock, [&] { return !run.mainQueue.empty() || run.active == 0; });
    if (!run.mainQueue.empty()) {
      uint32_t i = run.mainQueue.front();
      run.mainQueue.pop_front();
      lock.unlock();
      execute(i, dispatch);
      continue;
    }
    break;
  }
  if (run.error) std::rethrow_exception(run.error);
  return p.terminator;
}

}  // namespace nn::rt
