// The compile cache's bindings of module globals (see compile_cache.h):
// the copies of imported modules' plain functions that a version inlines,
// each global it binds by the function it holds (bindGlobals), the types
// of the tensors and numbers it reads (typeGlobals), and the checks, at
// each call, that what a version bound is still what the globals hold.
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "ir/clone.h"
#include "ir/type_rules.h"
#include "runtime/compile_cache.h"
#include "runtime/constant_eval.h"
#include "runtime/interpreter.h"
#include "runtime/tensor.h"

namespace nn::rt {

// Every use of `v` is as the callee of a call.
static bool onlyCalled(const ir::Value* v, const ir::Block& b) {
  for (const auto& n : b.nodes()) {
    for (size_t i = 0; i < n->operands().size(); ++i)
      if (n->operand(i) == v && (n->op() != ir::Op::Call || i != 0)) return false;
    for (size_t k = 0; k < n->numBlocks(); ++k)
      if (!onlyCalled(v, *n->block(k))) return false;
  }
  return true;
}

// Nothing in `b` reads `v`.
static bool unused(const ir::Value* v, const ir::Block& b) {
  for (const auto& n : b.nodes()) {
    for (const ir::Value* o : n->operands())
      if (o == v) return false;
    for (size_t k = 0; k < n->numBlocks(); ++k)
      if (!unused(v, *n->block(k))) return false;
  }
  return true;
}

static void collectGlobalLoads(ir::Block& b, std::vector<ir::Node*>& out) {
  for (const auto& n : b.nodes()) {
    if (n->op() == ir::Op::LoadGlobal) out.push_back(n.get());
    for (size_t k = 0; k < n->numBlocks(); ++k) collectGlobalLoads(*n->block(k), out);
  }
}

// `call_method %m, args {name}` becomes `getattr %m {name}` and a call of
// it: bind-methods fused `mod.f(...)` when it could not know that %m is a
// module (f is named like a list or dict method); split, the call can
// bind f like any other.
static void splitMethodCall(ir::Node* cm) {
  ir::Block& b = *cm->parent();
  auto get = std::make_unique<ir::Node>(ir::Op::GetAttr, cm->loc());
  get->addOperand(cm->operand(0));
  get->setAttr("name", cm->strAttr("name"));
  get->addResult(ir::Type::any());
  get->setInlinedAt(cm->inlinedAt());
  get->setParent(&b);
  auto call = std::make_unique<ir::Node>(ir::Op::Call, cm->loc());
  call->addOperand(get->result(0));
  for (size_t i = 1; i < cm->operands().size(); ++i) call->addOperand(cm->operand(i));
  if (const ir::Attr* kw = cm->attr("kw")) call->setAttr("kw", *kw);
  call->setInlinedAt(cm->inlinedAt());
  call->adoptResults(*cm);
  call->setParent(&b);
  auto& nodes = b.mutableNodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].get() != cm) continue;
    nodes[i] = std::move(call);
    nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(i), std::move(get));
    return;
  }
}

// The nodes of `b` (nested blocks included) of op `op` whose first operand
// is `v`.
static void collectReads(ir::Block& b, ir::Op op, const ir::Value* v, std::vector<ir::Node*>& out) {
  for (const auto& n : b.nodes()) {
    if (n->op() == op && n->operand(0) == v) out.push_back(n.get());
    for (size_t k = 0; k < n->numBlocks(); ++k) collectReads(*n->block(k), op, v, out);
  }
}

// The `getattr` nodes reading an attribute of module value `v` in `b`,
// its call_methods split first (splitMethodCall).
static std::vector<ir::Node*> moduleAttrReads(ir::Block& b, const ir::Value* v) {
  std::vector<ir::Node*> methodCalls, attrs;
  collectReads(b, ir::Op::CallMethod, v, methodCalls);
  for (ir::Node* cm : methodCalls) splitMethodCall(cm);
  collectReads(b, ir::Op::GetAttr, v, attrs);
  return attrs;
}

// Removes the node `n` from its block.
static void removeNode(ir::Node* n) {
  auto& nodes = n->parent()->mutableNodes();
  nodes.erase(std::find_if(nodes.begin(), nodes.end(), [&](const auto& owned) { return owned.get() == n; }));
}

// Replaces the node `n` of its block by `node`, which takes its results.
static void replaceNode(ir::Node* n, std::unique_ptr<ir::Node> node) {
  ir::Block& b = *n->parent();
  for (auto& owned : b.mutableNodes()) {
    if (owned.get() != n) continue;
    node->setInlinedAt(n->inlinedAt());
    node->adoptResults(*n);
    node->setParent(&b);
    owned = std::move(node);
    return;
  }
}

// The name of the builtin g holds, when it is the one a `builtin` node of
// that name makes (not a host application's function), else empty.
static std::string builtinHeld(const Value& g, Host& host) {
  if (!g.is(Kind::Builtin)) return "";
  const BuiltinObj& b = g.as<BuiltinObj>();
  try {
    Value same = host.builtin(b.name, {});
    if (same.is(Kind::Builtin) && same.as<BuiltinObj>().fn == b.fn) return b.name;
  } catch (const NnError&) {
  }
  return "";
}

// Replaces the node `n` of its block by `make_closure {func, name}` of the
// same results, f's defaults its operands: `const` nodes (or `builtin`
// nodes, for a default that is a builtin) made before it.
static void becomeClosure(ir::Node* n, const std::string& func, const FunctionObj& f, Host& host) {
  ir::Block& b = *n->parent();
  auto mk = std::make_unique<ir::Node>(ir::Op::MakeClosure, n->loc());
  auto& nodes = b.mutableNodes();
  auto at = std::find_if(nodes.begin(), nodes.end(), [&](const auto& owned) { return owned.get() == n; });
  for (const Value& d : f.defaults) {
    std::optional<ir::Attr> literal = literalAttr(d);
    auto c = std::make_unique<ir::Node>(literal ? ir::Op::Const : ir::Op::Builtin, n->loc());
    c->setParent(&b);
    c->setInlinedAt(n->inlinedAt());
    if (literal) c->setAttr("value", *literal);
    else c->setAttr("name", builtinHeld(d, host));
    c->addResult(ir::Type::any())->setType(ir::resultType(*c, 0));
    mk->addOperand(c->result(0));
    at = nodes.insert(at, std::move(c)) + 1;
  }
  mk->setAttr("func", func);
  mk->setAttr("name", f.name);
  mk->setAttr("ndefaults", static_cast<int64_t>(f.defaults.size()));
  replaceNode(n, std::move(mk));
}

// A global holding a plain function (no captures, defaults that are
// constants or builtins, no keyword-only defaults, not @eager) of
// `module`'s own graphs.
static const FunctionObj* plainFunction(const Value* g, const ModuleInstance& module, Host& host);

// The plain function a module's attribute holds, of that module or of one
// it imported it from (`nn.lstm`, which nn takes from _nn_recurrent): its
// copy reads the globals of the module that defined it.
static const FunctionObj* plainAttribute(const Value* g, Host& host) {
  if (!g || !g->is(Kind::Function) || !g->as<FunctionObj>().module) return nullptr;
  return plainFunction(g, *g->as<FunctionObj>().module, host);
}

static const FunctionObj* plainFunction(const Value* g, const ModuleInstance& module, Host& host) {
  if (!g || !g->is(Kind::Function)) return nullptr;
  const FunctionObj& f = g->as<FunctionObj>();
  if (!f.captures.empty() || !f.kwDefaults.empty() || f.module != &module || f.forceEager) return nullptr;
  // A default that is a literal or a builtin (`act=relu`) is immutable: an
  // inlined call sees what the function holds for as long as the binding
  // is current.
  for (const Value& d : f.defaults)
    if (!literalAttr(d) && builtinHeld(d, host).empty()) return nullptr;
  return &f;
}

namespace {

// Copies of an imported module's functions (and of the compiled function's
// own module's) in a version's graph, so that the inliner can inline them
// with what they call (`math.sqrt(x)`, `from nn import mlp`). A
// copy reads the module's globals as the original would only where the
// global holds a plain function, of that module or imported into it (its
// load becomes the make_closure of that function's copy, its constant
// defaults the closure's operands) or a builtin (`_sqrt = sqrt`: its
// load becomes the builtin) or an imported module whose plain functions it
// calls (`nn.conv_block(p, x)`: the attribute becomes the make_closure of
// that function's copy), each only called; every such global is bound
// (the version is recompiled if it is rebound); one that a function of
// the module stores is not. A function that stores a global, imports,
// makes a closure, calls itself or reads any other global is not copied.
class ImportedCopies {
 public:
  ImportedCopies(ir::Graph& graph, Host& host) : graph_(graph), host_(host) {}

  struct Read {
    std::string name;  // module.global, for --explain-recompile
    const Object* value;
    const Global* entry;
    std::weak_ptr<Object> alive;  // the value, as Binding::alive
  };
  std::vector<Read> reads;  // the globals the copies read

  // The name of f's copy ("module..function"), empty when it has none.
  std::string copy(const FunctionObj& f) {
    ModuleInstance& from = *f.module;
    const ir::Function& fn = *f.fn;
    if (auto it = copied_.find(&fn); it != copied_.end()) return it->second;
    if (!visiting_.insert(&fn).second) return "";  // it calls itself
    Bound bound;
    std::vector<Read> own;
    bool ok = collect(*fn.body(), *fn.body(), from, bound, own);
    visiting_.erase(&fn);
    std::string qualified = ok ? from.name() + ".." + fn.name() : "";
    if (ok) {
      if (!graph_.function(qualified)) bindLoads(*ir::cloneFunction(fn, graph_, qualified)->body(), bound);
      reads.insert(reads.end(), own.begin(), own.end());
    }
    copied_[&fn] = qualified;
    return qualified;
  }

 private:
  // A global the copy binds -> (the function's copy, the function), or
  // ("", the builtin's name), or for an imported module the copies of its
  // functions that the copy calls (attribute -> (copy, function)).
  struct BoundGlobal {
    std::string func;
    const FunctionObj* function = nullptr;
    std::string builtin;
    std::unordered_map<std::string, std::pair<std::string, const FunctionObj*>> attrs;
  };
  using Bound = std::unordered_map<std::string, BoundGlobal>;

  // `load_global mod` of an imported module whose every use reads a plain
  // function of it that is only called (`nn.conv_block(p, x)`, also as a
  // fused call_method): each such function is copied and bound, and the
  // module global and the function's own global are read.
  bool moduleFunctions(const ir::Node& load, const ir::Block& body, ModuleInstance& from, Bound& bound,
                       std::vector<Read>& own) {
    const std::string& name = load.strAttr("name");
    const Value* g = from.findGlobal(name);
    ModuleInstance* imported = g->as<ModuleObj>().module;
    if (!imported || imported == &from || from.entry(name).storedByFunction()) return false;
    std::vector<const ir::Node*> uses;
    if (!attrUses(load.result(0), body, body, uses)) return false;
    BoundGlobal& b = bound[name];
    bool first = b.attrs.empty();
    for (const ir::Node* use : uses) {
      const std::string& attr = use->strAttr("name");
      if (b.attrs.count(attr)) continue;
      const Value* fv = imported->findGlobal(attr);
      const FunctionObj* target = plainAttribute(fv, host_);
      if (!target || imported->entry(attr).storedByFunction()) return false;
      std::string q = copy(*target);
      if (q.empty()) return false;
      b.attrs[attr] = {q, target};
      own.push_back({imported->name() + "." + attr, fv->ptr(), &imported->entry(attr), fv->weak()});
    }
    if (first) own.push_back({from.name() + "." + name, g->ptr(), &from.entry(name), g->weak()});
    return true;
  }

  // Every use of `v` in `b` is a getattr whose result is only called, or a
  // call_method on it; those are appended to `uses`.
  static bool attrUses(const ir::Value* v, const ir::Block& b, const ir::Block& body,
                       std::vector<const ir::Node*>& uses) {
    for (const auto& n : b.nodes()) {
      for (size_t i = 0; i < n->operands().size(); ++i) {
        if (n->operand(i) != v) continue;
        bool attr = i == 0 && ((n->op() == ir::Op::GetAttr && onlyCalled(n->result(0), body)) ||
                               n->op() == ir::Op::CallMethod);
        if (!attr) return false;
        uses.push_back(n.get());
      }
      for (size_t k = 0; k < n->numBlocks(); ++k)
        if (!attrUses(v, *n->block(k), body, uses)) return false;
    }
    return true;
  }

  bool collect(const ir::Block& b, const ir::Block& body, ModuleInstance& from, Bound& bound, std::vector<Read>& own) {
    for (const auto& n : b.nodes()) {
      switch (n->op()) {
        case ir::Op::StoreGlobal:
        case ir::Op::MakeClosure:
        case ir::Op::SelfClosure:
        case ir::Op::Import: return false;
        case ir::Op::LoadGlobal: {
          const std::string& name = n->strAttr("name");
          const Value* g = from.findGlobal(name);
          if (g && g->is(Kind::Module)) {
            if (!moduleFunctions(*n, body, from, bound, own)) return false;
            break;
          }
          if (bound.count(name)) break;
          if (!g || !onlyCalled(n->result(0), body) || from.entry(name).storedByFunction()) return false;
          // A function of this module or one imported from another
          // (`from operator import index as _index`), read in its own.
          const FunctionObj* held = g && g->is(Kind::Function) ? &g->as<FunctionObj>() : nullptr;
          if (const FunctionObj* callee = held && held->module ? plainFunction(g, *held->module, host_) : nullptr) {
            std::string q = copy(*callee);
            if (q.empty()) return false;
            bound[name] = {q, callee, "", {}};
          } else if (std::string builtin = builtinHeld(*g, host_); !builtin.empty()) {
            bound[name] = {"", nullptr, builtin, {}};
          } else {
            return false;
          }
          own.push_back({from.name() + "." + name, g->ptr(), &from.entry(name), g->weak()});
          break;
        }
        default: break;
      }
      for (size_t k = 0; k < n->numBlocks(); ++k)
        if (!collect(*n->block(k), body, from, bound, own)) return false;
    }
    return true;
  }

  void bindLoads(ir::Block& b, const Bound& bound) {
    std::vector<ir::Node*> loads;
    collectGlobalLoads(b, loads);
    for (ir::Node* n : loads) {
      const BoundGlobal& g = bound.at(n->strAttr("name"));
      if (!g.attrs.empty()) {
        for (ir::Node* get : moduleAttrReads(b, n->result(0))) {
          const auto& [func, function] = g.attrs.at(get->strAttr("name"));
          becomeClosure(get, func, *function, host_);
        }
        removeNode(n);
        continue;
      }
      if (g.function) {
        becomeClosure(n, g.func, *g.function, host_);
        continue;
      }
      auto builtin = std::make_unique<ir::Node>(ir::Op::Builtin, n->loc());
      builtin->setAttr("name", g.builtin);
      replaceNode(n, std::move(builtin));
    }
  }

  ir::Graph& graph_;
  Host& host_;
  std::unordered_map<const ir::Function*, std::string> copied_;
  std::unordered_set<const ir::Function*> visiting_;
};

}  // namespace

std::vector<CompileCache::Binding> CompileCache::bindGlobals(ir::Function& copy, const ir::Function& original,
                                                             ModuleInstance& module) {
  std::vector<Binding> bound;
  std::vector<ir::Node*> loads;
  collectGlobalLoads(*copy.body(), loads);
  // `mod.f(...)` with `mod` an imported module and f a plain function of
  // it that ImportedCopies can copy: the copy joins this version's graph
  // (named "mod..f", which no front-end name can be) so that the inliner
  // can inline it; the version is recompiled if either global, or one the
  // copies read, is rebound.
  ImportedCopies imports(*copy.graph(), host_);
  std::vector<ir::Node*> moduleReads;
  for (ir::Node* n : loads) {
    const Value* g = module.findGlobal(n->strAttr("name"));
    if (!g || !g->is(Kind::Module) || module.entry(n->strAttr("name")).storedByFunction()) continue;
    ModuleInstance* imported = g->as<ModuleObj>().module;
    if (!imported || imported == &module) continue;
    size_t before = bound.size();
    for (ir::Node* get : moduleAttrReads(*copy.body(), n->result(0))) {
      std::string attr = get->strAttr("name");
      if (imported->entry(attr).storedByFunction()) continue;
      const Value* fv = imported->findGlobal(attr);
      const FunctionObj* target = plainAttribute(fv, host_);
      if (!target || target->fn == &original || !onlyCalled(get->result(0), *copy.body())) continue;
      std::string qualified = imports.copy(*target);
      if (qualified.empty()) continue;
      becomeClosure(get, qualified, *target, host_);
      bound.push_back({n->strAttr("name"), fv->ptr(), attr, nullptr, false, fv->weak(), {}});
    }
    // Read only for those functions: the bindings hold it bound to the
    // module wherever the version runs (removed after the walk below).
    if (bound.size() > before && unused(n->result(0), *copy.body())) moduleReads.push_back(n);
  }
  for (ir::Node* n : loads) {
    std::string name = n->strAttr("name");  // a copy: the node is replaced below
    const Value* g = module.findGlobal(name);
    // A global a function of the module stores may change while this
    // version runs (a call rebinding it mid-loop): never bound.
    if (!onlyCalled(n->result(0), *copy.body()) || module.entry(name).storedByFunction()) continue;
    // Plain functions of this module's graph: load_global NAME becomes
    // make_closure {func, name} of the same function (or of its copy, or
    // the running function for the one being compiled).
    if (const FunctionObj* target = plainFunction(g, module, host_)) {
      if (target->fn->graph() != original.graph()) continue;
      // The function itself (recursion): the running function, which the
      // global holds while the binding is current (the caller's value may
      // be another of the same def, which calls alike), without a lookup.
      if (target->fn == &original) {
        replaceNode(n, std::make_unique<ir::Node>(ir::Op::SelfClosure, n->loc()));
        bound.push_back({name, g->ptr(), "", &module.entry(name), false, g->weak(), {}});
        continue;
      }
      // Copied as an imported one is where it can be, so that the globals
      // its body calls are bound too (a builtin under a name of the
      // module's own, a helper), once the inliner has it in this version.
      std::string copied = imports.copy(*target);
      // Its defaults would be inlined with the globals it reads unbound:
      // the call runs its own version, which binds them.
      if (copied.empty() && !target->defaults.empty()) continue;
      becomeClosure(n, copied.empty() ? target->fn->name() : copied, *target, host_);
      bound.push_back({name, g->ptr(), "", &module.entry(name), false, g->weak(), {}});
      continue;
    }
    // A builtin under a name of the module's own (`_sqrt = sqrt`): the
    // load becomes the builtin, which later passes know (builtin-ops makes
    // the call of a number its op).
    if (std::string builtin = g ? builtinHeld(*g, host_) : ""; !builtin.empty()) {
      auto node = std::make_unique<ir::Node>(ir::Op::Builtin, n->loc());
      node->setAttr("name", builtin);
      replaceNode(n, std::move(node));
      bound.push_back({name, g->ptr(), "", &module.entry(name), false, g->weak(), {}});
      continue;
    }
    // One imported by `from mod import f`: copied in as above.
    const FunctionObj* imported = g && g->is(Kind::Function) ? &g->as<FunctionObj>() : nullptr;
    if (!imported || !imported->module || imported->module == &module ||
        plainFunction(g, *imported->module, host_) != imported)
      continue;
    std::string qualified = imports.copy(*imported);
    if (qualified.empty()) continue;
    becomeClosure(n, qualified, *imported, host_);
    bound.push_back({name, g->ptr(), "", &module.entry(name), false, g->weak(), {}});
  }
  for (const ImportedCopies::Read& r : imports.reads)
    bound.push_back({r.name, r.value, "", r.entry, true, r.alive, {}});
  for (ir::Node* n : moduleReads) removeNode(n);
  return bound;
}

bool hasStaticType(const Value& v, const ir::Type& t) {
  if (!v.is(Kind::Tensor)) return !t.isTensor() && t.kind == staticKind(v);
  const Tensor& x = tensorOf(v);
  if (!t.isTensor() || t.dtype != x.dtype() || !t.shape || t.shape->size() != x.shape().size() ||
      CompileCache::offDefaultDevice(v))
    return false;
  for (size_t d = 0; d < t.shape->size(); ++d)
    if ((*t.shape)[d].size != x.shape()[d]) return false;
  return true;
}

std::vector<CompileCache::Binding> CompileCache::typeGlobals(ir::Function& copy, const ir::Function& original,
                                                             ModuleInstance& module) {
  std::vector<Binding> bound;
  if (typedStale_[&original] >= kTypedStaleLimit) return bound;
  std::vector<ir::Node*> loads;
  collectGlobalLoads(*copy.body(), loads);
  std::unordered_set<std::string> stored;
  std::function<void(const ir::Block&)> stores = [&](const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      if (n->op() == ir::Op::StoreGlobal) stored.insert(n->strAttr("name"));
      for (size_t k = 0; k < n->numBlocks(); ++k) stores(*n->block(k));
    }
  };
  stores(*copy.body());
  for (ir::Node* n : loads) {
    std::string name = n->strAttr("name");  // a copy: setAttr below may move the node's attributes
    const Value* g = module.findGlobal(name);
    if (!g || stored.count(name) || module.entry(name).storedByFunction() || n->attr("type")) continue;
    bool typable = g->is(Kind::Tensor) ? !offDefaultDevice(*g)
                                       : g->is(Kind::Int) || g->is(Kind::Float) || g->is(Kind::Bool) ||
                                             g->is(Kind::Str) || g->is(Kind::None);
    if (!typable) continue;
    ir::Type t = staticType(*g);
    n->setAttr("type", t.str());
    n->result(0)->setType(t);
    bool seen = std::any_of(bound.begin(), bound.end(), [&](const Binding& b) { return b.name == name; });
    if (!seen) bound.push_back({name, nullptr, "", &module.entry(name), false, {}, t});
  }
  return bound;
}

// A binding is current while its global holds the function bound (a
// typed binding: a value of its type) and no function of the module
// stores the global (a graph added since, a REPL line, may have one:
// Global::storedByFunction).
bool CompileCache::bindingCurrent(const Binding& b, ModuleInstance& module) {
  if (b.type) return b.entry->bound() && !b.entry->storedByFunction() && hasStaticType(b.entry->value(), *b.type);
  auto holds = [&](const Global& g) {
    return g.bound() && !g.storedByFunction() && g.value().ptr() == b.function && !b.alive.expired();
  };
  if (b.entry && (b.foreign || b.entry->owner() == &module)) return holds(*b.entry);
  const Global* g = &module.entry(b.name);
  if (!b.attr.empty()) {
    ModuleInstance* imported = g->bound() && g->value().is(Kind::Module) ? g->value().as<ModuleObj>().module : nullptr;
    if (!imported || g->storedByFunction()) return false;
    g = &imported->entry(b.attr);
  }
  return holds(*g);
}

bool CompileCache::bindingsCurrent(Version& v, ModuleInstance& module) {
  if (v.typed)
    for (const Binding& b : v.bindings)
      if (b.type && !bindingCurrent(b, module)) return false;
  if (!v.checkedAt.empty() && std::all_of(v.checkedAt.begin(), v.checkedAt.end(),
                                          [](const auto& at) { return at.first->rebinds() == at.second; }))
    return true;
  // The counts before the check, so a rebind during it is seen next time.
  std::vector<std::pair<const ModuleInstance*, uint64_t>> at;
  auto note = [&](const ModuleInstance* m) {
    if (m && std::none_of(at.begin(), at.end(), [&](const auto& p) { return p.first == m; }))
      at.emplace_back(m, m->rebinds());
  };
  for (const Binding& b : v.bindings) {
    if (b.type) continue;  // checked above, at every call
    if (b.entry && (b.foreign || b.entry->owner() == &module)) {
      note(b.entry->owner());
      continue;
    }
    note(&module);
    const Global& g = module.entry(b.name);
    if (!b.attr.empty() && g.bound() && g.value().is(Kind::Module)) note(g.value().as<ModuleObj>().module);
  }
  auto current = [&](const Binding& b) { return bindingCurrent(b, module); };
  if (!std::all_of(v.bindings.begin(), v.bindings.end(), current)) return false;
  v.checkedAt = std::move(at);
  return true;
}

bool CompileCache::typedBindingsCurrent(const std::vector<Binding>& bindings, ModuleInstance& module) {
  return std::all_of(bindings.begin(), bindings.end(),
                     [&](const Binding& b) { return !b.type || bindingCurrent(b, module); });
}

std::string CompileCache::staleBinding(const std::vector<Binding>& bindings, ModuleInstance& module) {
  for (const Binding& b : bindings) {
    if (bindingCurrent(b, module)) continue;
    if (!b.type)
      return "global '" + (b.attr.empty() ? b.name : b.name + "." + b.attr) + "', which it calls, was rebound";
    std::string now = !b.entry->bound()             ? "is unbound"
                      : b.entry->storedByFunction() ? "is stored by a function"
                      : offDefaultDevice(b.entry->value())
                          ? "holds a tensor on " + tensorOf(b.entry->value()).device().name()
                          : "holds " + staticType(b.entry->value()).str();
    return "global '" + b.name + "' " + now + " (was " + b.type->str() + ")";
  }
  return "";
}

}  // namespace nn::rt
