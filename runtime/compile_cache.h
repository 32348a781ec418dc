// Graph mode's compile cache. A function called in graph mode is compiled
// once per argument signature: its IR is copied (ir/clone.h), the
// parameters and captures get the static types of the argument values
// (tensors with dtype and concrete shape), and the pass pipeline runs on the
// copy, so shape errors are reported at compile time, before anything in
// the function runs, at the operation and (by the caller's trace) the call
// that triggered the compilation.
//
// Calls of module-level functions are bound at compile time (so the
// inliner can see their bodies) when the global holds a plain function
// (no captures or defaults) and is only ever called there, as are calls
// of a global holding a builtin (`_sqrt = sqrt`), unless a function of the
// module stores that global (it could change while the version runs:
// Global::storedByFunction); each version remembers the functions it
// bound and is recompiled when one of those globals is rebound, so a
// rebinding has the effect it has in eager mode. The other globals it
// reads that hold a tensor, a number, a str or None are typed by what
// they hold (typeGlobals), checked at every call, and recompiled for when
// that changes, a few times per function before it reads them untyped.
//
// A call whose signature matches no compiled version compiles a new one;
// with `explainRecompile` it reports, at the call site, which argument
// changed and how. A function compiled more than `warnAfter` times warns
// once (shapes that keep changing defeat the cache).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/module.h"
#include "runtime/value.h"
#include "support/diagnostics.h"

namespace nn::rt {

class Device;
class Host;

// The static type of a runtime value as type inference sees it, and its
// kind alone (any for a value no kind names: a range, a slice).
ir::Type staticType(const Value& v);
ir::TypeKind staticKind(const Value& v);
// Whether `v` has type `t` as staticType gives it, without building the
// type (a typed binding and the last version's signature are checked at
// every call); a symbolic or unknown size never matches.
bool hasStaticType(const Value& v, const ir::Type& t);

// What grad / value_and_grad ask of a function (stdlib/builtins_grad.cpp).
struct GradientSpec {
  std::vector<size_t> argnums;  // the differentiated positional parameters, in the order asked
  bool tuple = false;           // argnums was a tuple: the gradients come as one
  bool hasAux = false;          // the function returns (loss, aux)
  bool withValue = false;       // value_and_grad: (value, gradients)
};

struct CompileOptions {
  bool explainRecompile = false;
  size_t warnAfter = 8;
  // Called after each pass on a specialised graph (--print-ir-after).
  std::function<void(const char* pass, const ir::Graph& g)> afterPass;
  // Called with each version once compiled (--explain-placement).
  std::function<void(const ir::Function& version)> compiled;
};

class CompileCache {
 public:
  // Whether v is a tensor off the default device `cpu`: a call with one
  // gets versions per argument device.
  static bool offDefaultDevice(const Value& v);
  CompileCache(Host& host, passes::PassContext& passes, CompileOptions options)
      : host_(host), passes_(passes), options_(options) {}

  // The compiled version of `fn` for these parameter and capture values
  // (in body-argument order), compiling it if needed.
  const ir::Function& get(const ir::Function& fn, ModuleInstance& module, const std::vector<Value>& args,
                          SourceLoc callSite);
  // The version the last get() of `fn` gave, while `args` have its
  // signature and the globals it bound hold what they did (null otherwise,
  // or when fn's versions are per device): what get() would give, without
  // a lookup by signature. Never compiles.
  const ir::Function* currentVersion(const ir::Function& fn, ModuleInstance& module,
                                     std::span<const Value* const> args);
  // Graph mode's gradient of `fn` (passes/autodiff.cpp): a version that
  // takes `args` (parameters and captures) followed by the leaves of the
  // differentiated arguments (appended to `args`; a float leaf as a 0-d f64
  // tensor) and returns what the grad-function returns. Null, with the
  // reason in `why`, when graph mode cannot differentiate this function
  // (the caller differentiates it with a tape instead).
  const ir::Function* getGradient(const ir::Function& fn, ModuleInstance& module, const GradientSpec& spec,
                                  std::vector<Value>& args, Device& cpu, SourceLoc callSite, std::string& why);
  CompileOptions& options() { return options_; }
  // The version of `fn` compiled last (null when none).
  const ir::Function* latest(const ir::Function& fn) const;
  // One line per compiled version: signature, compile time, memory plan,
  // and with `jitMillis` (the JIT's time for a fused node) the time its
  // fused kernels took to compile.
  void printStats(std::ostream& os, const std::function<double(const ir::Node&)>& jitMillis = {}) const;

 private:
  // A global the version bound to the function it held then; with
  // `attr`, the global is a module and the function its global `attr`.
  struct Binding {
    std::string name;
    const Object* function;
    std::string attr;
    // Without `attr`: the global's entry in the module that compiled the
    // version (entries are never removed), so a call checks it without
    // hashing the name.
    const Global* entry = nullptr;
    // `entry` is a global of an imported module that a copy of one of its
    // functions read (`name` is module.global).
    bool foreign = false;
    // `function` itself, which must still exist: once it is freed, another
    // object may be made at its address (`helper = None`, then a new def
    // of helper).
    std::weak_ptr<Object> alive;
    // Set: the global (of the compiling module, `entry`) held a value of
    // this type, which the version's loads of it assume (a tensor's dtype
    // and shape, or a number's, str's or None's kind); `function` is
    // unused. Rebinding a tensor or a number does not count as a rebind
    // (module.h), so such a binding is checked at every call.
    std::optional<ir::Type> type;
  };
  struct Version {
    std::vector<ir::Type> signature;
    std::unique_ptr<ir::Graph> graph;
    const ir::Function* fn;
    std::vector<Binding> bindings;
    double compileSeconds = 0;
    bool stale = false;  // a global it bound was rebound: never used again
    // The modules its bindings go through, with their rebind counts when
    // the bindings were last found current: while the counts stay, they
    // still are (Global).
    std::vector<std::pair<const ModuleInstance*, uint64_t>> checkedAt;
    bool typed = false;  // some binding has a type
  };
  // What a version is compiled for: the arguments' types and, for a
  // function that places work on devices (a with block, a copy), the
  // devices of its tensor arguments, so that its placement is static.
  struct Key {
    std::vector<ir::Type> types;
    std::vector<const Device*> devices;
    bool operator==(const Key& o) const { return types == o.types && devices == o.devices; }
  };
  struct SignatureHash {
    size_t operator()(const Key& key) const;
  };
  struct Entry {
    std::vector<Version> versions;
    // The version in use for each signature (stale ones are not indexed):
    // a call finds its version by hashing its signature, however many
    // versions exist.
    std::unordered_map<Key, size_t, SignatureHash> index;
    bool warned = false;
    int deviceAware = -1;  // whether fn places work on devices (-1: not looked yet)
    // The version the last call used when it was not per device
    // (SIZE_MAX: none), tried first.
    size_t last = SIZE_MAX;
  };
  void explain(const ir::Function& fn, const Entry& e, const std::vector<ir::Type>& sig, SourceLoc callSite,
               const std::string& rebound);
  struct GradientVersion {
    std::unique_ptr<ir::Graph> graph;
    const ir::Function* fn = nullptr;  // null: the tape differentiates it
    std::string why;
    std::vector<Binding> bindings;
    double compileSeconds = 0;
    std::string name;  // "grad of f(signature)", for --stats
  };
  void printGradientStats(std::ostream& os, const std::function<double(const ir::Node&)>& jitMillis) const;
  // An empty graph for a version of `fn` (strict types, fn's source).
  static std::unique_ptr<ir::Graph> versionGraph(const ir::Function& fn);
  // Runs the pass pipeline on a version's graph (with --print-ir-after).
  void optimise(ir::Graph& g);
  // Starts a version with a statement of each tensor parameter's device
  // (devices[i], null: none).
  static void seedParameterDevices(ir::Function& f, const std::vector<const Device*>& devices);
  std::vector<Binding> bindGlobals(ir::Function& copy, const ir::Function& original, ModuleInstance& module);
  // The loads in `copy` of the module's globals that hold a tensor on the
  // default device, a number, a str or None, and that neither the copy nor
  // any function stores, typed by what they hold (bindings with a type).
  // None once `original`'s versions went stale that often for a typed
  // global: a global whose type keeps changing is read as `any` instead
  // of recompiling at each change.
  std::vector<Binding> typeGlobals(ir::Function& copy, const ir::Function& original, ModuleInstance& module);
  // A version of `fn` went stale through a typed binding.
  void noteTypedStale(const ir::Function& fn) { ++typedStale_[&fn]; }
  // Why a binding of `bindings` is no longer current, for
  // --explain-recompile ("" when all are).
  static std::string staleBinding(const std::vector<Binding>& bindings, ModuleInstance& module);
  // Whether every typed binding of `bindings` is current.
  static bool typedBindingsCurrent(const std::vector<Binding>& bindings, ModuleInstance& module);
  // Whether global `b` of `module` still holds the function bound.
  static bool bindingCurrent(const Binding& b, ModuleInstance& module);
  // Whether every binding of `v` is current: at once when no module they go
  // through has counted a rebind since they were last checked.
  static bool bindingsCurrent(Version& v, ModuleInstance& module);
  // The version e's last call ran, where it is current for `count`
  // arguments, arg(i) the i-th (get()'s shortcut, currentVersion()).
  template <class Arg>
  static const ir::Function* lastCurrent(Entry& e, ModuleInstance& module, size_t count, Arg arg);
  // entries_[&fn], remembering the last one: recursion and a call in a
  // loop ask for the same function again (entries are never removed).
  Entry& entry(const ir::Function& fn) {
    if (&fn != lastFn_) {
      lastEntry_ = &entries_[&fn];
      lastFn_ = &fn;
    }
    return *lastEntry_;
  }

  Host& host_;
  passes::PassContext& passes_;
  CompileOptions options_;
  std::unordered_map<const ir::Function*, Entry> entries_;
  const ir::Function* lastFn_ = nullptr;
  Entry* lastEntry_ = nullptr;
  // By function, spec and argument signature (structures included).
  std::unordered_map<std::string, GradientVersion> gradients_;
  std::vector<std::unique_ptr<ir::Graph>> retiredGradients_;
  // By function: how many of its versions a typed global's new type made
  // stale (typeGlobals stops typing its globals at the limit).
  std::unordered_map<const ir::Function*, int> typedStale_;
  static constexpr int kTypedStaleLimit = 4;
};

}  // namespace nn::rt
