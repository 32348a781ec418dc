// The compile cache: signature lookup, specialisation and recompilation
// reports (see compile_cache.h); the bindings of module globals that a
// version makes and checks are global_bindings.cpp's.
#include "runtime/compile_cache.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "ir/clone.h"
#include "passes/passes.h"
#include "runtime/annotations.h"
#include "runtime/interpreter.h"
#include "runtime/memory_plan.h"
#include "runtime/tensor.h"

namespace nn::rt {

// The kind of type a value has, without building the type (a tensor's
// shape): what the compile cache's fast path compares for a non-tensor.
ir::TypeKind staticKind(const Value& v) {
  switch (v.kind()) {
    case Kind::None: return ir::TypeKind::None;
    case Kind::Bool: return ir::TypeKind::Bool;
    case Kind::Int: return ir::TypeKind::Int;
    case Kind::Float: return ir::TypeKind::Float;
    case Kind::Str: return ir::TypeKind::Str;
    case Kind::Tuple: return ir::TypeKind::Tuple;
    case Kind::List: return ir::TypeKind::List;
    case Kind::Dict: return ir::TypeKind::Dict;
    case Kind::Function:
    case Kind::Builtin:
    case Kind::Method: return ir::TypeKind::Func;
    case Kind::Module: return ir::TypeKind::Module;
    case Kind::Tensor: return ir::TypeKind::Tensor;
    default: return ir::TypeKind::Any;
  }
}

ir::Type staticType(const Value& v) {
  if (!v.is(Kind::Tensor)) return staticKind(v);
  const Tensor& t = tensorOf(v);
  ir::DimList dims;
  for (int64_t d : t.shape()) dims.push_back(ir::Dim::known(d));
  return ir::Type::tensor(t.dtype(), std::move(dims));
}

size_t CompileCache::SignatureHash::operator()(const Key& key) const {
  const std::vector<ir::Type>& sig = key.types;
  size_t h = sig.size();
  auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (const Device* d : key.devices) mix(std::hash<const Device*>{}(d));
  for (const ir::Type& t : sig) {
    mix(static_cast<size_t>(t.kind));
    mix(t.dtype ? static_cast<size_t>(*t.dtype) + 1 : 0);
    if (!t.shape) continue;
    mix(t.shape->size() + 1);
    for (const ir::Dim& d : *t.shape) mix(d.isKnown() ? static_cast<size_t>(d.size) : std::hash<std::string>{}(d.sym));
  }
  return h;
}

std::unique_ptr<ir::Graph> CompileCache::versionGraph(const ir::Function& fn) {
  auto g = std::make_unique<ir::Graph>(fn.graph()->file());
  g->setSourceName(fn.graph()->sourceName());
  g->setBase(fn.graph());
  g->setStrictTypes(true);
  return g;
}

void CompileCache::optimise(ir::Graph& g) {
  passes::runPipeline(g, passes_, [&](const char* pass) {
    if (options_.afterPass) options_.afterPass(pass, g);
  });
}

namespace {

bool placesWork(const ir::Block& b) {
  for (const auto& n : b.nodes()) {
    ir::Op op = n->op();
    if (op == ir::Op::Place || op == ir::Op::ToDevice || op == ir::Op::CopyLike) return true;
    for (size_t i = 0; i < n->numBlocks(); ++i)
      if (placesWork(*n->block(i))) return true;
  }
  return false;
}

}  // namespace

bool CompileCache::offDefaultDevice(const Value& v) {
  return v.is(Kind::Tensor) && tensorOf(v).device().name() != "cpu";
}

// Starts a version's body with `to %p {device}` for each tensor parameter
// on a known device: a copy that finds its operand there (the version is
// only used for arguments on those devices), which tells the placement
// analysis (ir/placement.h) where the parameters are.
void CompileCache::seedParameterDevices(ir::Function& f, const std::vector<const Device*>& devices) {
  ir::Block& body = *f.body();
  std::vector<std::unique_ptr<ir::Node>> seeds;
  std::unordered_map<const ir::Value*, ir::Value*> uses;
  for (size_t i = 0; i < devices.size() && i < body.numArgs(); ++i) {
    if (!devices[i] || !body.arg(i)->type().isTensor()) continue;
    auto to = std::make_unique<ir::Node>(ir::Op::ToDevice, f.loc());
    to->setParent(&body);  // before its result, which takes its block as owner
    to->addOperand(body.arg(i));
    to->setAttr("device", devices[i]->name());
    ir::Value* r = to->addResult(body.arg(i)->type());
    r->setNameHint(body.arg(i)->nameHint());
    uses[body.arg(i)] = r;
    seeds.push_back(std::move(to));
  }
  if (seeds.empty()) return;
  ir::replaceUses(f, uses);  // before the seeds join the body: they keep reading the parameters
  auto& nodes = body.mutableNodes();
  nodes.insert(nodes.begin(), std::make_move_iterator(seeds.begin()), std::make_move_iterator(seeds.end()));
}

// Whether `args` have signature `sig`, as get() would build it, for
// arguments on the default device: a call like the last one finds its
// version without building and hashing a key. Conservative: a signature
// with symbolic dimensions (from annotations) never matches here.
template <class Arg>
static bool matchesSignature(const std::vector<ir::Type>& sig, size_t count, Arg arg) {
  if (sig.size() != count) return false;
  for (size_t i = 0; i < count; ++i)
    if (!hasStaticType(arg(i), sig[i])) return false;
  return true;
}

template <class Arg>
const ir::Function* CompileCache::lastCurrent(Entry& e, ModuleInstance& module, size_t count, Arg arg) {
  if (e.last >= e.versions.size() || e.deviceAware != 0) return nullptr;
  Version& v = e.versions[e.last];
  return !v.stale && matchesSignature(v.signature, count, arg) && bindingsCurrent(v, module) ? v.fn : nullptr;
}

const ir::Function* CompileCache::currentVersion(const ir::Function& fn, ModuleInstance& module,
                                                 std::span<const Value* const> args) {
  return lastCurrent(entry(fn), module, args.size(), [&](size_t i) -> const Value& { return *args[i]; });
}

const ir::Function& CompileCache::get(const ir::Function& fn, ModuleInstance& module, const std::vector<Value>& args,
                                      SourceLoc callSite) {
  Entry& e = entry(fn);
  if (const ir::Function* last = lastCurrent(e, module, args.size(), [&](size_t i) -> const Value& { return args[i]; }))
    return *last;
  Key key;
  std::vector<ir::Type>& sig = key.types;
  sig.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    sig.push_back(i < fn.numParams() ? signatureType(staticType(args[i]), fn.paramAnnotation(i)) : staticType(args[i]));
  if (e.deviceAware < 0) e.deviceAware = placesWork(*fn.body());
  // Versions of a function that places work, or called with a tensor off
  // the default device, are per argument device and say where each
  // parameter is: the copies that operations mixing devices need are then
  // nodes of the version (passes/place_devices.cpp).
  bool perDevice = e.deviceAware || std::any_of(args.begin(), args.end(), offDefaultDevice);
  if (perDevice)
    for (const Value& a : args) key.devices.push_back(a.is(Kind::Tensor) ? &tensorOf(a).device() : nullptr);
  std::string rebound;
  if (auto it = e.index.find(key); it != e.index.end()) {
    Version& v = e.versions[it->second];
    rebound = staleBinding(v.bindings, module);
    if (rebound.empty()) {
      e.last = key.devices.empty() ? it->second : SIZE_MAX;
      return *v.fn;
    }
    if (v.typed && !typedBindingsCurrent(v.bindings, module)) noteTypedStale(fn);
    // Kept, not freed: a call of it may still be running further up.
    v.stale = true;
    e.index.erase(it);
  }

  if ((!e.versions.empty() || !rebound.empty()) && options_.explainRecompile) explain(fn, e, sig, callSite, rebound);
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<ir::Graph> g;
  ir::Function* copy = nullptr;
  std::vector<Binding> bindings;
  bool hasTyped = false;
  for (;;) {
    g = versionGraph(fn);
    copy = ir::cloneFunction(fn, *g);
    for (size_t i = 0; i < sig.size(); ++i) copy->body()->arg(i)->setType(sig[i]);
    seedParameterDevices(*copy, key.devices);
    bindings = bindGlobals(*copy, fn, module);
    std::vector<Binding> typed = typeGlobals(*copy, fn, module);
    hasTyped = !typed.empty();
    bindings.insert(bindings.end(), std::make_move_iterator(typed.begin()), std::make_move_iterator(typed.end()));
    copy->number();
    try {
      optimise(*g);
      checkInferredResult(*copy);
      break;
    } catch (const NnError&) {
      // An error the globals' types prove is raised where it runs, as it
      // was before they were typed (a caller's handler may catch it): the
      // function's globals are read as `any` from now on.
      if (!hasTyped) throw;
      typedStale_[&fn] = kTypedStaleLimit;
    }
  }
  if (options_.compiled) options_.compiled(*copy);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  e.index.emplace(key, e.versions.size());
  e.last = key.devices.empty() ? e.versions.size() : SIZE_MAX;
  e.versions.push_back({std::move(sig), std::move(g), copy, std::move(bindings), seconds, false, {}, hasTyped});
  if (e.versions.size() > options_.warnAfter && !e.warned) {
    e.warned = true;
    Diagnostic d;
    d.severity = Severity::Warning;
    d.loc = callSite;
    d.message = "'" + fn.name() + "' has been compiled " + std::to_string(e.versions.size()) +
                " times for different argument types or shapes; run with --explain-recompile to see why";
    host_.report(d);
  }
  return *copy;
}

// ", jit K fused kernels in X ms" for the fused nodes of `fn` the JIT
// compiled ("" for none).
static std::string jitSummary(const ir::Function& fn, const std::function<double(const ir::Node&)>& jitMillis) {
  if (!jitMillis) return "";
  size_t kernels = 0;
  double millis = 0;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      if (n->op() == ir::Op::Fused)
        if (double ms = jitMillis(*n); ms > 0) ++kernels, millis += ms;
      for (size_t k = 0; k < n->numBlocks(); ++k) walk(*n->block(k));
    }
  };
  walk(*fn.body());
  if (!kernels) return "";
  std::ostringstream os;
  os << "; jit " << kernels << " fused kernel" << (kernels == 1 ? "" : "s") << " in " << std::fixed
     << std::setprecision(1) << millis << " ms";
  return os.str();
}

void CompileCache::printStats(std::ostream& os, const std::function<double(const ir::Node&)>& jitMillis) const {
  auto size = [](size_t b) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(1);
    if (b >= (size_t(1) << 20)) os << static_cast<double>(b) / (1 << 20) << " MiB";
    else if (b >= 1024) os << static_cast<double>(b) / 1024 << " KiB";
    else os << b << " bytes";
    return os.str();
  };
  for (const auto& [fn, entry] : entries_)
    for (const Version& v : entry.versions) {
      std::string sig;
      for (size_t i = 0; i < v.signature.size(); ++i) sig += (i ? ", " : "") + v.signature[i].str();
      MemoryEstimate m = estimateMemory(*v.fn);
      os << "stats: compiled " << fn->name() << "(" << sig << ") in " << std::fixed << std::setprecision(3)
         << v.compileSeconds * 1e3 << " ms; estimated tensor memory (known shapes): peak " << size(m.planned)
         << " freeing at last use vs " << size(m.naive) << " keeping all" << jitSummary(*v.fn, jitMillis) << "\n";
    }
  printGradientStats(os, jitMillis);
}

void CompileCache::printGradientStats(std::ostream& os, const std::function<double(const ir::Node&)>& jitMillis) const {
  std::vector<std::string> lines;
  for (const auto& [key, v] : gradients_) {
    std::ostringstream line;
    if (v.fn)
      line << "stats: compiled " << v.name << " as IR (reverse mode in graph mode) in " << std::fixed
           << std::setprecision(3) << v.compileSeconds * 1e3 << " ms" << jitSummary(*v.fn, jitMillis) << "\n";
    else
      line << "stats: " << v.name << " is differentiated by the eager tape: " << v.why << "\n";
    lines.push_back(line.str());
  }
  std::sort(lines.begin(), lines.end());  // the map's order is not the program's
  for (const std::string& l : lines) os << l;
}

const ir::Function* CompileCache::latest(const ir::Function& fn) const {
  auto it = entries_.find(&fn);
  return it == entries_.end() || it->second.versions.empty() ? nullptr : it->second.versions.back().fn;
}

void CompileCache::explain(const ir::Function& fn, const Entry& e, const std::vector<ir::Type>& sig,
                           SourceLoc callSite, const std::string& rebound) {
  if (!rebound.empty()) {
    Diagnostic d;
    d.severity = Severity::Note;
    d.loc = callSite;
    d.message = "recompiling '" + fn.name() + "': " + rebound;
    host_.report(d);
    return;
  }
  // Compared with the closest compiled version (fewest differing
  // arguments, the latest among equals): the change that caused the miss.
  auto distance = [&](const std::vector<ir::Type>& s) {
    size_t d = 0;
    for (size_t i = 0; i < s.size() && i < sig.size(); ++i) d += s[i] != sig[i];
    return d;
  };
  const std::vector<ir::Type>* closest = &e.versions.back().signature;
  for (const Version& v : e.versions)
    if (distance(v.signature) < distance(*closest)) closest = &v.signature;
  const std::vector<ir::Type>& last = *closest;
  std::string changes;
  size_t nparams = fn.numParams();
  for (size_t i = 0; i < sig.size() && i < last.size(); ++i) {
    if (sig[i] == last[i]) continue;
    std::string what = i < nparams ? "argument '" + fn.paramNames()[i] + "'"
                                   : "captured '" + fn.captureNames()[i - nparams] + "'";
    changes += (changes.empty() ? "" : "; ") + what + " changed from " + last[i].str() + " to " + sig[i].str();
  }
  Diagnostic d;
  d.severity = Severity::Note;
  d.loc = callSite;
  d.message = "recompiling '" + fn.name() + "' (version " + std::to_string(e.versions.size() + 1) + "): " + changes;
  host_.report(d);
}

}  // namespace nn::rt
