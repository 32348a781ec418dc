// Name resolution and function lowering. A name read in a function is, in
// order: a comprehension variable, a local (SSA value), a variable of an
// enclosing function (captured by value when the closure is made), a module
// global (read at run time, so later definitions are seen), or a builtin.
// Anything else is a compile-time "name is not defined" error.
#include "frontend/lower_internal.h"
#include "ir/builtins.h"
#include "support/suggest.h"

namespace nn::frontend {

using namespace nn::ast;
using ir::Op;
using ir::Value;

static bool inCompScope(const FuncCtx& ctx, const std::string& name) {
  for (const auto& scope : ctx.compScopes)
    if (scope.count(name)) return true;
  return false;
}

bool Lowerer::isSsaName(const std::string& name) const {
  if (name[0] == '$' || inCompScope(*fctx_, name)) return true;
  return !fctx_->isModule && !fctx_->globalDecls.count(name) && fctx_->locals.count(name);
}

// Reads `name` as seen from inside `ctx`, whose live environment is *ctx.env.
Value* Lowerer::readIn(FuncCtx& ctx, const std::string& name, SourceLoc loc) {
  Env& env = *ctx.env;
  bool ssa = name[0] == '$' || inCompScope(ctx, name) ||
             (!ctx.isModule && !ctx.globalDecls.count(name) && ctx.locals.count(name));
  if (ssa) {
    auto it = env.find(name);
    return it != env.end() ? it->second : undef(name, loc);
  }
  if (!ctx.isModule && !ctx.globalDecls.count(name)) {
    // A variable of an enclosing function: captured.
    auto cap = ctx.captures.find(name);
    if (cap != ctx.captures.end()) return cap->second;
    // A comprehension variable of the module is a local of its
    // comprehension, captured like a function's local.
    for (FuncCtx* p = ctx.parent; p; p = p->parent) {
      bool local = inCompScope(*p, name) || (!p->isModule && !p->globalDecls.count(name) && p->locals.count(name));
      if (!local && p->isModule) break;
      if (!local) continue;
      if (name == ctx.selfName) return emitValue(Op::SelfClosure, loc, {});
      Value* arg = ctx.fn->addCapture(name, ir::Type::any());
      ctx.captures[name] = arg;
      return arg;
    }
  }
  if (moduleGlobals_.count(name) || ctx.globalDecls.count(name)) {
    ir::Node* n = emit(Op::LoadGlobal, loc, {});
    n->setAttr("name", name);
    return n->result(0);
  }
  if (options_.hostFunctions && options_.hostFunctions->count(name)) {
    ir::Node* n = emit(Op::HostFunction, loc, {});
    n->setAttr("name", name);
    return n->result(0);
  }
  if (options_.builtins && options_.builtins->count(name)) return builtin(name, loc);
  if (std::optional<double> c = ir::builtinConstant(name)) return constant(*c, loc);
  std::string message = "name '" + name + "' is not defined" + unknownNameHint(ctx, name);
  // Inside a try body the error is the NameError that body raises when it
  // gets there, for a handler to catch.
  if (ctx.tryDepth > 0) {
    Value* exc = emitValue(Op::Call, loc, {builtin("NameError", loc), constant(message, loc)});
    emit(Op::Raise, loc, {exc}, 0);
    return undef(name, loc);
  }
  fail(loc, message);
}

// "; did you mean 'x'?" for an undefined name: nn's spelling of a NumPy or
// PyTorch name, else the nearest name in scope (locals of the enclosing
// functions, globals, builtins).
std::string Lowerer::unknownNameHint(const FuncCtx& ctx, const std::string& name) const {
  if (name == "torch" || name == "np" || name == "numpy" || name == "F")
    return "; nn has no module '" + name + "': its tensor functions are builtins (torch.cat(xs) is cat(xs))";
  if (std::optional<std::string_view> ours = ir::foreignSpelling(name))
    return "; did you mean '" + std::string(*ours) + "'?";
  // Python's builtins that nn has not (language.md §2 lists nn's types).
  static const char* const absent[] = {"set", "frozenset", "open", "input", "object", "super", "property",
                                       "staticmethod", "classmethod", "bytes", "bytearray", "complex",
                                       "memoryview", "eval", "exec", "compile", "globals", "locals", "vars",
                                       "id", "hash", "issubclass", "__import__", "breakpoint"};
  for (const char* a : absent)
    if (name == a) return "; Python's builtin '" + name + "' is not supported in nn";
  std::vector<std::string> names;
  for (const FuncCtx* p = &ctx; p; p = p->parent) {
    names.insert(names.end(), p->locals.begin(), p->locals.end());
    for (const auto& scope : p->compScopes) names.insert(names.end(), scope.begin(), scope.end());
  }
  names.insert(names.end(), moduleGlobals_.begin(), moduleGlobals_.end());
  if (options_.builtins) names.insert(names.end(), options_.builtins->begin(), options_.builtins->end());
  if (options_.hostFunctions) names.insert(names.end(), options_.hostFunctions->begin(), options_.hostFunctions->end());
  for (std::string& c : ir::builtinConstantNames()) names.push_back(std::move(c));
  return didYouMean(name, names);
}

// Whether a lies before b in the source.
static bool precedes(SourceLoc a, SourceLoc b) { return a.line < b.line || (a.line == b.line && a.col < b.col); }

// Keeps the earliest place of `name` (the lowering visits a comprehension's
// element after its loops).
static void noteFirst(std::map<std::string, SourceLoc>& first, const std::string& name, SourceLoc loc) {
  if (!loc.valid()) return;
  auto [it, fresh] = first.try_emplace(name, loc);  // no node made for a name already there
  if (!fresh && precedes(loc, it->second)) it->second = loc;
}

bool usedBefore(const std::map<std::string, SourceLoc>& first, const std::string& name, SourceLoc at) {
  auto it = first.find(name);
  return it != first.end() && precedes(it->second, at);
}

Value* Lowerer::readName(const std::string& name, SourceLoc loc) {
  fctx_->env = &env_;
  noteFirst(fctx_->firstRead, name, loc);
  Value* v = readIn(*fctx_, name, loc);
  // A global or a variable of an enclosing function read inside a `with
  // device(...)` block enters it here (the function's own variables did
  // when the block began: lower_with.cpp).
  if (!withDevices_.empty() && !isSsaName(name) && (!v->def() || v->def()->op() == Op::LoadGlobal))
    v = placed(v, loc);
  return v;
}

void Lowerer::writeName(const std::string& name, Value* v, SourceLoc loc) {
  noteFirst(fctx_->firstWrite, name, loc);
  if (isSsaName(name)) {
    if (v->nameHint().empty()) v->setNameHint(name);
    env_[name] = v;
    if (!fctx_->tryTracked.empty() && fctx_->tryTracked.back().count(name)) {
      ir::Node* t = emit(Op::Track, loc, {v}, 0);
      t->setAttr("name", name);
    }
    return;
  }
  ir::Node* n = emit(Op::StoreGlobal, loc, {v});
  n->setAttr("name", name);
}

std::string Lowerer::uniqueFunctionName(const std::string& base) {
  std::string name = base;
  for (int i = 2; functionNames_.count(name); ++i) name = base + "_" + std::to_string(i);
  functionNames_.insert(name);
  return name;
}

// Lowers a def or lambda body into its own function and returns the closure
// value created in the current function.
Value* Lowerer::functionValue(const std::string& name, const std::vector<Param>& params, SourceLoc loc,
                              const Body* bodyStmts, const Expr* bodyExpr, const Expr* returns,
                              const StrExpr* device) {
  // Defaults are evaluated where the function is defined: the positional
  // parameters' (the last `ndefaults` of them), then the keyword-only
  // parameters' (named by `kwdefaults`).
  std::vector<Value*> defaults;
  size_t npositional = 0;
  std::vector<std::string> kwDefaults;
  for (const Param& p : params) {
    if (!p.defaultValue) continue;
    defaults.push_back(expr(*p.defaultValue));
    if (p.kind == ir::ParamKind::KeywordOnly) kwDefaults.push_back(p.name);
    else ++npositional;
  }

  std::string qualified = fctx_->isModule ? name : fctx_->fn->name() + "." + name;
  ir::Function* fn = g_.addFunction(uniqueFunctionName(qualified), loc);

  FuncCtx ctx;
  ctx.fn = fn;
  ctx.parent = fctx_;
  ctx.selfName = bodyStmts && !fctx_->isModule ? name : std::string();
  for (const Param& p : params) ctx.locals.insert(p.name);
  if (bodyExpr) collectNamedTargets(*bodyExpr, ctx.locals);
  if (bodyStmts) {
    collectAssigned(*bodyStmts, ctx.locals);
    for (const auto& s : *bodyStmts)
      if (auto* gs = as<GlobalStmt>(s.get()))
        for (const auto& n : gs->names) {
          for (const Param& p : params)
            if (p.name == n) fail(gs->loc, "name '" + n + "' is parameter and global");
          ctx.globalDecls.insert(n);
        }
    collectGlobalDecls(*bodyStmts, ctx.globalDecls);
    ctx.hasNestedReturn = containsReturn(*bodyStmts);
  }

  // Switch to the new function; the enclosing state is restored below.
  FuncCtx* outerCtx = fctx_;
  ir::Block* outerBlock = cur_;
  Env outerEnv = std::move(env_);
  outerCtx->env = &outerEnv;
  // A function defined in a `with device(...)` block runs where it is called.
  std::vector<Value*> outerDevices = std::move(withDevices_);
  withDevices_.clear();
  fctx_ = &ctx;
  env_.clear();
  cur_ = fn->body();
  ctx.env = &env_;
  if (device) withDevices_.push_back(constant(device->value, device->loc));
  for (const Param& p : params) {
    std::optional<ir::Annotation> a;
    if (p.annotation) a = annotationOf(*p.annotation);
    // The parameter's type is what every value its annotation admits has:
    // an `int` admits a bool and a `float` an int, as in Python.
    bool exact = a && a->type.kind != ir::TypeKind::Int && a->type.kind != ir::TypeKind::Float;
    Value* v = fn->addParam(p.name, exact ? a->type : ir::Type::any(), p.kind);
    if (a) fn->setParamAnnotation(fn->numParams() - 1, std::move(*a));
    env_[p.name] = placed(v, p.loc);  // a tensor argument enters the function's device
  }
  if (returns) fn->setReturnAnnotation(annotationOf(*returns));
  if (bodyStmts) {
    if (ctx.hasNestedReturn) {
      env_["$ret"] = constant(false, loc);
      env_["$retval"] = none(loc);
    }
    body(*bodyStmts, 0);
    Value* rv = env_.count("$retval") ? env_["$retval"] : none(loc);
    emit(Op::Return, ctx.returnLoc.valid() ? ctx.returnLoc : loc, {rv}, 0);
  } else {
    emit(Op::Return, bodyExpr->loc, {expr(*bodyExpr)}, 0);
  }

  fctx_ = outerCtx;
  cur_ = outerBlock;
  env_ = std::move(outerEnv);
  withDevices_ = std::move(outerDevices);
  fctx_->env = &env_;

  // Bind the captured variables from the defining scope.
  std::vector<Value*> operands;
  for (const std::string& cap : fn->captureNames()) operands.push_back(readIn(*fctx_, cap, loc));
  for (Value* d : defaults) operands.push_back(d);
  ir::Node* n = emit(Op::MakeClosure, loc, operands);
  n->setAttr("func", fn->name());
  n->setAttr("name", name);
  n->setAttr("ndefaults", static_cast<int64_t>(npositional));
  if (!kwDefaults.empty()) n->setAttr("kwdefaults", kwDefaults);
  n->result(0)->setType(ir::Type{ir::TypeKind::Func});
  return n->result(0);
}

// @jit(device="cpu:1"): the device the function's body runs on, as if it
// were in a `with device(...)` block (lower_with.cpp); null for any other
// decorator. The device is looked up where the function is defined.
const StrExpr* Lowerer::jitDevice(const Decorator& d) {
  const auto* c = as<CallExpr>(d.expr.get());
  const auto* f = c ? as<NameExpr>(c->func.get()) : nullptr;
  if (!f || f->id != "jit" || isSsaName("jit")) return nullptr;
  if (!c->args.empty() || c->keywords.size() != 1 || c->keywords[0].name != "device")
    fail(d.loc, "@jit takes one keyword argument, device=\"NAME\" (or none: @jit)");
  const auto* name = as<StrExpr>(c->keywords[0].value.get());
  if (!name) fail(c->keywords[0].value->loc, "@jit(device=...) takes a device name, as in @jit(device=\"cpu:1\")");
  return name;
}

void Lowerer::funcDef(const FuncDefStmt& s) {
  // Decorator expressions are evaluated before the function, applied after.
  std::vector<Value*> decorators;
  const StrExpr* device = nullptr;
  for (const auto& d : s.decorators) {
    if (const StrExpr* name = jitDevice(d)) {
      device = name;
      emitValue(Op::Call, d.loc, {builtin("device", d.loc), constant(name->value, name->loc)});
      decorators.push_back(builtin("jit", d.loc));
      continue;
    }
    decorators.push_back(expr(*d.expr));
  }
  Value* f = functionValue(s.name, s.params, s.loc, &s.body, nullptr, s.returns.get(), device);
  for (size_t i = decorators.size(); i-- > 0;)
    f = emitValue(Op::Call, s.decorators[i].loc, {decorators[i], f});
  writeName(s.name, f, s.nameLoc);
}

}  // namespace nn::frontend
