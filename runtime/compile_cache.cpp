// The compile cache: signature lookup, specialisation and recompilation
// reports (see compile_cache.h).
#include "runtime/compile_cache.h"

#include "ir/clone.h"
#include "passes/passes.h"
#include "runtime/interpreter.h"
#include "runtime/tensor.h"

namespace nn::rt {

ir::Type staticType(const Value& v) {
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
    case Kind::Tensor: {
      const Tensor& t = tensorOf(v);
      ir::DimList dims;
      for (int64_t d : t.shape()) dims.push_back(ir::Dim::known(d));
      return ir::Type::tensor(t.dtype(), std::move(dims));
    }
    default: return ir::Type::any();
  }
}

const ir::Function& CompileCache::get(const ir::Function& fn, const std::vector<Value>& args, SourceLoc callSite) {
  std::vector<ir::Type> sig;
  sig.reserve(args.size());
  for (const Value& v : args) sig.push_back(staticType(v));
  Entry& e = entries_[&fn];
  for (const Version& v : e.versions)
    if (v.signature == sig) return *v.fn;

  if (!e.versions.empty() && options_.explainRecompile) explain(fn, e, sig, callSite);
  auto g = std::make_unique<ir::Graph>(fn.graph()->file());
  g->setSourceName(fn.graph()->sourceName());
  g->setBase(fn.graph());
  g->setStrictTypes(true);
  ir::Function* copy = ir::cloneFunction(fn, *g);
  for (size_t i = 0; i < sig.size(); ++i) copy->body()->arg(i)->setType(sig[i]);
  passes::runPipeline(*g);
  copy->number();
  e.versions.push_back({std::move(sig), std::move(g), copy});
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

size_t CompileCache::compiles(const ir::Function& fn) const {
  auto it = entries_.find(&fn);
  return it == entries_.end() ? 0 : it->second.versions.size();
}

const ir::Function* CompileCache::latest(const ir::Function& fn) const {
  auto it = entries_.find(&fn);
  return it == entries_.end() || it->second.versions.empty() ? nullptr : it->second.versions.back().fn;
}

void CompileCache::explain(const ir::Function& fn, const Entry& e, const std::vector<ir::Type>& sig,
                           SourceLoc callSite) {
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
