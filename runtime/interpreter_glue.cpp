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
    for (uint32_t id : n.kills()) frame.slots[id] = Value();
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
                            GlueCalls::storeGlobal};
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

namespace {

// The bits of native code's arguments: param(i) for each of `body`'s
// parameters; false when one is not of its parameter's kind.
template <class Param>
bool nativeArgs(const ir::Block& body, size_t count, Param param, int64_t* bits) {
  if (count != body.numArgs() || count > jit::kMaxNativeArgs) return false;
  for (size_t i = 0; i < count; ++i) {
    const Value& p = param(i);
    switch (body.arg(i)->type().kind) {
      case ir::TypeKind::Int:
        if (!p.is(Kind::Int)) return false;
        bits[i] = p.asInt();
        break;
      case ir::TypeKind::Float:
        if (!p.is(Kind::Float)) return false;
        bits[i] = std::bit_cast<int64_t>(p.asFloat());
        break;
      default:
        if (!p.is(Kind::Bool)) return false;
        bits[i] = p.asBool();
        break;
    }
  }
  return true;
}

}  // namespace

bool Interpreter::runNative(const ir::Function& version, const std::vector<Value>& params, Value& r) {
  // Tapes and traces see each node run; a step budget counts each call.
  if (tape_ || tracer_ || stepBudget_) return false;
  const jit::NativeFunction* code = graph_.nativeFunction(version);
  int64_t bits[jit::kMaxNativeArgs];
  if (!code || !nativeArgs(*version.body(), params.size(), [&](size_t i) -> const Value& { return params[i]; }, bits))
    return false;
  return callNative(*code, version, bits, limits_.maxCallDepth - depth_, r);
}

// A call node's shortest path, where the callee's last compiled version is
// current for these arguments and runs as native code: no argument list,
// no frame and no compile cache lookup by signature. Everything else
// (a first call, another signature, the code declining) takes execCall's
// general path, which raises what the call raises.
bool Interpreter::callNativeAt(const FunctionObj& fo, const ir::Node& n, Frame& f) {
  if (tape_ || tracer_ || stepBudget_ || !(fo.forceJit || (graphMode_ && !fo.forceEager))) return false;
  const ir::Function& fn = *fo.fn;
  size_t count = n.operands().size() - 1;
  if (count != fn.numParams() || !fn.plainSignature() || fn.annotated() || !fo.captures.empty() ||
      depth_ >= limits_.maxCallDepth)
    return false;
  // At the top level the stack's base is found here, as enter() would.
  if (depth_ == 0) checkStack(n.loc());
  const ir::Function* version = compileCache_.currentVersion(fn, *fo.module);
  const jit::NativeFunction* code = version ? graph_.nativeFunction(*version) : nullptr;
  int64_t bits[jit::kMaxNativeArgs];
  if (!code || !nativeArgs(*version->body(), count, [&](size_t i) -> const Value& { return f[n.operand(i + 1)]; }, bits))
    return false;
  // enter() would count this call a level deeper.
  return callNative(*code, *version, bits, limits_.maxCallDepth - depth_ - 1, f[n.result(0)]);
}

bool Interpreter::callNative(const jit::NativeFunction& code, const ir::Function& version, const int64_t* bits,
                             int64_t levels, Value& r) {
  // The levels of calls left below this one: the interpreter's limit, and
  // the stack left at a generous 512 bytes per native frame.
  char probe;
  std::ptrdiff_t stackLeft = static_cast<std::ptrdiff_t>(stackBudget_) - (stackBase_ - &probe);
  int64_t depth = std::min<int64_t>(levels, stackLeft / 512);
  int64_t out = 0;
  if (code.fn(bits, &out, depth, &interrupt_) != 0) return false;
  switch (version.body()->terminator()->operand(0)->type().kind) {
    case ir::TypeKind::Int: r = Value::integer(out); break;
    case ir::TypeKind::Float: r = Value::real(std::bit_cast<double>(out)); break;
    default: r = Value::boolean(out != 0); break;
  }
  return true;
}

}  // namespace nn::rt
