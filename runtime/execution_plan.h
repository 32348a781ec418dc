// The graph executor's plan for one block, built once from the optimised
// IR: the nodes in program order with their dependency counts (data edges
// from operands, order edges from order-effects, both within the block),
// their successors, where each runs, and for every value the block defines
// how many of its nodes read it, so the executor can drop a value once its
// last reader is done and let that reader write into its buffer.
//
// Lanes (which thread runs a node): `Main` nodes (effects, calls of user functions or of
// builtins that may call back, if/loop, and tensor work big enough that its
// kernel already uses every core: work_estimate.h) run on the thread that
// runs the block, in the order their edges allow; `Pool` nodes (other
// tensor work) go to the thread pool, one core each; `Inline` nodes (scalar
// and container bookkeeping, cheap) run on whichever thread made them
// ready. A block runs with this parallel schedule only when the work its
// pool nodes can overlap outweighs the cost of handing them off; else it
// runs serially, in program order, as eager mode does.
//
// Devices: each node's device is what the IR says (ir/placement.h). Work
// on a device with a thread of its own (cpu:N) goes to the pool whatever
// its size, since there it only waits for that device. A block whose nodes
// are on two or more devices is partitioned: by default it runs as one
// merged DAG (the parallel schedule: one dependency-counting ready queue
// from which each device's work reaches its queue as soon as it is ready,
// so devices and copies overlap); with the split strategy each device's
// part runs as far as it can before the next device's starts, one at a
// time (GraphExecutor::runSplit), for comparison.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "runtime/fast_ops.h"

namespace nn::rt {

class ExecutionQueue;

namespace jit {
class Engine;
struct GlueFunction;
struct NativeFunction;
}

// Where a ready node runs: on the thread that made it ready (Inline), on
// the thread pool (Pool), on the block's own thread (Main), or on the
// thread of the device it is placed on (Device: a logical CPU device's
// worker, which runs it and the nodes it makes ready there in turn).
enum class Lane : uint8_t { Inline, Pool, Main, Device };

struct BlockPlan {
  std::vector<const ir::Node*> nodes;  // all but the terminator
  const ir::Node* terminator = nullptr;
  std::vector<uint32_t> deps;          // predecessors within the block
  std::vector<std::vector<uint32_t>> successors;
  std::vector<Lane> lane;
  std::vector<double> work;            // estimated single-core nanoseconds (work_estimate.h)
  // Values defined by the block (arguments and results): slot id, how
  // many nodes read them (nested reads count for the enclosing node), and
  // whether the terminator reads them (then they are never dropped).
  std::vector<uint32_t> valueIds;
  std::vector<uint32_t> readers;
  std::vector<bool> keep;
  std::vector<std::vector<uint32_t>> reads;    // per node: local value indices read
  std::vector<std::vector<uint32_t>> defines;  // per node: local indices of its results
  // Per node and direct operand: the local value index, or -1 for a value
  // of an enclosing block.
  std::vector<std::vector<int32_t>> operandLocal;
  // Whether two pool nodes can ever run at the same time, and whether
  // running them so can pay for the hand-offs (otherwise the block runs
  // serially: parallel bookkeeping would only cost).
  bool independent = false;
  bool parallel = false;
  // Per node: an index into `devices` (the device the IR says it runs on),
  // or -1 where only the run decides; whether the block spans devices.
  std::vector<int32_t> device;
  std::vector<std::string> devices;
  // Per entry of `devices`: the queue of a device with a thread of its
  // own, which runs its Device-lane nodes; null for the others.
  std::vector<ExecutionQueue*> queues;
  bool multiDevice = false;
  // The function's placement (ir/placement.h), computed once with the
  // plan of its body and shared by the plans of its nested blocks.
  std::shared_ptr<const std::unordered_map<const ir::Value*, std::string>> placement;
  // Per node: its pre-resolved form (fast_ops.h), or null.
  std::vector<std::unique_ptr<FastOp>> fast;
  // A loop body's plan: the loop's native glue (GraphExecutor::loopGlue),
  // made on the loop's first run; null when it runs node by node.
  mutable std::shared_ptr<const jit::GlueFunction> glue;
  mutable bool glueTried = false;
  // Iterations the interpreter ran of this loop body (it switches to the
  // glue once they reach GraphExecutor's threshold).
  mutable uint64_t iterations = 0;
  // Per node the glue calls back: its pre-resolved form in its own block's
  // plan, or null.
  mutable std::vector<const FastOp*> glueFast;
  // A compiled function's body's plan: the function's native code
  // (GraphExecutor::nativeFunction), made once it has been called often
  // enough; null when it runs as a graph. `calls` counts them until then.
  mutable std::shared_ptr<const jit::NativeFunction> native;
  mutable bool nativeTried = false;
  mutable uint64_t calls = 0;
};

// What the executor's thread pool offers: its threads, and what handing a
// node to one costs (ThreadPool::handOffNanos; asked only for a block with
// work to overlap, as measuring it takes a few round trips).
struct PoolFacts {
  unsigned workers = 1;
  std::function<double()> handOffNanos;
  // Whether the named device runs its work on a thread of its own (a
  // logical CPU device's worker, a GPU's stream); null: none does.
  std::function<bool(const std::string& device)> ownThread;
  // The named device's queue where it has a thread of its own
  // (ExecutionQueue::ownThread), else null; null: none has.
  std::function<ExecutionQueue*(const std::string& device)> threadQueue;
};

// `jit`: the JIT engine for fused nodes (fast_ops.h compileFastOp).
std::unique_ptr<BlockPlan> buildPlan(const ir::Block& b, Device& device, const PoolFacts& pool,
                                     const std::function<jit::Engine*()>& jit);

}  // namespace nn::rt
