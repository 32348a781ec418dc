// Running a loop of a compiled function by its native glue (the JIT's
// glue_codegen.cpp): the glue runs the loop's control flow and scalar
// arithmetic itself and calls back here, through the GlueApi, for every
// other node, for values it moves between frame slots, for a for loop's
// length, and at the end of an iteration when an interrupt or a step budget
// is pending. The callbacks never let an exception into the native code: a
// failing node's error is kept and the glue returns 1, and it is rethrown
// here, with the location and call trace the node's own run gave it.
#include <algorithm>
#include <bit>
#include <exception>
#include <span>

#include "runtime/cycle_collector.h"
#include "runtime/fast_ops.h"
#include "runtime/graph_executor.h"
#include "runtime/interpreter.h"
#include "runtime/jit/jit.h"
#include "runtime/kernels.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

struct Interpreter::GlueRun {
  Interpreter& interp;
  Frame& frame;
  const jit::GlueFunction& glue;
  const std::vector<const FastOp*>& fast;
  std::exception_ptr error;
  // Node n as the serial executor runs it: the node, then the values it
  // was the last reader of.
  int32_t run(uint32_t i) {
    const ir::Node& n = *glue.nodes[i];
    try {
      interp.checkInterrupt(n.loc());
      if (fast[i]) {
        if (!runFastOp(*fast[i], n, frame.slots.data(), n.dyingOperands())) interp.runNode(n, frame, n.dyingOperands());
      } else if (const Value* g = global(n)) {
        frame[n.result(0)] = *g;
      } else {
        interp.runNode(n, frame, n.dyingOperands());
      }
    } catch (...) {
      error = std::current_exception();
      return 1;
    }
    for (uint32_t id : n.kills()) frame.slots[id].release();
    return 0;
  }
  // A global or a module's member a node read before (cachedGlobal).
  const Value* global(const ir::Node& n) const {
    if (n.op() == ir::Op::LoadGlobal) return cachedGlobal(n, frame.module);
    if (n.op() != ir::Op::GetAttr) return nullptr;
    const Value& m = frame[n.operand(0)];
    return m.is(Kind::Module) ? cachedGlobal(n, m.as<ModuleObj>().module) : nullptr;
  }
  int32_t tick(uint32_t loop) {
    try {
      interp.checkInterrupt(glue.nodes[loop]->loc());
      interp.countStep(glue.nodes[loop]->loc());
    } catch (...) {
      error = std::current_exception();
      return 1;
    }
    return 0;
  }
};

// The GlueApi's entries (a friend, so they may name GlueRun).
struct GlueCalls {
  using GlueRun = Interpreter::GlueRun;

  static GlueRun& of(void* ctx) { return *static_cast<GlueRun*>(ctx); }
  static Value& slot(void* ctx, uint32_t id) { return of(ctx).frame.slots[id]; }

  static int32_t runNode(void* ctx, uint32_t node) { return of(ctx).run(node); }
  static void setInt(void* ctx, uint32_t id, int64_t v) { slot(ctx, id) = Value::integer(v); }
  static void setFloat(void* ctx, uint32_t id, double v) { slot(ctx, id) = Value::real(v); }
  static void setBool(void* ctx, uint32_t id, int32_t v) { slot(ctx, id) = Value::boolean(v != 0); }
  static int64_t getInt(void* ctx, uint32_t id) { return slot(ctx, id).asInt(); }
  static double getFloat(void* ctx, uint32_t id) { return slot(ctx, id).asFloat(); }
  static int32_t getBool(void* ctx, uint32_t id) {
    const Value& v = slot(ctx, id);
    return v.is(Kind::Bool) ? v.asBool() : v.asInt() != 0;
  }
  static void assign(void* ctx, uint32_t dst, uint32_t src, int32_t move) {
    if (dst == src) return;
    Value& from = slot(ctx, src);
    slot(ctx, dst) = move ? std::move(from) : from;
  }
  static void clear(void* ctx, uint32_t id) { slot(ctx, id) = Value(); }
  static int32_t tick(void* ctx, uint32_t node) { return of(ctx).tick(node); }
  // The builtin's own conversion (bFloat: item(t), then as a float).
  static int32_t itemFloat(void* ctx, uint32_t id, double* out) {
    const Value& v = slot(ctx, id);
    if (!v.is(Kind::Tensor) || tensorOf(v).numel() != 1) return 1;
    try {
      *out = item(tensorOf(v), SourceLoc{}).asFloat();
    } catch (...) {
      return 1;  // called back: the error is raised there, located
    }
    return 0;
  }
  static int32_t sumFloat(void* ctx, uint32_t id, int32_t mean, double* out) {
    const Value& v = slot(ctx, id);
    return v.is(Kind::Tensor) && cpuSmallFullSum(tensorOf(v), mean != 0, *out) ? 0 : 1;
  }
  static int64_t iterLen(void* ctx, uint32_t id) { return iterLength(slot(ctx, id)); }
  // What iterItem gives, where it cannot fail (quickIterItem); anything
  // else (a tensor's row, a lazy sequence's item made with work that may
  // fail) is called back.
  static int32_t iterItem(void* ctx, uint32_t node, int64_t index) {
    GlueRun& run = of(ctx);
    const ir::Node& n = *run.glue.nodes[node];
    return quickIterItem(run.frame.slots[n.operand(0)->id()], index, run.frame.slots[n.result(0)->id()]) ? 0 : 1;
  }
  // Node `node` by `quick` (true where it ran the node), then the node's
  // kills, as a callback would do them; 1, having done nothing, where it
  // declines (the glue then calls the node back).
  template <class Quick>
  static int32_t direct(void* ctx, uint32_t node, Quick quick) {
    GlueRun& run = of(ctx);
    const ir::Node& n = *run.glue.nodes[node];
    if (!quick(n, run.frame.slots)) return 1;
    for (uint32_t id : n.kills()) run.frame.slots[id].release();
    return 0;
  }
  // What execListAppend does, where the list has room and the item can
  // close no cycle (so nothing here allocates or throws); a growing list
  // (counted against the memory limit), an undefined operand and an item
  // the cycle collector notes are called back.
  static int32_t listAppend(void* ctx, uint32_t node) {
    return direct(ctx, node, [](const ir::Node& n, std::span<Value> slots) {
      Value& list = slots[n.operand(0)->id()];
      Value& item = slots[n.operand(1)->id()];
      if (!list.is(Kind::List) || item.is(Kind::Undef) || CycleCollector::mayReachContainers(item)) return false;
      std::vector<Value>& items = list.as<SeqObj>().items;
      if (items.size() == items.capacity()) return false;
      // Two calls rather than one of a conditional, which would make a
      // temporary Value to move from.
      if (ir::Node::dies(n.dyingOperands(), 1) && n.operand(1) != n.operand(0)) items.push_back(std::move(item));
      else items.push_back(item);
      return true;
    });
  }
  // The interpreter's quick paths (interpreter.h), as its node runs them.
  static int32_t unpack(void* ctx, uint32_t node) { return direct(ctx, node, quickUnpack); }
  static int32_t getItem(void* ctx, uint32_t node) { return direct(ctx, node, quickGetItem); }
  static int32_t setItem(void* ctx, uint32_t node) {
    return direct(ctx, node, [](const ir::Node& n, std::span<Value> slots) {
      return quickSetItem(n, slots, n.dyingOperands());
    });
  }
  static int32_t contains(void* ctx, uint32_t node, int64_t* out) {
    return direct(ctx, node, [out](const ir::Node& n, std::span<Value> slots) {
      bool found = false;
      if (!quickContains(slots[n.operand(0)->id()], slots[n.operand(1)->id()], found)) return false;
      *out = found == (n.op() == ir::Op::In);
      return true;
    });
  }
  static int32_t length(void* ctx, uint32_t node, int64_t* out) {
    return direct(ctx, node, [out](const ir::Node& n, std::span<Value> slots) {
      return lengthOf(slots[n.operand(1)->id()], *out);
    });
  }
  static void storeGlobal(void* ctx, uint32_t node, int64_t bits) {
    GlueRun& run = of(ctx);
    const ir::Node& n = *run.glue.nodes[node];
    Global& g = run.interp.globalOf(n, run.frame);
    switch (n.operand(0)->type().kind) {
      case ir::TypeKind::Float: g.set(Value::real(std::bit_cast<double>(bits))); break;
      case ir::TypeKind::Bool: g.set(Value::boolean(bits != 0)); break;
      default: g.set(Value::integer(bits)); break;
    }
  }
};

namespace {
constexpr jit::GlueApi kApi{GlueCalls::runNode, GlueCalls::setInt,   GlueCalls::setFloat, GlueCalls::setBool,
                            GlueCalls::getInt,  GlueCalls::getFloat, GlueCalls::getBool,  GlueCalls::assign,
                            GlueCalls::clear,   GlueCalls::tick,     GlueCalls::itemFloat,
                            GlueCalls::sumFloat, GlueCalls::iterLen,  GlueCalls::iterItem,
                            GlueCalls::storeGlobal, GlueCalls::listAppend, GlueCalls::unpack,
                            GlueCalls::length, GlueCalls::getItem, GlueCalls::contains,
                            GlueCalls::setItem};
}  // namespace

bool Interpreter::runGlue(const ir::Node& n, Frame& f, std::vector<Value>* carried, uint64_t iterations) {
  // Tapes and traces see each node run; the glue computes scalars unseen.
  if (tape_ || tracer_ || !GraphExecutor::runsAsGraph(*n.parent())) return false;
  const std::vector<const FastOp*>* fast = nullptr;
  const jit::GlueFunction* glue = graph_.loopGlue(n, iterations, fast);
  if (!glue) return false;
  // The glue starts from its result slots.
  for (size_t i = 0; i < n.numResults(); ++i)
    f[n.result(i)] = carried ? std::move((*carried)[i]) : f[n.operand(i)];
  GlueRun run{*this, f, *glue, *fast, nullptr};
  static_assert(sizeof(interrupt_) == 1 && sizeof(stepBudget_) == 1 && std::atomic<bool>::is_always_lock_free,
                "the glue reads the flags as bytes");
  const jit::GlueFlags flags{&interrupt_, &stepBudget_};
  if (glue->fn(&run, &kApi, &flags) != 0) {
    if (run.error) std::rethrow_exception(run.error);
    fail(n.loc(), "internal error: native loop failed without an error");
  }
  return true;
}

}  // namespace nn::rt
