// The interpreter: executes IR functions on runtime values. In eager mode
// it runs each node in program order; in graph mode (and for @jit) a call
// runs the version the compile cache specialised for its arguments, whose
// blocks the graph executor (graph_executor.cpp) runs by their plans.
// `if` and `loop` nodes run their blocks; calls recurse. Every runtime
// error is an NnError at the failing node's location, and each active call
// adds its call site to the error's "called from" trace.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "runtime/compile_cache.h"
#include "runtime/module.h"
#include "runtime/random.h"
#include "runtime/value.h"
#include "support/diagnostics.h"

namespace nn::rt {

class Interpreter;
struct BlockPlan;

// How graph mode runs a compiled block: independent nodes on the thread
// pool (parallel), or one node after another in program order (serial).
enum class Schedule { Parallel, Serial };

// Arguments of a builtin call beyond the positional ones.
struct CallContext {
  Interpreter& interp;
  SourceLoc loc;
  const std::vector<std::string>& kwnames;
  std::vector<Value>& kwargs;
  std::string name;  // of the builtin being called, for messages

  // The keyword argument `name`, or null; marks it as used.
  const Value* kw(const std::string& name);
  // Fails if a keyword argument was not consumed by the builtin.
  void checkKeywordsUsed(const char* fn) const;
  std::vector<bool> used = std::vector<bool>(kwnames.size(), false);
};

// What the interpreter needs from the layers above it (stdlib, embedding).
class Host {
 public:
  virtual ~Host() = default;
  virtual Value builtin(const std::string& name, SourceLoc loc) = 0;
  // Attributes of non-module values: methods of lists, dicts, strings.
  virtual Value attribute(const Value& obj, const std::string& name, SourceLoc loc) = 0;
  virtual Value importModule(const std::string& name, bool bindTop, ModuleInstance& from, SourceLoc loc) = 0;
  virtual std::ostream& out() = 0;
  // Warnings and notes while running (recompilation reports): rendered
  // like errors, without stopping anything.
  virtual void report(const Diagnostic& d) = 0;
};

// Fails with "name 'x' is not defined" when v is a variable read before
// assignment.
void checkDefined(const Value& v, SourceLoc loc);

struct InterpreterLimits {
  // Deep enough for ordinary recursion, shallow enough that the C++ stack
  // (8 MiB main thread, larger frames under ASan) never overflows.
  int maxCallDepth = 1000;
};

class Interpreter {
 public:
  Interpreter(Host& host, InterpreterLimits limits = {});
  ~Interpreter();

  // Runs a module graph's @__main__ with `module` as its globals.
  void runMain(ModuleInstance& module, const ir::Graph& g);

  Value call(const Value& callee, std::vector<Value> args, const std::vector<std::string>& kwnames,
             std::vector<Value> kwargs, SourceLoc loc);
  Value call(const Value& callee, std::vector<Value> args, SourceLoc loc) {
    static const std::vector<std::string> none;
    return call(callee, std::move(args), none, {}, loc);
  }

  Host& host() { return host_; }
  // The generator behind seed/rand/randn/randint; unseeded runs start from
  // a random seed.
  RandomGenerator& rng() { return rng_; }
  // Set from another thread (or a signal handler) to stop at the next node.
  std::atomic<bool>& interrupt() { return interrupt_; }
  // Graph mode: user functions run as versions specialised per argument
  // signature (unless @eager); otherwise only @jit functions do.
  void setGraphMode(bool on) { graphMode_ = on; }
  bool graphMode() const { return graphMode_; }
  CompileCache& compileCache() { return compileCache_; }
  void setSchedule(Schedule s) { schedule_ = s; }
  // Called with each node that produced a value, after it ran (for
  // --check eager). Not used with the parallel schedule.
  using Tracer = std::function<void(const ir::Node& n, const Value& result)>;
  void setTracer(Tracer t) { tracer_ = std::move(t); }
  // Executor counters for --stats.
  struct Stats {
    std::atomic<uint64_t> parallelBlocks{0}, poolNodes{0};
  };
  Stats& stats() { return stats_; }

 private:
  // The values of one function activation, indexed by ir::Value::id().
  struct Frame {
    std::vector<Value> slots;
    ModuleInstance* module;
    const Value* self;
    Value& operator[](const ir::Value* v) { return slots[v->id()]; }
  };
  Value callFunction(const Value& fnValue, std::vector<Value>& args, const std::vector<std::string>& kwnames,
                     std::vector<Value>& kwargs, SourceLoc loc);
  Value runFunction(const ir::Function& fn, ModuleInstance& module, const Value* self, std::vector<Value> slots0);
  const ir::Node* exec(const ir::Block& b, Frame& f, std::vector<Value>& out);
  // Runs one node; `dying`: a bit per operand whose value this node is the
  // last to read (its buffer may take the result). Errors get the node's
  // inlined-at call sites.
  void runNode(const ir::Node& n, Frame& f, uint64_t dying);
  void node(const ir::Node& n, Frame& f, uint64_t dying);
  // Control flow and calls recurse; everything else is a simple op, kept out
  // of line so the recursive path has small native frames.
  void execIf(const ir::Node& n, Frame& f);
  void execLoop(const ir::Node& n, Frame& f);
  void execCall(const ir::Node& n, Frame& f, uint64_t dying);
  [[gnu::noinline]] void simpleOp(const ir::Node& n, Frame& f, uint64_t dying);
  // The graph executor (graph_executor.cpp).
  bool runsAsGraph(const ir::Block& b) const;
  const BlockPlan& plan(const ir::Block& b);
  const ir::Node* execPlanned(const BlockPlan& p, Frame& f, std::vector<Value>& out);
  const ir::Node* execSerial(const BlockPlan& p, Frame& f, std::vector<Value>& out);
  void checkInterrupt(SourceLoc loc);
  void checkStack(SourceLoc loc);

  Host& host_;
  InterpreterLimits limits_;
  int depth_ = 0;
  RandomGenerator rng_;
  // Native stack guard: the address where the outermost call started and
  // how many bytes below it nested calls may use on this thread.
  const char* stackBase_ = nullptr;
  size_t stackBudget_ = 0;
  std::atomic<bool> interrupt_{false};
  bool graphMode_ = false;
  CompileCache compileCache_;
  Schedule schedule_ = Schedule::Parallel;
  Stats stats_;
  Tracer tracer_;
  // execIf's yield buffers, one per nesting level (deque: growing it keeps
  // the buffers of outer levels where they are).
  std::deque<std::vector<Value>> yieldBuffers_;
  size_t yieldDepth_ = 0;
  std::vector<Value>& take();
  void trace(const ir::Node& n, Frame& f) {
    if (tracer_ && n.numResults() > 0) tracer_(n, f[n.result(0)]);
  }
};

}  // namespace nn::rt
