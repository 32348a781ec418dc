// Calls: a call node's paths, callWith's dispatch on the callee, Python's
// binding of arguments to parameters, and a function's run as it is or as
// the compiled version for its arguments (as native code where it has
// some). A call node takes the shortest path that applies: a function that
// runs as it is with its arguments by position gets its frame made here; in
// graph mode (and for @jit) the version its last call ran, while that
// version is current for these arguments, runs without an argument list or
// a lookup by signature; everything else goes through callWith, which
// binds, compiles and raises as a call does.
#include <algorithm>
#include <bit>
#include <span>

#include "runtime/annotations.h"
#include "runtime/frame_slots.h"
#include "runtime/interpreter.h"
#include "runtime/jit/jit.h"
#include "runtime/scratch_values.h"
#include "support/suggest.h"

namespace nn::rt {

using ir::Op;

namespace {

// Call node n's argument i (its operand i), handed over where the node is
// its last use, so a builtin may reuse its buffer.
Value callArgument(const ir::Node& n, Frame& f, uint64_t dying, size_t i) {
  bool handOver = ir::Node::dies(dying, i) && n.operand(i) != n.operand(0);  // f(f) still needs the callee
  return handOver ? std::move(f[n.operand(i)]) : f[n.operand(i)];
}

// The most arguments and captures a call's shortest path takes.
constexpr size_t kMaxQuickArgs = 16;

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

void Interpreter::execCall(const ir::Node& n, Frame& f, uint64_t dying) {
  for (size_t i = 0; i < n.operands().size(); ++i) checkDefined(f[n.operand(i)], n.loc());
  const Value& callee = f[n.operand(0)];
  const FunctionObj* fo = callee.is(Kind::Function) && n.attrs().empty() ? &callee.as<FunctionObj>() : nullptr;
  if (fo && interpretedAsIs(*fo, n.operands().size() - 1)) {
    callAsIs(n, *fo, f, dying);
    return;
  }
  if (!fo || !callCompiledAt(*fo, n, f, dying)) {
    const std::vector<std::string>& kwnames = keywordNames(n, 0);
    size_t nargs = n.operands().size() - 1 - kwnames.size();
    ScratchValues args;
    std::vector<Value> kwargs;
    // One more: a method call puts its receiver first.
    args.reserve(nargs + 1);
    for (size_t i = 0; i < nargs; ++i) args->push_back(callArgument(n, f, dying, 1 + i));
    for (size_t i = 0; i < kwnames.size(); ++i) kwargs.push_back(callArgument(n, f, dying, 1 + nargs + i));
    f[n.result(0)] = callWith(callee, *args, kwnames, kwargs, n.loc());
  }
  // A recursive call's result may be typed as the version returns it
  // (passes/infer_types.cpp), which code after it relies on.
  if (const ir::Node* def = n.operand(0)->def(); def && def->op() == Op::SelfClosure) {
    const Value& r = f[n.result(0)];
    ir::TypeKind k = n.result(0)->type().kind;
    if ((k == ir::TypeKind::Int && !r.is(Kind::Int)) || (k == ir::TypeKind::Float && !r.is(Kind::Float)) ||
        (k == ir::TypeKind::Bool && !r.is(Kind::Bool)))
      fail(n.loc(), "internal error: a recursive call returned " + std::string(typeName(r)) + ", typed " +
                        n.result(0)->type().str());
  }
}

void Interpreter::callAsIs(const ir::Node& n, const FunctionObj& fo, Frame& f, uint64_t dying) {
  for (size_t i = 1; i < n.operands().size(); ++i) checkDefined(f[n.operand(i)], n.loc());
  runCallFrame(*fo.fn, fo, n, f, dying);
}

// callFunction's common case, with the frame made here: call node n's
// arguments by position, then fo's captures, as the first values of `run`
// (fo's body, or a version of it).
void Interpreter::runCallFrame(const ir::Function& run, const FunctionObj& fo, const ir::Node& n, Frame& f,
                               uint64_t dying) {
  FrameSlots frame(run.numValues());
  Value* slots = frame.data();
  size_t count = n.operands().size() - 1;
  for (size_t i = 0; i < count; ++i) slots[i] = callArgument(n, f, dying, i + 1);
  std::copy(fo.captures.begin(), fo.captures.end(), slots + count);
  // A function's annotations are checked as callFunction checks them: the
  // arguments before the call is entered, the result once it has returned.
  std::optional<DimBindings> bindings;
  if (fo.fn->annotated()) checkArguments(*fo.fn, fo.name, {slots, count}, n.loc(), bindings.emplace());
  enter(n.loc());
  Value r;
  try {
    r = runFunction(run, *fo.module, &f[n.operand(0)], frame.data());
  } catch (NnError& e) {
    --depth_;
    if (n.loc().valid()) e.diag().callers.push_back(n.loc());
    throw;
  }
  --depth_;
  if (bindings) checkResult(*fo.fn, fo.name, r, *bindings, n.loc());
  f[n.result(0)] = std::move(r);
}

// The version fo's last call ran, while it is current for these arguments
// (CompileCache::currentVersion), by position with fo's captures after:
// as native code where it has some, else interpreted on a frame made here.
// False, having done nothing, where that does not apply, or where the
// native code declined (an error, too deep, an interrupt: the general path
// runs the call again, interpreted, and raises or stops there).
bool Interpreter::callCompiledAt(const FunctionObj& fo, const ir::Node& n, Frame& f, uint64_t dying) {
  if (tape_ || tracer_ || !(fo.forceJit || (graphMode_ && !fo.forceEager))) return false;
  const ir::Function& fn = *fo.fn;
  size_t count = n.operands().size() - 1, total = count + fo.captures.size();
  if (count != fn.numParams() || total > kMaxQuickArgs || !fn.plainSignature() || fn.annotated() ||
      depth_ >= limits_.maxCallDepth)
    return false;
  const Value* args[kMaxQuickArgs];
  for (size_t i = 0; i < count; ++i) args[i] = &f[n.operand(i + 1)];
  for (size_t c = 0; c < fo.captures.size(); ++c) args[count + c] = &fo.captures[c];
  const ir::Function* version = compileCache_.currentVersion(fn, *fo.module, {args, total});
  if (!version) return false;
  // A step budget counts each call, which native code does not.
  if (const jit::NativeFunction* code = stepBudget_ ? nullptr : graph_.nativeFunction(*version)) {
    // At the top level the stack's base is found here, as enter() would.
    if (depth_ == 0) checkStack(n.loc());
    int64_t bits[jit::kMaxNativeArgs];
    // enter() would count this call a level deeper.
    return nativeArgs(*version->body(), total, [&](size_t i) -> const Value& { return *args[i]; }, bits) &&
           callNative(*code, *version, bits, limits_.maxCallDepth - depth_ - 1, f[n.result(0)]);
  }
  runCallFrame(*version, fo, n, f, dying);
  return true;
}

bool Interpreter::runNative(const ir::Function& version, const std::vector<Value>& params, Value& r) {
  // Tapes and traces see each node run; a step budget counts each call.
  if (tape_ || tracer_ || stepBudget_) return false;
  const jit::NativeFunction* code = graph_.nativeFunction(version);
  int64_t bits[jit::kMaxNativeArgs];
  if (!code || !nativeArgs(*version.body(), params.size(), [&](size_t i) -> const Value& { return params[i]; }, bits))
    return false;
  return callNative(*code, version, bits, limits_.maxCallDepth - depth_, r);
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

Value Interpreter::call(const Value& callee, std::vector<Value> args, const std::vector<std::string>& kwnames,
                        std::vector<Value> kwargs, SourceLoc loc) {
  return callWith(callee, args, kwnames, kwargs, loc);
}

Value Interpreter::callWith(const Value& callee, std::vector<Value>& args, const std::vector<std::string>& kwnames,
                            std::vector<Value>& kwargs, SourceLoc loc) {
  switch (callee.kind()) {
    case Kind::Function: return callFunction(callee, args, kwnames, kwargs, loc);
    case Kind::Builtin: {
      const auto& b = callee.as<BuiltinObj>();
      if (!kwnames.empty()) checkKeywordsDeclared(b.keywords, kwnames, b.name, loc);
      CallContext ctx{*this, loc, kwnames, kwargs, b.name};
      ctx.builtin = &b;
      Value r = b.fn(ctx, args);
      ctx.checkKeywordsUsed(ctx.name.c_str());
      return r;
    }
    case Kind::Method: {
      const auto& m = callee.as<MethodObj>();
      if (!kwnames.empty()) {
        // A type's own method (str.lower) is named by the type.
        std::string owner = m.self.is(Kind::Builtin) ? m.self.as<BuiltinObj>().name : typeName(m.self);
        checkKeywordsDeclared(m.keywords, kwnames, owner + "." + m.name, loc);
      }
      args.insert(args.begin(), m.self);
      CallContext ctx{*this, loc, kwnames, kwargs, m.name};
      ctx.receiverFirst = true;
      Value r = m.fn(ctx, args);
      ctx.checkKeywordsUsed(ctx.name.c_str());
      return r;
    }
    default: fail(loc, std::string("'") + typeName(callee) + "' object is not callable");
  }
}

// A call of `fo` with `nargs` arguments by position that runs its body as
// it is (eager mode, @eager) and binds them one to one (runCallFrame
// checks its annotations, if it has some).
bool Interpreter::interpretedAsIs(const FunctionObj& fo, size_t nargs) const {
  const ir::Function& fn = *fo.fn;
  bool graph = fo.forceJit || (graphMode_ && !fo.forceEager);
  return !graph && nargs == fn.numParams() && fn.plainSignature();
}

// The common call: every parameter positional and passed so.
static bool positionalOnly(const FunctionObj& fo, const std::vector<Value>& args,
                           const std::vector<std::string>& kwnames) {
  const ir::Function& fn = *fo.fn;
  return kwnames.empty() && args.size() == fn.numParams() && fn.numPositional() == fn.numParams();
}

// Python's binding of a call's arguments to a signature: positional
// arguments fill the positional parameters, extras go to `*args`; keywords
// name any parameter but `*args`/`**kwargs`, unknown ones go to `**kwargs`;
// then defaults fill what is left.
void Interpreter::bindParams(const FunctionObj& fo, std::vector<Value>& args, const std::vector<std::string>& kwnames,
                             std::vector<Value>& kwargs, SourceLoc loc, std::vector<Value>& params) {
  const ir::Function& fn = *fo.fn;
  using ir::ParamKind;
  size_t nparams = fn.numParams(), npositional = fn.numPositional();
  if (positionalOnly(fo, args, kwnames)) {
    params.reserve(nparams + fo.captures.size());
    for (Value& a : args) params.push_back(std::move(a));
    params.insert(params.end(), fo.captures.begin(), fo.captures.end());
    return;
  }
  const auto& names = fn.paramNames();
  std::optional<size_t> varArgs, varKeywords;
  if (fn.varArgsIndex() >= 0) varArgs = static_cast<size_t>(fn.varArgsIndex());
  if (fn.varKeywordsIndex() >= 0) varKeywords = static_cast<size_t>(fn.varKeywordsIndex());
  if (args.size() > npositional && !varArgs)
    fail(loc, positionalCountMessage(fo.name, std::to_string(npositional), args.size()));
  params.resize(nparams + fo.captures.size());
  std::vector<bool> bound(nparams, false);
  for (size_t i = 0; i < args.size() && i < npositional; ++i) {
    params[i] = std::move(args[i]);
    bound[i] = true;
  }
  if (varArgs) {
    std::vector<Value> extra;
    for (size_t i = npositional; i < args.size(); ++i) extra.push_back(std::move(args[i]));
    params[*varArgs] = makeTuple(std::move(extra));
    bound[*varArgs] = true;
  }
  Value extraKeywords = varKeywords ? makeDict() : Value();
  for (size_t k = 0; k < kwnames.size(); ++k) {
    size_t i = 0;
    while (i < nparams && !(names[i] == kwnames[k] && (fn.paramKind(i) == ParamKind::Positional ||
                                                        fn.paramKind(i) == ParamKind::KeywordOnly)))
      ++i;
    if (i == nparams) {
      if (!varKeywords) {
        // The suggestion is among the parameters this call has not bound.
        std::vector<std::string> named;
        for (size_t p = 0; p < nparams; ++p)
          if (!bound[p] && (fn.paramKind(p) == ParamKind::Positional || fn.paramKind(p) == ParamKind::KeywordOnly))
            named.push_back(names[p]);
        fail(loc, fo.name + "() got an unexpected keyword argument '" + kwnames[k] + "'" + didYouMean(kwnames[k], named));
      }
      extraKeywords.as<DictObj>().set(kwnames[k], std::move(kwargs[k]));
      continue;
    }
    if (bound[i]) fail(loc, fo.name + "() got multiple values for argument '" + kwnames[k] + "'");
    params[i] = std::move(kwargs[k]);
    bound[i] = true;
  }
  if (varKeywords) {
    params[*varKeywords] = std::move(extraKeywords);
    bound[*varKeywords] = true;
  }
  size_t firstDefault = npositional - fo.defaults.size();
  for (size_t i = 0; i < nparams; ++i) {
    if (bound[i]) continue;
    if (fn.paramKind(i) == ParamKind::KeywordOnly) {
      auto d = std::find_if(fo.kwDefaults.begin(), fo.kwDefaults.end(),
                            [&](const auto& kd) { return kd.first == names[i]; });
      if (d == fo.kwDefaults.end())
        fail(loc, fo.name + "() missing required keyword-only argument '" + names[i] + "'");
      params[i] = d->second;
      continue;
    }
    if (i < firstDefault) fail(loc, fo.name + "() missing required argument '" + names[i] + "'");
    params[i] = fo.defaults[i - firstDefault];
  }
  for (size_t c = 0; c < fo.captures.size(); ++c) params[nparams + c] = fo.captures[c];
}

void Interpreter::enter(SourceLoc loc) {
  if (depth_ >= limits_.maxCallDepth) fail(loc, "maximum recursion depth exceeded");
  checkStack(loc);
  // Every call is a cancellation point, so Ctrl-C stops deep recursion too.
  checkInterrupt(loc);
  countStep(loc);
  ++depth_;
}

Value Interpreter::callFunction(const Value& fnValue, std::vector<Value>& args,
                                const std::vector<std::string>& kwnames, std::vector<Value>& kwargs,
                                SourceLoc loc) {
  const FunctionObj& fo = fnValue.as<FunctionObj>();
  const ir::Function& fn = *fo.fn;
  // The parameters: in the common call, the arguments' own vector (the
  // caller's scratch, which callWith may change) with the captures after.
  std::optional<ScratchValues> bound;
  std::vector<Value>* params = &args;
  if (positionalOnly(fo, args, kwnames)) {
    args.insert(args.end(), fo.captures.begin(), fo.captures.end());
  } else {
    bindParams(fo, args, kwnames, kwargs, loc, *bound.emplace());
    params = &**bound;
  }

  // Annotations are checked at the call, in every mode.
  bool annotated = fn.annotated();
  std::optional<DimBindings> bindings;  // built only for an annotated function
  if (annotated) checkArguments(fn, fo.name, *params, loc, bindings.emplace());
  enter(loc);
  Value r;
  try {
    // Graph mode runs the version compiled for these argument types;
    // compile errors are reported with this call in their trace.
    bool graph = fo.forceJit || (graphMode_ && !fo.forceEager);
    const ir::Function& run = graph ? compileCache_.get(fn, *fo.module, *params, loc) : fn;
    // The parameters are the frame's first values (ir::Function::number).
    if (!graph || !runNative(run, *params, r)) r = runFunction(run, *fo.module, &fnValue, *params);
  } catch (NnError& e) {
    --depth_;
    if (loc.valid()) e.diag().callers.push_back(loc);  // not for a host application's call (nn_call)
    throw;
  }
  --depth_;
  if (annotated) checkResult(fn, fo.name, r, *bindings, loc);
  return r;
}

// An inlined call's annotation checks, as callFunction makes them: the
// arguments, or the result after the arguments bind their symbols again.
void Interpreter::execCheck(const ir::Node& n, Frame& f) {
  const auto* fn = static_cast<const ir::Function*>(n.executorCache());
  if (!fn) {
    fn = ir::checkedFunction(n);
    if (!fn) fail(n.loc(), "internal error: unknown function @" + n.strAttr("func"));
    n.setExecutorCache(fn);
  }
  size_t first = n.op() == Op::CheckResult ? 1 : 0;
  ScratchValues params;
  for (size_t i = first; i < n.operands().size(); ++i) params->push_back(f[n.operand(i)]);
  DimBindings bindings;
  checkArguments(*fn, n.strAttr("name"), *params, n.loc(), bindings);
  if (first) checkResult(*fn, n.strAttr("name"), f[n.operand(0)], bindings, n.loc());
}

std::optional<Value> Interpreter::callGradient(const Value& fnValue, std::vector<Value> args,
                                               const std::vector<std::string>& kwnames, std::vector<Value> kwargs,
                                               const GradientSpec& spec, SourceLoc loc) {
  if (!fnValue.is(Kind::Function) || tape_) return std::nullopt;
  const FunctionObj& fo = fnValue.as<FunctionObj>();
  bool graph = fo.forceJit || (graphMode_ && !fo.forceEager);
  if (!graph || fo.fn->annotated()) return std::nullopt;
  // argnums count the positional arguments; the version's are parameters,
  // which differ from them from a `*args` on (its tuple is one parameter)
  // and past the positional parameters: those go to the tape.
  size_t positional = fo.fn->varArgsIndex() >= 0 ? static_cast<size_t>(fo.fn->varArgsIndex()) : fo.fn->numPositional();
  if (std::any_of(spec.argnums.begin(), spec.argnums.end(), [&](size_t a) { return a >= positional; }))
    return std::nullopt;
  std::vector<Value> params;
  bindParams(fo, args, kwnames, kwargs, loc, params);
  enter(loc);
  Value r;
  try {
    std::string why;
    const ir::Function* run = compileCache_.getGradient(*fo.fn, *fo.module, spec, params, context_.cpu(), loc, why);
    if (!run) {
      --depth_;
      return std::nullopt;
    }
    r = runFunction(*run, *fo.module, &fnValue, params);
  } catch (NnError& e) {
    --depth_;
    if (loc.valid()) e.diag().callers.push_back(loc);  // not for a host application's call (nn_call)
    throw;
  }
  --depth_;
  return r;
}

}  // namespace nn::rt
