// The graph executor: runs the blocks of compiled (strictly typed)
// functions by their plans (execution_plan.h), with a dependency-counting
// FIFO ready queue over the state's thread pool (parallel schedule, for
// blocks where it pays) or one node after another in program order (serial
// schedule). The interpreter
// owns one and hands it every block of a compiled function; the executor
// hands each node back to the interpreter (Interpreter::runNode), so both
// modes run an op the same way and differ only in scheduling.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "ir/ir.h"
#include "runtime/value.h"

namespace nn::rt {

class Interpreter;
struct BlockPlan;
struct FastOp;
namespace jit {
struct GlueFunction;
struct NativeFunction;
}
struct Frame;

// How graph mode runs a compiled block: independent nodes on the thread
// pool where the overlap can pay for the hand-offs (auto, the default:
// execution_plan.h), wherever there are independent nodes (parallel: for
// tests of the parallel executor and for machines where the estimate is too
// cautious), or one node after another in program order (serial).
enum class Schedule { Auto, Parallel, Serial };

// How a block whose nodes are on several devices runs (execution_plan.h):
// as one merged DAG, devices overlapping (the default), or split, each
// device's part in turn.
enum class Partition { Merge, Split };

class GraphExecutor {
 public:
  explicit GraphExecutor(Interpreter& interp) : interp_(interp) {}

  // Whether `b` belongs to a compiled function (and runs here).
  static bool runsAsGraph(const ir::Block& b) {
    const ir::Function* fn = b.function();
    return fn && fn->graph() && fn->graph()->strictTypes();
  }
  // Runs `b` in frame `f`; returns its terminator, whose operands' values
  // are still in their slots. Errors: the first failing node's, in program
  // order.
  const ir::Node* run(const ir::Block& b, Frame& f);

  // The native glue of loop node `loop` of a compiled block, or null where
  // the loop runs node by node: no JIT, a block the schedule runs in
  // parallel, a loop the JIT refuses, or one that is not hot yet
  // (jit::Engine::hot: by default 1,000 iterations, all its runs
  // together). Made once, kept on the body's plan. `iterations`: the
  // interpreter's count, added to the loop's. `fast`: per node the glue
  // calls back, its pre-resolved form or null.
  const jit::GlueFunction* loopGlue(const ir::Node& loop, uint64_t iterations,
                                    const std::vector<const FastOp*>*& fast);
  // Adds iterations the interpreter ran of `loop` to its count.
  void countIterations(const ir::Node& loop, uint64_t iterations);
  // The native code of compiled function `version` (jit.h
  // NativeFunction), or null where it runs as a graph: no JIT, a function
  // the JIT does not compile, or one not called often enough yet (as a
  // loop's iterations: jit::Engine::hot). Counts this call. Made once,
  // kept on the body's plan.
  const jit::NativeFunction* nativeFunction(const ir::Function& version);
  void setSchedule(Schedule s) { schedule_ = s; }
  void setPartition(Partition p) { partition_ = p; }
  // Counters for --stats.
  struct Stats {
    std::atomic<uint64_t> parallelBlocks{0}, poolNodes{0};
  };
  Stats& stats() { return stats_; }

 private:
  // The block's plan, built on first use and kept on the block.
  const BlockPlan& plan(const ir::Block& b);
  const ir::Node* runParallel(const BlockPlan& p, Frame& f);
  const ir::Node* runSerial(const BlockPlan& p, Frame& f);
  const ir::Node* runSplit(const BlockPlan& p, Frame& f);

  Interpreter& interp_;
  Schedule schedule_ = Schedule::Auto;
  Partition partition_ = Partition::Merge;
  Stats stats_;
};

}  // namespace nn::rt
