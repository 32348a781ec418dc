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

class ModuleInstance {
 public:
  ModuleInstance(std::string name, std::string path) : name_(std::move(name)), path_(std::move(path)) {}
  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }

  Value* findGlobal(const std::string& name) {
    auto it = globals_.find(name);
    return it == globals_.end() ? nullptr : &it->second;
  }
  void setGlobal(const std::string& name, Value v) { globals_[name] = std::move(v); }
  bool eraseGlobal(const std::string& name) { return globals_.erase(name) > 0; }
  const std::unordered_map<std::string, Value>& globals() const { return globals_; }

  // Keeps a graph alive for as long as the module lives.
  const ir::Graph* addGraph(std::unique_ptr<ir::Graph> g) {
    graphs_.push_back(std::move(g));
    return graphs_.back().get();
  }
  const std::vector<std::unique_ptr<ir::Graph>>& graphs() const { return graphs_; }

 private:
  std::string name_;
  std::string path_;
  std::unordered_map<std::string, Value> globals_;
  std::vector<std::unique_ptr<ir::Graph>> graphs_;
};

}  // namespace nn::rt
