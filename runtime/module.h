// A loaded module at run time: its globals and the IR graphs that define its
// functions (a REPL session keeps adding graphs to one module). Modules are
// owned by the interpreter state and outlive every function value that
// refers to them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "runtime/value.h"

namespace nn::rt {

class ModuleInstance;

// One global name's entry. An entry is never removed (deleting the name
// leaves it unbound), so a load_global or store_global node may keep a
// pointer to it for the life of the module: the lookup by name happens on a
// node's first run only.
//
// Every write goes through set() or unbind(), which count, in the owning
// module's rebinds(), each write that may change what a compiled version
// bound (compile_cache.h): one that replaces a function, a builtin or a
// module. A version checked against its bindings at one count is current
// while the count stays (a top-level loop storing numbers leaves it).
class Global {
 public:
  explicit Global(ModuleInstance* owner) : owner_(owner) {}
  const ModuleInstance* owner() const { return owner_; }
  const Value& value() const { return value_; }
  bool bound() const { return bound_; }
  // A function of the module (not its top-level code) stores this name
  // (`global NAME` with an assignment or a del), so it may be rebound while
  // any of the module's functions runs: no compiled version binds it
  // (compile_cache.h). Set when the graph with that function is added,
  // before any of it runs.
  bool storedByFunction() const { return storedByFunction_; }

  inline void set(Value v);
  inline void unbind();
  inline void markStoredByFunction();

 private:
  inline void noteRebind();

  ModuleInstance* owner_;
  Value value_;
  bool bound_ = false;
  bool storedByFunction_ = false;
};

class ModuleInstance {
 public:
  ModuleInstance(std::string name, std::string path) : name_(std::move(name)), path_(std::move(path)) {}
  ModuleInstance(const ModuleInstance&) = delete;
  ModuleInstance& operator=(const ModuleInstance&) = delete;
  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }

  // The bound global `name`, or null.
  const Value* findGlobal(const std::string& name) const {
    auto it = globals_.find(name);
    return it == globals_.end() || !it->second.bound() ? nullptr : &it->second.value();
  }
  // The entry of `name`, bound or not; null if the module has none.
  Global* findEntry(const std::string& name) {
    auto it = globals_.find(name);
    return it == globals_.end() ? nullptr : &it->second;
  }
  // The entry of `name`, made unbound if the module has none.
  Global& entry(const std::string& name) {
    auto it = globals_.try_emplace(name, this).first;
    return it->second;
  }
  void setGlobal(const std::string& name, Value v) { entry(name).set(std::move(v)); }
  // Unbinds `name`; false when it was not bound.
  bool eraseGlobal(const std::string& name) {
    auto it = globals_.find(name);
    if (it == globals_.end() || !it->second.bound()) return false;
    it->second.unbind();
    return true;
  }
  // The bound globals' names.
  std::vector<std::string> globalNames() const {
    std::vector<std::string> names;
    for (const auto& [name, g] : globals_)
      if (g.bound()) names.push_back(name);
    return names;
  }

  // Keeps a graph alive for as long as the module lives, and marks the
  // globals its functions store (Global::storedByFunction).
  const ir::Graph* addGraph(std::unique_ptr<ir::Graph> g);
  const std::vector<std::unique_ptr<ir::Graph>>& graphs() const { return graphs_; }

  // How many writes of this module's globals may have changed a compiled
  // version's bindings (Global). Atomic because pool threads running one
  // block's nodes may store globals while another reads the count.
  uint64_t rebinds() const { return rebinds_.load(std::memory_order_relaxed); }

 private:
  friend class Global;
  std::atomic<uint64_t> rebinds_{0};
  std::string name_;
  std::string path_;
  // Node-based: an entry's address is stable while the map grows.
  std::unordered_map<std::string, Global> globals_;
  std::vector<std::unique_ptr<ir::Graph>> graphs_;
};

// A write that replaces a function, a builtin or a module (a binding's
// target, or the module an attribute binding goes through) counts: it may
// stale a version. Numbers, strs and tensors over each other do not.
void Global::noteRebind() {
  if (bound_ && (value_.is(Kind::Function) || value_.is(Kind::Builtin) || value_.is(Kind::Module)))
    owner_->rebinds_.fetch_add(1, std::memory_order_relaxed);
}

void Global::set(Value v) {
  noteRebind();
  value_ = std::move(v);
  bound_ = true;
}

void Global::unbind() {
  noteRebind();
  value_ = Value();
  bound_ = false;
}

void Global::markStoredByFunction() {
  if (!storedByFunction_) owner_->rebinds_.fetch_add(1, std::memory_order_relaxed);
  storedByFunction_ = true;
}

}  // namespace nn::rt
