// The interpreter: executes IR functions on runtime values. In eager mode
// it runs each node in program order; in graph mode (and for @jit) a call
// runs the version the compile cache specialised for its arguments, whose
// blocks the graph executor (graph_executor.h, a class of its own that
// hands each node back to runNode) runs by their plans.
// `if` and `loop` nodes run their blocks; calls recurse. Every runtime
// error is an NnError at the failing node's location, and each active call
// adds its call site to the error's "called from" trace.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "runtime/backward_cache.h"
#include "runtime/compile_cache.h"
#include "runtime/context.h"
#include "runtime/graph_executor.h"
#include "runtime/module.h"
#include "runtime/value.h"
#include "support/diagnostics.h"

namespace nn::rt {

class Interpreter;
class Tape;
struct Step;
namespace jit {
struct NativeFunction;
}  // namespace jit

// The values of one function activation, indexed by ir::Value::id().
// The variables a try body changed and the last value of each (a few per
// try: a flat list).
struct TrackedVars {
  std::vector<std::pair<std::string, Value>> vars;
  void set(const std::string& name, Value v) {
    for (auto& [n, old] : vars)
      if (n == name) {
        old = std::move(v);
        return;
      }
    vars.emplace_back(name, std::move(v));
  }
  const Value* find(const std::string& name) const {
    for (const auto& [n, v] : vars)
      if (n == name) return &v;
    return nullptr;
  }
};

struct Frame {
  std::span<Value> slots;  // the caller's (runFunction)
  ModuleInstance* module;
  const Value* self;
  // Per active `try` of this frame, innermost last: the last value each
  // variable its body changed took (`track`), for its handler.
  std::vector<TrackedVars> tracked;
  Value& operator[](const ir::Value* v) { return slots[v->id()]; }
};

// Arguments of a builtin call beyond the positional ones.
struct CallContext {
  Interpreter& interp;
  SourceLoc loc;
  const std::vector<std::string>& kwnames;
  std::vector<Value>& kwargs;
  const std::string& name;  // of the builtin being called, for messages (the builtin's own)

  // The keyword argument `name`, or null; marks it as used.
  const Value* kw(const std::string& name);
  // Fails if a keyword argument was not consumed by the builtin. The
  // interpreter asks this after every builtin call, so a keyword that a
  // builtin does not take is an error, never ignored.
  void checkKeywordsUsed(const char* fn) const {
    if (!kwnames.empty()) checkEachKeywordUsed(fn);
  }
  void checkEachKeywordUsed(const char* fn) const;
  // Python's positional-or-keyword parameters of a builtin: each of
  // `params` (name, default), from position `first` of `args` on, given by
  // keyword moves to its position; positions before it that the call left
  // out take their defaults.
  void keywordsToPositions(std::vector<Value>& args, size_t first,
                           std::initializer_list<std::pair<const char*, Value>> params);
  // Marks every keyword argument used (a builtin that hands them all on).
  void markAllUsed() { used.assign(kwnames.size(), true); }
  // Which keyword arguments kw() gave: sized on its first call (most calls
  // have no keywords, and a builtin's context is made on every call).
  std::vector<bool> used{};
  // The builtin object called (a host application's function keeps its
  // callback there: stdlib/embed_host_functions.cpp).
  const BuiltinObj* builtin = nullptr;
  // args[0] is a method's receiver (xs.append(v) calls append with xs
  // first): arity messages count the arguments after it.
  bool receiverFirst = false;
};

// Fails with a TypeError at `loc` unless a builtin or method declared to
// take `keywords` (BuiltinObj's form) takes every name of `kwnames`; `who`
// names it in the message ("list.append").
void checkKeywordsDeclared(const char* keywords, const std::vector<std::string>& kwnames, const std::string& who,
                           SourceLoc loc);

// The methods of one name, by receiver kind (fn null where that kind has
// none): what a call_method node resolves its name to, once.
struct MethodsNamed {
  struct Method {
    BuiltinFn fn = nullptr;
    const char* keywords = "";  // as BuiltinObj's
  };
  std::string name;
  Method list, dict, str, tuple;
  const Method& of(Kind receiver) const {
    static const Method none;
    switch (receiver) {
      case Kind::List: return list;
      case Kind::Dict: return dict;
      case Kind::Str: return str;
      case Kind::Tuple: return tuple;
      default: return none;
    }
  }
};

// What the interpreter needs from the layers above it (stdlib, embedding).
class StatusLine;

class Host {
 public:
  virtual ~Host() = default;
  virtual Value builtin(const std::string& name, SourceLoc loc) = 0;
  // builtin(name) where it is one value for the whole program, whichever
  // state asks (a `builtin` node keeps it); null where it is the state's
  // own (argv, the streams) or not a builtin.
  virtual const Value* sharedBuiltin(const std::string&) { return nullptr; }
  // A function the host application registered (ir op host_function).
  virtual Value hostFunction(const std::string& name, SourceLoc loc) {
    fail(loc, "no host function '" + name + "' is registered", ErrorClass::NameError);
  }
  // Attributes of non-module values: methods of lists, dicts, strings.
  virtual Value attribute(const Value& obj, const std::string& name, SourceLoc loc) = 0;
  // The list, dict, str and tuple methods named `name`, which a
  // call_method node calls with the receiver first; null when no kind has
  // one. The record lives as long as the program.
  virtual const MethodsNamed* methodsNamed(const std::string& name) = 0;
  virtual Value importModule(const std::string& name, bool bindTop, ModuleInstance& from, SourceLoc loc) = 0;
  // Runs tensor op `op` (one that is not a value op) on its parameters,
  // one per parameter of its signature (stdlib/op_call.h).
  virtual Value runTensorOp(Interpreter& interp, ir::Op op, std::vector<Value>& params, SourceLoc loc) = 0;
  virtual std::ostream& out() = 0;
  // Warnings, and what a script writes to sys.stderr.
  virtual std::ostream& err() = 0;
  // Where progress bars are drawn (runtime/status_line.h).
  virtual const std::shared_ptr<StatusLine>& statusLine() = 0;
  // Warnings and notes while running (recompilation reports): rendered
  // like errors, without stopping anything.
  virtual void report(const Diagnostic& d) = 0;
};

// Fails with "name 'x' is not defined" when v is a variable read before
// assignment.
[[noreturn]] void undefinedError(const Value& v, SourceLoc loc);
inline void checkDefined(const Value& v, SourceLoc loc) {
  if (v.is(Kind::Undef)) undefinedError(v, loc);
}

// The for-loop protocol (the ops iter, iter_len, iter_item): `iterable`
// gives an indexable view of a value (itself for ranges, lists, tuples,
// tensors and lazy sequences; a tuple of a str's characters; an iterator
// over a dict's keys or a dict view's items, dict_views.h) or fails at
// `loc` if it is not iterable; the other two read a view.
Value iterable(const Value& v, SourceLoc loc);
int64_t iterLength(const Value& view);
Value iterItem(const Value& view, int64_t i, SourceLoc loc);
// iterItem where it cannot fail: a range's item, a list's or tuple's in
// range, a lazy sequence's quickAt; false for anything else (a tensor's
// row, an index out of range, an item made with work that may fail).
// Native loops and the interpreter's inline step read items so.
bool quickIterItem(const Value& view, int64_t i, Value& out);
// Getitem node n of a list's or tuple's item at an int index in range, or
// of a dict's value at a str key it holds, from and into `slots`; false,
// having done nothing, for anything else (the node's generic run indexes,
// slices, takes the item (a `take` node) or raises). The interpreter's
// node and native loops index so.
bool quickGetItem(const ir::Node& n, std::span<Value> slots);
// Setitem node n (`xs[i] = v`, `d[k] = v`) of a list's item at an int
// index in range, or of a dict's value at a str key it holds, to a value
// that can close no cycle (CycleCollector::mayReachContainers), from and
// into `slots`: nothing allocates or throws. The container is handed to
// the result where `dying` (the caller's last-use mask) says the node is
// its last reader. False, having done nothing, for anything else (the
// node's generic run stores, grows, notes the store for the cycle
// collector, updates a tensor or raises).
bool quickSetItem(const ir::Node& n, std::span<Value> slots, uint64_t dying);
// `item in container` where it cannot fail and costs no comparison of
// arbitrary values: a str key of a dict, a str within a str; false for
// anything else (the in node's generic run decides, or raises).
bool quickContains(const Value& item, const Value& container, bool& found);
// len(v) where it has one (a str's, list's, tuple's, dict's, range's,
// lazy sequence's or tensor's of one dim or more) into `out`; false for
// anything else, where len() raises. bLen and native loops measure so.
bool lengthOf(const Value& v, int64_t& out);
// Unpack node n (`a, b = pair`) of a tuple or list of its length, without
// a starred target, from and into `slots`; false, having done nothing, for
// anything else (the node's generic run unpacks or raises). The
// interpreter's node and native loops unpack so.
bool quickUnpack(const ir::Node& n, std::span<Value> slots);
// The value of the global that load_global node n, or getattr node n of a
// module, found on its first run (its executor cache), while that global
// is `owner`'s and bound; null otherwise (the node's generic run looks it
// up, or raises). The eager step and native loops read globals so.
inline const Value* cachedGlobal(const ir::Node& n, const ModuleInstance* owner) {
  const auto* g = static_cast<const Global*>(n.executorCache());
  return g && g->owner() == owner && g->bound() ? &g->value() : nullptr;
}
// Call node n's keyword names (its "kw"): most calls have none, and then
// no attribute beyond the `own` others it always has (a method call's
// name) to search.
inline const std::vector<std::string>& keywordNames(const ir::Node& n, size_t own) {
  static const std::vector<std::string> none;
  return n.attrs().size() <= own ? none : n.strListAttr("kw");
}

struct InterpreterLimits {
  // Deep enough for ordinary recursion, shallow enough that the C++ stack
  // (8 MiB main thread, larger frames under ASan) never overflows.
  int maxCallDepth = 1000;
};

class Interpreter {
 public:
  // `context`: the state's devices, generator, pool and pass context.
  Interpreter(Host& host, Context& context, InterpreterLimits limits = {});
  ~Interpreter();

  // Runs a module graph's @__main__ with `module` as its globals.
  void runMain(ModuleInstance& module, const ir::Graph& g);

  Value call(const Value& callee, std::vector<Value> args, const std::vector<std::string>& kwnames,
             std::vector<Value> kwargs, SourceLoc loc);
  Value call(const Value& callee, std::vector<Value> args, SourceLoc loc) {
    static const std::vector<std::string> none;
    return call(callee, std::move(args), none, {}, loc);
  }
  // call() on vectors the caller keeps (a called builtin may change them).
  Value callWith(const Value& callee, std::vector<Value>& args, const std::vector<std::string>& kwnames,
                 std::vector<Value>& kwargs, SourceLoc loc);

  Host& host() { return host_; }
  Context& context() { return context_; }
  RandomGenerator& rng() { return context_.rng(); }
  // Set from another thread (or a signal handler) to stop at the next node.
  std::atomic<bool>& interrupt() { return interrupt_; }
  // The cancellation point: calls, loop back-edges, every node a graph
  // runs and long builtins (sleep) check the flag (a plain load: this is
  // on every hot path).
  void checkInterrupt(SourceLoc loc) {
    if (interrupt_.load(std::memory_order_relaxed)) [[unlikely]]
      onInterrupt(loc);
  }
  // Why a host application stops a run (include/nn/nn.h): nn_cancel, its
  // time limit or its step limit. Unlike Ctrl-C, such a stop stays requested
  // until clearStop(): a script that catches the error stops again at its
  // next node, so only the host ends it. Thread-safe.
  enum class StopReason : uint8_t { Interrupt, Cancel, TimeLimit, StepLimit };
  void requestStop(StopReason why) {
    stopReason_.store(why);
    interrupt_.store(true);
  }
  void clearStop() {
    stopReason_.store(StopReason::Interrupt);
    interrupt_.store(false);
  }
  StopReason stopReason() const { return stopReason_.load(); }
  // A budget of `steps` for the run that follows, past which it stops with
  // StopReason::StepLimit; 0: none. A step is a loop iteration or a call
  // (countStep): unlike the nodes run, their number does not depend on
  // whether the JIT has compiled a loop yet. Set between runs.
  void setStepBudget(uint64_t steps) {
    stepsLeft_.store(static_cast<int64_t>(std::min<uint64_t>(steps, INT64_MAX)));
    stepBudget_ = steps != 0;
  }
  // Counts one step against the budget: each loop iteration (interpreted
  // or in native glue) and each call.
  void countStep(SourceLoc loc) {
    if (stepBudget_) [[unlikely]]
      spendStep(loc);
  }
  // Graph mode: user functions run as versions specialised per argument
  // signature (unless @eager); otherwise only @jit functions do.
  void setGraphMode(bool on) { graphMode_ = on; }
  bool graphMode() const { return graphMode_; }
  CompileCache& compileCache() { return compileCache_; }
  // The eager tapes' backwards, by the form of their trace.
  BackwardCache& backwardCache() { return backwardCache_; }
  void setSchedule(Schedule s) { graph_.setSchedule(s); }
  void setPartition(Partition p) { graph_.setPartition(p); }
  // Called with each node that produced a value, after it ran (for
  // --check eager). Not used with the parallel schedule.
  using Tracer = std::function<void(const ir::Node& n, const Value& result)>;
  void setTracer(Tracer t) { tracer_ = std::move(t); }
  // Executor counters for --stats.
  GraphExecutor::Stats& stats() { return graph_.stats(); }
  // Reports warning `d` unless one was reported at its location already.
  void warnOnce(const Diagnostic& d);
  // The tape recording ops for reverse mode (runtime/tape.h), or null;
  // while one is active, graph mode runs every node through runNode in
  // program order, so the tape sees each op.
  Tape* tape() const { return tape_; }
  // obj.name: a module's global, else the host's attribute (a method bound
  // to obj, a tensor's shape, ...). Not recorded on the tape (the GetAttr
  // node and getattr() record x.T themselves).
  Value attributeOf(const Value& obj, const std::string& name, SourceLoc loc);
  void setTape(Tape* t) { tape_ = t; }
  // grad / value_and_grad of user function `fn` called with these
  // arguments, differentiated in graph mode by the compiled IR
  // (CompileCache::getGradient); nullopt where that does not apply (eager
  // mode, a tape already recording, a function graph mode cannot
  // differentiate), for the caller's tape to do it.
  std::optional<Value> callGradient(const Value& fn, std::vector<Value> args, const std::vector<std::string>& kwnames,
                                    std::vector<Value> kwargs, const GradientSpec& spec, SourceLoc loc);
  // Runs `fn` (of `module`) in a frame of `slots`, which hold the body's
  // arguments at their ids when it starts and what the frame left when it
  // returns (the caller empties them: its buffer is reused).
  Value runFunction(const ir::Function& fn, ModuleInstance& module, const Value* self, std::vector<Value>& slots);
  // As runFunction, in the fn.numValues() slots from `slots` (FrameSlots).
  // (A pointer, not a span: a span, the fifth argument after the result's,
  // goes through the stack, and reading it back whole stalled every call.)
  Value runFunction(const ir::Function& fn, ModuleInstance& module, const Value* self, Value* slots);

  // The items of an unpacked iterable (`a, b = v`, `f(*v)`, enumerate(v)):
  // a tensor's rows (recorded on the tape), a str's characters, a dict's
  // keys.
  std::vector<Value> unpackItems(Value v, SourceLoc loc);

 private:
  // The graph executor runs nodes through runNode and checks for
  // interrupts and tracing as this class does.
  friend class GraphExecutor;
  // A call's parameters (positional, keyword, defaults) then captures,
  // in the order of the body's arguments, into `params` (empty); takes
  // the arguments' values.
  void bindParams(const FunctionObj& fo, std::vector<Value>& args, const std::vector<std::string>& kwnames,
                  std::vector<Value>& kwargs, SourceLoc loc, std::vector<Value>& params);
  // Counts a call in (recursion and stack limits, Ctrl-C); the caller
  // decrements depth_ when it returns.
  void enter(SourceLoc loc);
  Value callFunction(const Value& fnValue, std::vector<Value>& args, const std::vector<std::string>& kwnames,
                     std::vector<Value>& kwargs, SourceLoc loc);
  // Runs block b: by its graph plan where it has one, else node by node
  // (execNodes). Returns its terminator, whose operands' values are still
  // in their slots.
  const ir::Node* runBlock(const ir::Block& b, Frame& f) {
    return GraphExecutor::runsAsGraph(b) ? graph_.run(b, f) : execNodes(b, f);
  }
  // runBlock, then the terminator's operand values move to `out`.
  const ir::Node* exec(const ir::Block& b, Frame& f, std::vector<Value>& out);
  const ir::Node* execNodes(const ir::Block& b, Frame& f);
  bool runStep(const Step& s, Frame& f);
  // Runs one node; `dying`: a bit per operand whose value this node is the
  // last to read (its buffer may take the result). Errors get the node's
  // inlined-at call sites.
  void runNode(const ir::Node& n, Frame& f, uint64_t dying);
  // runNode's handler, for the error escaping node n (called in a catch
  // clause): located at n, with n's inlined-at call sites, raised again.
  [[noreturn]] void nodeFailed(const ir::Node& n);
  void node(const ir::Node& n, Frame& f, uint64_t dying);
  // Control flow and calls recurse; everything else is a simple op, kept out
  // of line so the recursive path has small native frames.
  void execIf(const ir::Node& n, Frame& f);
  // If node n's branch (then where `taken`), its yielded values to n's
  // results.
  void branch(const ir::Node& n, Frame& f, bool taken);
  void execLoop(const ir::Node& n, Frame& f);
  void execTry(const ir::Node& n, Frame& f);
  // Runs loop n by its native glue (interpreter_glue.cpp) from the carried
  // values in `carried` (the operands' values when null); false when it has
  // none (then execLoop goes on interpreting it). `iterations`: how many
  // the interpreter ran since it last asked.
  bool runGlue(const ir::Node& n, Frame& f, std::vector<Value>* carried, uint64_t iterations);
  // Runs compiled function `version` (graph mode) on `params` by its
  // native code into `r` (interpreter_glue.cpp); false when it has none,
  // or when the code declined (an error, an interrupt, too deep: the
  // interpreted run that follows raises or stops as it would have).
  bool runNative(const ir::Function& version, const std::vector<Value>& params, Value& r);
  // Call node n's paths (interpreter_calls.cpp): fo's body or version
  // `run` on a frame made from n's arguments; the version fo's last call
  // ran, while it is current for them (false when that does not apply).
  void runCallFrame(const ir::Function& run, const FunctionObj& fo, const ir::Node& n, Frame& f, uint64_t dying);
  // Call node n (no keywords) of function fo, which runs as it is with
  // n's arguments (interpretedAsIs): the arguments checked bound, then
  // runCallFrame.
  void callAsIs(const ir::Node& n, const FunctionObj& fo, Frame& f, uint64_t dying);
  bool callCompiledAt(const FunctionObj& fo, const ir::Node& n, Frame& f, uint64_t dying);
  // Runs native `code` of `version` on argument bits, `levels` calls deep
  // at most below it; false when it declined.
  bool callNative(const jit::NativeFunction& code, const ir::Function& version, const int64_t* bits, int64_t levels,
                  Value& r);
  // One run of a loop's glue: what its callbacks reach (interpreter_glue.cpp).
  struct GlueRun;
  friend struct GlueCalls;
  void execFused(const ir::Node& n, Frame& f, uint64_t dying);  // fused_exec.cpp
  void execCall(const ir::Node& n, Frame& f, uint64_t dying);
  bool interpretedAsIs(const FunctionObj& fo, size_t nargs) const;
  void execCallMethod(const ir::Node& n, Frame& f, uint64_t dying);
  void execCallUnpacked(const ir::Node& n, Frame& f);
  void execIterItem(const ir::Node& n, Frame& f);
  void execConst(const ir::Node& n, Frame& f);
  void execLoadGlobal(const ir::Node& n, Frame& f);
  void execStoreGlobal(const ir::Node& n, Frame& f);
  void execCheck(const ir::Node& n, Frame& f);
  // The module global a load_global or store_global node names.
  Global& globalOf(const ir::Node& n, Frame& f);
  void execListAppend(const ir::Node& n, Frame& f, uint64_t dying);
  [[gnu::noinline]] void simpleOp(const ir::Node& n, Frame& f, uint64_t dying);
  [[gnu::noinline]] void valueOp(const ir::Node& n, Frame& f, uint64_t dying);
  [[gnu::noinline]] void onInterrupt(SourceLoc loc);
  [[gnu::noinline]] void spendStep(SourceLoc loc);
  void checkStack(SourceLoc loc);
  // A lost_update node reached with a tensor: warns once per site.
  void warnLostUpdate(SourceLoc loc);

  Host& host_;
  Context& context_;
  InterpreterLimits limits_;
  int depth_ = 0;
  // Native stack guard: the address where the outermost call started and
  // how many bytes below it nested calls may use on this thread.
  const char* stackBase_ = nullptr;
  size_t stackBudget_ = 0;
  std::atomic<bool> interrupt_{false};
  std::atomic<StopReason> stopReason_{StopReason::Interrupt};
  bool stepBudget_ = false;
  std::atomic<int64_t> stepsLeft_{0};
  bool graphMode_ = false;
  CompileCache compileCache_;
  BackwardCache backwardCache_;
  GraphExecutor graph_{*this};
  Tracer tracer_;
  Tape* tape_ = nullptr;
  // The sites that have warned (pool threads may reach one while another
  // warns).
  std::mutex warnedMutex_;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> warnedSites_;
  // A fused node's ops run on tiles: the node reports each whole result as
  // the op inside that makes it (the op eager mode runs unfused), its ops
  // nothing.
  void trace(const ir::Node& n, Frame& f) {
    if (!tracer_ || n.numResults() == 0) return;
    const ir::Node* around = n.parent() ? n.parent()->parentNode() : nullptr;
    if (around && around->op() == ir::Op::Fused) return;
    if (n.op() != ir::Op::Fused) return tracer_(n, f[n.result(0)]);
    for (size_t r = 0; r < n.numResults(); ++r) tracer_(*n.block(0)->terminator()->operand(r)->def(), f[n.result(r)]);
  }
};

}  // namespace nn::rt
