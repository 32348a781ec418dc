// Node-by-node execution of the IR and its control flow (calls are in
// interpreter_calls.cpp). Values live in a frame of slots indexed by
// Value::id(); structured `if`/`loop` nodes execute their blocks and copy
// the yielded values into their results. Blocks of compiled (strict)
// graphs go to the graph executor instead.
#include "runtime/interpreter.h"

#include <pthread.h>

#include <algorithm>
#include <new>
#include <stdexcept>
#include <string_view>

#include "runtime/interpreter_steps.h"
#include "runtime/scalar_ops.h"
#include "runtime/scratch_values.h"
#include "runtime/tensor_ops.h"
#include "runtime/value_op.h"

namespace nn::rt {

using ir::Op;

const Value* CallContext::kw(const std::string& name) {
  for (size_t i = 0; i < kwnames.size(); ++i)
    if (kwnames[i] == name) {
      if (used.empty()) used.assign(kwnames.size(), false);
      used[i] = true;
      return &kwargs[i];
    }
  return nullptr;
}

void CallContext::checkEachKeywordUsed(const char* fn) const {
  for (size_t i = 0; i < kwnames.size(); ++i)
    if (i >= used.size() || !used[i]) fail(loc, std::string(fn) + "() got an unexpected keyword argument '" + kwnames[i] + "'");
}

void CallContext::keywordsToPositions(std::vector<Value>& args, size_t first,
                                      std::initializer_list<std::pair<const char*, Value>> params) {
  if (args.size() < first) return;  // the builtin's arity check says what is missing
  const auto* p = params.begin();
  for (size_t k = 0; k < params.size(); ++k) {
    const Value* v = kw(p[k].first);
    if (!v) continue;
    size_t at = first + k;
    if (at < args.size()) fail(loc, name + "() got multiple values for argument '" + p[k].first + "'", ErrorClass::TypeError);
    while (args.size() < at) args.push_back(p[args.size() - first].second);
    args.push_back(*v);
  }
}

void checkKeywordsDeclared(const char* keywords, const std::vector<std::string>& kwnames, const std::string& who,
                           SourceLoc loc) {
  if (kwnames.empty() || std::string_view(keywords) == "*") return;
  if (!*keywords) fail(loc, who + "() takes no keyword arguments", ErrorClass::TypeError);
  for (const std::string& k : kwnames) {
    bool taken = false;
    for (std::string_view rest = keywords; !rest.empty() && !taken;) {
      size_t space = rest.find(' ');
      taken = rest.substr(0, space) == k;
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
    if (!taken) {
      size_t dot = who.rfind('.');  // Python names the method alone here
      std::string fn = who.substr(dot == std::string::npos ? 0 : dot + 1);
      fail(loc, fn + "() got an unexpected keyword argument '" + k + "'", ErrorClass::TypeError);
    }
  }
}

Interpreter::Interpreter(Host& host, Context& context, InterpreterLimits limits)
    : host_(host), context_(context), limits_(limits), compileCache_(host, context.passes(), CompileOptions{}) {}

void Interpreter::onInterrupt(SourceLoc loc) {
  switch (stopReason_.load()) {
    case StopReason::Cancel: fail(loc, "cancelled by the host application", ErrorClass::KeyboardInterrupt);
    case StopReason::TimeLimit: fail(loc, "time limit exceeded", ErrorClass::KeyboardInterrupt);
    case StopReason::StepLimit: fail(loc, "step limit exceeded", ErrorClass::KeyboardInterrupt);
    case StopReason::Interrupt: break;
  }
  // Only one of the threads that saw the flag reports it.
  if (interrupt_.exchange(false)) fail(loc, "interrupted", ErrorClass::KeyboardInterrupt);
}

void Interpreter::spendStep(SourceLoc loc) {
  if (stepsLeft_.fetch_sub(1, std::memory_order_relaxed) > 0) return;
  requestStop(StopReason::StepLimit);
  onInterrupt(loc);
}

// The usable native stack of the calling thread. Nested nn calls recurse in
// C++, so besides the call-depth limit the interpreter stops before the real
// stack runs out (frames are much larger under sanitizers). Asked once per
// thread: glibc answers for the main thread by parsing /proc/self/maps,
// which cost ~0.1 ms per call of a compiled function from the top level.
static size_t threadStackSize() {
  thread_local size_t cached = 0;
  if (cached) return cached;
  pthread_attr_t attr;
  size_t size = 0;
  void* addr = nullptr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
  }
  cached = size ? size : size_t(1) << 20;
  return cached;
}

void Interpreter::checkStack(SourceLoc loc) {
  char probe;
  if (depth_ == 0) {
    stackBase_ = &probe;
    // Keep a reserve for the builtins, error rendering and unwinding.
    constexpr size_t kReserve = 256 << 10, kMaxBudget = size_t(256) << 20;
    size_t size = std::min(threadStackSize(), kMaxBudget);
    stackBudget_ = size > 2 * kReserve ? size - 2 * kReserve : size / 2;
    return;
  }
  if (stackBase_ - &probe > static_cast<std::ptrdiff_t>(stackBudget_))
    fail(loc, "maximum recursion depth exceeded");
}

void Interpreter::runMain(ModuleInstance& module, const ir::Graph& g) {
  const ir::Function* main = g.function("__main__");
  if (!main) fail({}, "internal error: module has no __main__");
  std::vector<Value> slots;
  runFunction(*main, module, nullptr, slots);
}

Interpreter::~Interpreter() = default;

// truthy() without a call for a bool, what a comparison gives an if or a
// loop condition.
static bool isTrue(const Value& v, SourceLoc loc) { return v.is(Kind::Bool) ? v.asBool() : truthy(v, loc); }

// Terminator t's operand i, handed over where t is its last use.
static Value terminatorOperand(const ir::Node& t, Frame& f, size_t i) {
  return t.operandDies(i) ? std::move(f[t.operand(i)]) : f[t.operand(i)];
}

// terminatorOperand assigned to `to` in place: a Value returned through
// memory and read back at once stalls the load on the stores that wrote
// it, which was a quarter of an empty loop's iteration.
[[gnu::always_inline]] static inline void takeOperand(Value& to, const ir::Node& t, Frame& f, size_t i) {
  Value& from = f[t.operand(i)];
  if (t.operandDies(i)) to = std::move(from);
  else to = from;
}

Value Interpreter::runFunction(const ir::Function& fn, ModuleInstance& module, const Value* self,
                               std::vector<Value>& slots) {
  slots.resize(fn.numValues());
  return runFunction(fn, module, self, slots.data());
}

Value Interpreter::runFunction(const ir::Function& fn, ModuleInstance& module, const Value* self, Value* slots) {
  Frame f{{slots, fn.numValues()}, &module, self, {}};
  // The returned value straight from its slot: no buffer per call.
  const ir::Node* ret = runBlock(*fn.body(), f);
  if (!ret || ret->operands().empty()) return Value::none();
  // `return x` where x was never bound (a loop that ran no iteration):
  // Python raises at the return, not where the caller stores the result.
  checkDefined(f[ret->operand(0)], ret->loc());
  return terminatorOperand(*ret, f, 0);
}

const ir::Node* Interpreter::exec(const ir::Block& b, Frame& f, std::vector<Value>& out) {
  const ir::Node* t = runBlock(b, f);
  out.clear();
  if (t)
    for (size_t i = 0; i < t->operands().size(); ++i) out.push_back(terminatorOperand(*t, f, i));
  return t;
}

const ir::Node* Interpreter::execNodes(const ir::Block& b, Frame& f) {
  const BlockSteps& plan = stepsOf(b);
  const bool tracing = static_cast<bool>(tracer_);
  for (const Step& s : plan.steps) {
    // Every node is a cancellation point: Ctrl-C, or a host's cancel or time
    // limit, stops straight-line code between two long operations too.
    if (interrupt_.load(std::memory_order_relaxed)) [[unlikely]]
      onInterrupt(s.node->loc());
    bool numbers = runStep(s, f);
    if (tracing) [[unlikely]]
      trace(*s.node, f);
    // Dropping dead values frees temporaries at once and leaves the next
    // op's operands uniquely held, so they can be reused in place. (A step
    // that read only numbers has nothing to drop: a node's kills are
    // among its operands.)
    if (!numbers)
      for (uint32_t k = s.killsBegin; k < s.killsEnd; ++k) f.slots[plan.kills[k]].release();
  }
  return plan.terminator;
}

// A step's inline path where it applies (never while a tape records, as
// the tape sees every node through runNode), else the node's generic one.
// True where the step read only numbers (or nothing).
[[gnu::always_inline]] inline bool Interpreter::runStep(const Step& s, Frame& f) {
  Value* slots = f.slots.data();
  if (!tape_) switch (s.kind) {
      case StepKind::Number:
        if (numberFastPath(s.op, slots[s.a], slots[s.b], slots[s.result])) return true;
        break;
      case StepKind::ConstInt: slots[s.result] = Value::integer(s.imm.i); return true;
      case StepKind::ConstFloat: slots[s.result] = Value::real(s.imm.f); return true;
      case StepKind::IterItem:
        if (slots[s.b].is(Kind::Int) && quickIterItem(slots[s.a], slots[s.b].asInt(), slots[s.result])) return false;
        break;
      case StepKind::IterLen: slots[s.result] = Value::integer(iterLength(slots[s.a])); return false;
      case StepKind::LoadGlobal:
        if (const Value* v = cachedGlobal(*s.node, f.module)) {
          slots[s.result] = *v;
          return false;
        }
        break;
      case StepKind::If:
        // A bool or int condition, whose truth never fails (execIf's
        // general path has the others).
        if (const Value& c = slots[s.a]; c.is(Kind::Bool) || c.is(Kind::Int)) {
          try {
            branch(*s.node, f, c.asBool());
          } catch (...) {
            nodeFailed(*s.node);
          }
          return false;
        }
        break;
      case StepKind::Call:
        if (const Value& callee = slots[s.a]; callee.is(Kind::Function))
          if (const FunctionObj& fo = callee.as<FunctionObj>(); interpretedAsIs(fo, s.node->operands().size() - 1)) {
            try {
              callAsIs(*s.node, fo, f, s.dying);
            } catch (...) {
              nodeFailed(*s.node);
            }
            return false;
          }
        break;
      case StepKind::ModuleAttr:
        if (const Value& m = slots[s.a]; m.is(Kind::Module))
          if (const Value* v = cachedGlobal(*s.node, m.as<ModuleObj>().module)) {
            slots[s.result] = *v;
            return false;
          }
        break;
      case StepKind::Generic: break;
    }
  runNode(*s.node, f, s.dying);
  return false;
}

void Interpreter::runNode(const ir::Node& n, Frame& f, uint64_t dying) {
  try {
    node(n, f, dying);
  } catch (...) {
    nodeFailed(n);
  }
}

void Interpreter::nodeFailed(const ir::Node& n) {
  try {
    throw;
  } catch (const MemoryLimitExceeded& e) {
    fail(n.loc(), e.what(), ErrorClass::MemoryError);
  } catch (const std::bad_alloc&) {
    fail(n.loc(), "out of memory");
  } catch (const std::length_error&) {
    fail(n.loc(), "out of memory");
  } catch (NnError& e) {
    // Runtime layers that know no location (a tensor's raw access) are
    // located at the node that reached them.
    if (!e.diag().loc.valid()) e.diag().loc = n.loc();
    // Inlined code reports the calls it was inlined through (once: an
    // if or loop leaves that to the node inside it that failed).
    if (!n.inlinedAt().empty() && (n.numBlocks() == 0 || e.diag().loc == n.loc()))
      for (const SourceLoc& site : n.inlinedAt()) e.diag().callers.push_back(site);
    throw;
  } catch (const std::exception& e) {
    // A library error a kernel did not anticipate: located here rather
    // than escaping the state.
    fail(n.loc(), std::string("internal error: ") + e.what());
  }
}

void Interpreter::node(const ir::Node& n, Frame& f, uint64_t dying) {
  switch (n.op()) {
    case Op::If: execIf(n, f); return;
    case Op::Loop: execLoop(n, f); return;
    case Op::Try: execTry(n, f); return;
    case Op::Fused: execFused(n, f, dying); return;
    case Op::Call: execCall(n, f, dying); return;
    case Op::CallMethod: execCallMethod(n, f, dying); return;
    case Op::CallUnpacked: execCallUnpacked(n, f); return;
    case Op::IterItem: execIterItem(n, f); return;
    // A for loop over a list reads the length every iteration.
    case Op::IterLen: f[n.result(0)] = Value::integer(iterLength(f[n.operand(0)])); return;
    case Op::Const: execConst(n, f); return;
    case Op::LoadGlobal: execLoadGlobal(n, f); return;
    case Op::StoreGlobal: execStoreGlobal(n, f); return;
    case Op::CheckArgs:
    case Op::CheckResult: execCheck(n, f); return;
    case Op::ListAppend: execListAppend(n, f, dying); return;
    case Op::Unpack:
      // `a, b = pair` without simpleOp's large frame (which handles
      // everything else).
      if (quickUnpack(n, f.slots)) return;
      simpleOp(n, f, dying);
      return;
    case Op::In:
    case Op::NotIn:
      // A dict's str key, a str in a str, without valueOp's frame.
      if (bool found; !tape_ && n.operands().size() == 2 &&
                      quickContains(f[n.operand(0)], f[n.operand(1)], found)) {
        f[n.result(0)] = Value::boolean(found == (n.op() == Op::In));
        return;
      }
      valueOp(n, f, dying);
      return;
    case Op::SetItem:
      // A list's item, a dict's value at a key it holds, without valueOp's
      // frame.
      if (!tape_ && quickSetItem(n, f.slots, dying)) return;
      valueOp(n, f, dying);
      return;
    case Op::GetItem:
      // An item of a list, tuple or dict without valueOp's frame.
      if (!tape_ && n.operands().size() == 2 && quickGetItem(n, f.slots)) return;
      valueOp(n, f, dying);
      return;
    case Op::Yield:
    case Op::Condition:
    case Op::Return: return;  // handled by exec()
    default:
      // Two ints or floats (counters, accumulators, loop conditions) before
      // the general path and its large frame. A taped run records every
      // node, so it takes the general path.
      if (n.operands().size() == 2 && n.numResults() == 1 && !tape_ &&
          numberFastPath(n.op(), f[n.operand(0)], f[n.operand(1)], f[n.result(0)]))
        return;
      // A float's math (sqrt, isnan: builtin-ops makes the library's
      // function of a number its op) straight from the table its execute
      // entry reads (mathUnary), without the general path.
      if (n.operands().size() == 1 && n.numResults() == 1 && !tape_ && ir::hasTrait(n.op(), ir::FUNC))
        if (const Value& x = f[n.operand(0)]; x.is(Kind::Float))
          if (std::optional<Value> r = floatMath(n.op(), x.asFloat())) {
            f[n.result(0)] = std::move(*r);
            return;
          }
      if (isValueOp(n.op())) valueOp(n, f, dying);
      else simpleOp(n, f, dying);
      return;
  }
}

void Interpreter::execIf(const ir::Node& n, Frame& f) {
  const Value& c = f[n.operand(0)];
  checkDefined(c, n.loc());
  // The yielded values straight from their slots: no buffer.
  branch(n, f, isTrue(c, n.loc()));
}

void Interpreter::branch(const ir::Node& n, Frame& f, bool taken) {
  const ir::Node* yield = runBlock(taken ? *n.block(0) : *n.block(1), f);
  for (size_t i = 0; i < n.numResults(); ++i) takeOperand(f[n.result(i)], *yield, f, i);
}

// str(e) of a caught error: its message without what the report of an
// uncaught one adds ("ValueError: ", "assertion failed: ").
static std::string exceptionMessage(ErrorClass c, const std::string& m) {
  for (std::string prefix : {std::string(errorClassName(c)), std::string("assertion failed")}) {
    if (m == prefix) return "";
    if (m.rfind(prefix + ": ", 0) == 0) return m.substr(prefix.size() + 2);
  }
  return m;
}

// The body runs; an error escaping it runs the handler instead, with the
// exception and each tracked variable's value where the body stopped. The
// handler matches the classes its clauses name and raises the rest again.
// An internal error stops the program whatever the script says.
void Interpreter::execTry(const ir::Node& n, Frame& f) {
  // Ends this try's tracking: what its body changed, the body of an
  // enclosing try changed too.
  size_t depth = f.tracked.size() + 1;
  auto endTracking = [&f, depth] {
    if (f.tracked.size() < depth) return;
    TrackedVars mine = std::move(f.tracked[depth - 1]);
    f.tracked.resize(depth - 1);
    if (depth >= 2)
      for (auto& [name, v] : mine.vars) f.tracked[depth - 2].set(name, std::move(v));
  };
  f.tracked.emplace_back();
  Value exception;
  std::vector<Value> atFailure;
  const ir::Node* yield = nullptr;  // of the block that ran to its end
  try {
    yield = runBlock(*n.block(0), f);
  } catch (NnError& e) {
    const Diagnostic& d = e.diag();
    ErrorClass c = classifyError(d.errorClass, d.message);
    if (d.message.rfind("internal error", 0) == 0) {
      endTracking();
      throw;
    }
    exception = makeException(c, d.exceptionText ? *d.exceptionText : exceptionMessage(c, d.message));
    exception.as<ExceptionObj>().raised = d;
    const auto& names = n.strListAttr("names");
    for (size_t k = 0; k < names.size(); ++k) {
      const Value* last = f.tracked[depth - 1].find(names[k]);
      atFailure.push_back(last ? *last : f[n.operand(k)]);
    }
  }
  endTracking();
  if (!exception.is(Kind::None)) {
    const ir::Block& handler = *n.block(1);
    f[handler.arg(0)] = std::move(exception);
    for (size_t k = 0; k < atFailure.size(); ++k) f[handler.arg(k + 1)] = std::move(atFailure[k]);
    yield = runBlock(handler, f);
  }
  // The yielded values straight from their slots, as execIf takes them.
  for (size_t i = 0; i < n.numResults(); ++i) takeOperand(f[n.result(i)], *yield, f, i);
}

void Interpreter::execLoop(const ir::Node& n, Frame& f) {
  if (runGlue(n, f, nullptr, 0)) return;
  // A loop that proves hot switches to its glue between two iterations.
  uint64_t iterations = 0;
  std::vector<Value> carried;
  carried.reserve(n.operands().size());
  for (const ir::Value* v : n.operands()) carried.push_back(f[v]);
  const ir::Block& cond = *n.block(0);
  const ir::Block& body = *n.block(1);
  // The condition gets the carried values it reads (a for loop's: only the
  // counter), copies, as the body takes them after it.
  const BlockSteps& condSteps = stepsOf(cond);
  const uint32_t condArg = condSteps.firstArg, bodyArg = body.numArgs() ? body.arg(0)->id() : 0;
  // A condition that is one comparison (a for loop's counter against the
  // length) is made here where it is of two numbers, as its step would
  // make it, without a run of its block (nothing to drop: a comparison of
  // numbers reads only numbers).
  const Step* compare = condSteps.steps.size() == 1 && condSteps.steps[0].kind == StepKind::Number &&
                                condSteps.terminator->operand(0)->id() == condSteps.steps[0].result &&
                                !GraphExecutor::runsAsGraph(cond)
                            ? &condSteps.steps[0]
                            : nullptr;
  // The condition and the yielded values are taken straight from their
  // slots: no buffer in between.
  while (true) {
    for (uint32_t i : condSteps.argsRead) f.slots[condArg + i] = carried[i];
    const ir::Node& condition =
        compare && !tape_ && !tracer_ &&
                numberFastPath(compare->op, f.slots[compare->a], f.slots[compare->b], f.slots[compare->result])
            ? *condSteps.terminator
            : *runBlock(cond, f);
    bool go;
    if (const Value& c = f[condition.operand(0)]; c.is(Kind::Bool)) {
      go = c.asBool();
    } else {
      Value taken = terminatorOperand(condition, f, 0);
      checkDefined(taken, n.loc());
      go = truthy(taken, n.loc());
    }
    for (uint32_t i : condSteps.argsRead) f.slots[condArg + i].release();
    if (!go) break;
    for (size_t i = 0; i < carried.size(); ++i) f.slots[bodyArg + i] = std::move(carried[i]);
    const ir::Node& yield = *runBlock(body, f);
    for (size_t i = 0; i < carried.size(); ++i) takeOperand(carried[i], yield, f, i);
    checkInterrupt(n.loc());
    countStep(n.loc());
    if (++iterations == 256) {
      if (runGlue(n, f, &carried, iterations)) return;
      iterations = 0;
    }
  }
  if (iterations && graphMode_ && GraphExecutor::runsAsGraph(*n.parent())) graph_.countIterations(n, iterations);
  for (size_t i = 0; i < n.numResults(); ++i) f[n.result(i)] = std::move(carried[i]);
}

Value Interpreter::attributeOf(const Value& obj, const std::string& name, SourceLoc loc) {
  if (!obj.is(Kind::Module)) return host_.attribute(obj, name, loc);
  ModuleInstance* m = obj.as<ModuleObj>().module;
  const Value* v = m->findGlobal(name);
  if (!v) fail(loc, "module '" + m->name() + "' has no attribute '" + name + "'");
  return *v;
}

// receiver.name(args): the method straight from the receiver's method
// table, with the receiver first, as a bound method would call it. A
// receiver without that method (a module whose function has a method's
// name, a value of another kind) takes the getattr-then-call path, with
// its errors.
void Interpreter::execCallMethod(const ir::Node& n, Frame& f, uint64_t dying) {
  const std::vector<std::string>& kwnames = keywordNames(n, 1);
  // The name's methods, looked up on the node's first run.
  const auto* methods = static_cast<const MethodsNamed*>(n.executorCache());
  if (!methods && (methods = host_.methodsNamed(n.strAttr("name")))) n.setExecutorCache(methods);
  const std::string& name = methods ? methods->name : n.strAttr("name");
  size_t nargs = n.operands().size() - 1 - kwnames.size();
  for (size_t i = 0; i < n.operands().size(); ++i) checkDefined(f[n.operand(i)], n.loc());
  // Only an operand's last occurrence dies, so a moved one is read nowhere
  // after (xs.append(xs) copies both).
  auto arg = [&](size_t i) { return ir::Node::dies(dying, i) ? std::move(f[n.operand(i)]) : f[n.operand(i)]; };
  ScratchValues args;
  std::vector<Value> kwargs;
  args.reserve(nargs + 1);
  const MethodsNamed::Method* method = methods ? &methods->of(f[n.operand(0)].kind()) : nullptr;
  BuiltinFn fn = method ? method->fn : nullptr;
  Value callee = fn ? Value() : attributeOf(f[n.operand(0)], name, n.loc());
  if (fn && !kwnames.empty())
    checkKeywordsDeclared(method->keywords, kwnames, std::string(typeName(f[n.operand(0)])) + "." + name, n.loc());
  if (fn) args->push_back(arg(0));
  for (size_t i = 0; i < nargs; ++i) args->push_back(arg(1 + i));
  for (size_t i = 0; i < kwnames.size(); ++i) kwargs.push_back(arg(1 + nargs + i));
  if (!fn) {
    f[n.result(0)] = callWith(callee, *args, kwnames, kwargs, n.loc());
    return;
  }
  CallContext ctx{*this, n.loc(), kwnames, kwargs, name};
  ctx.receiverFirst = true;
  f[n.result(0)] = fn(ctx, *args);
  ctx.checkKeywordsUsed(name.c_str());
}

// f(a, *xs, k=v, **kw): `spread` says what each argument operand is (see
// ir::CallSpread); the call gets the expanded positional and keyword lists.
void Interpreter::execCallUnpacked(const ir::Node& n, Frame& f) {
  const ir::Ints& spread = n.intsAttr("spread");
  const std::vector<std::string>& names = n.strListAttr("kw");
  const Value& callee = f[n.operand(0)];
  // The callee's name, for an error's message only.
  auto who = [&] {
    return callee.is(Kind::Function) ? callee.as<FunctionObj>().name + "() "
           : callee.is(Kind::Builtin) ? callee.as<BuiltinObj>().name + "() "
           : callee.is(Kind::Method)  ? callee.as<MethodObj>().name + "() "
                                      : std::string();
  };
  std::vector<Value> args, kwargs;
  std::vector<std::string> kwnames;
  size_t named = 0;
  auto keyword = [&](const std::string& name, Value v, SourceLoc at) {
    if (std::find(kwnames.begin(), kwnames.end(), name) != kwnames.end())
      fail(at, who() + "got multiple values for keyword argument '" + name + "'");
    kwnames.push_back(name);
    kwargs.push_back(std::move(v));
  };
  for (size_t i = 1; i < n.operands().size(); ++i) {
    const Value& v = f[n.operand(i)];
    checkDefined(v, n.loc());
    switch (static_cast<ir::CallSpread>(spread.at(i - 1))) {
      case ir::CallSpread::Positional: args.push_back(v); break;
      case ir::CallSpread::Iterable: {
        if (v.is(Kind::Int) || v.is(Kind::Float) || v.is(Kind::Bool) || v.is(Kind::None))
          fail(n.loc(), who() + "argument after * must be an iterable, not " + typeName(v));
        for (Value& item : unpackItems(v, n.loc())) args.push_back(std::move(item));
        break;
      }
      case ir::CallSpread::Keyword: keyword(names.at(named++), v, n.loc()); break;
      case ir::CallSpread::Mapping: {
        if (!v.is(Kind::Dict)) fail(n.loc(), who() + "argument after ** must be a dict, not " + typeName(v));
        for (const auto& [k, item] : v.as<DictObj>().items) keyword(k, item, n.loc());
        break;
      }
    }
  }
  f[n.result(0)] = call(callee, std::move(args), kwnames, std::move(kwargs), n.loc());
}

}  // namespace nn::rt
