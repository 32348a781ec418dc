// A loaded module at run time: its globals and the IR graphs that define its
// functions (a REPL session keeps adding graphs to one module). Modules are
// owned by the interpreter state and outlive every function value that
// refers to them.
#pragma once

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
struct Global {
  const ModuleInstance* owner;
  Value value;
  bool bound = false;
  // A function of the module (not its top-level code) stores this name
  // (`global NAME` with an assignment or a del), so it may be rebound while
  // any of the module's functions runs: no compiled version binds it
  // (compile_cache.h). Set when the graph with that function is added,
  // before any of it runs.
  bool storedByFunction = false;
};

class ModuleInstance {
 public:
  ModuleInstance(std::string name, std::string path) : name_(std::move(name)), path_(std::move(path)) {}
  ModuleInstance(const ModuleInstance&) = delete;
  ModuleInstance& operator=(const ModuleInstance&) = delete;
  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }

  // The bound global `name`, or null.
  Value* findGlobal(const std::string& name) {
    auto it = globals_.find(name);
    return it == globals_.end() || !it->second.bound ? nullptr : &it->second.value;
  }
  // The entry of `name`, bound or not; null if the module has none.
  Global* findEntry(const std::string& name) {
    auto it = globals_.find(name);
    return it == globals_.end() ? nullptr : &it->second;
  }
  // The entry of `name`, made unbound if the module has none.
  Global& entry(const std::string& name) {
    auto it = globals_.try_emplace(name, Global{this, Value(), false}).first;
    return it->second;
  }
  void setGlobal(const std::string& name, Value v) {
    Global& g = entry(name);
    g.value = std::move(v);
    g.bound = true;
  }
  // Unbinds `name`; false when it was not bound.
  bool eraseGlobal(const std::string& name) {
    auto it = globals_.find(name);
    if (it == globals_.end() || !it->second.bound) return false;
    it->second.value = Value();
    it->second.bound = false;
    return true;
  }
  // The bound globals' names.
  std::vector<std::string> globalNames() const {
    std::vector<std::string> names;
    for (const auto& [name, g] : globals_)
      if (g.bound) names.push_back(name);
    return names;
  }

  // Keeps a graph alive for as long as the module lives, and marks the
  // globals its functions store (Global::storedByFunction).
  const ir::Graph* addGraph(std::unique_ptr<ir::Graph> g);
  const std::vector<std::unique_ptr<ir::Graph>>& graphs() const { return graphs_; }

 private:
  std::string name_;
  std::string path_;
  // Node-based: an entry's address is stable while the map grows.
  std::unordered_map<std::string, Global> globals_;
  std::vector<std::unique_ptr<ir::Graph>> graphs_;
};

}  // namespace nn::rt
