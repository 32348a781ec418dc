// The backward functions of eager tapes (runtime/tape.h), kept by the form
// of their trace. The steps of a training loop record the same ops, at the
// same lines, on values of the same types, so the backward built for the
// first step — reverse mode's sweep (passes/reverse_mode.h), numbered for
// the interpreter — runs every later one: only the values passed to it
// differ, and they are its arguments (the trace holds no values, only
// their types). One cache per interpreter; at most kMaxEntries backwards
// of kMaxKeyBytes of forms in all (the backwards' sizes grow with their
// forms'), all dropped when a new one would pass either (a program whose
// shapes keep changing builds each step's anew, as without the cache).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace nn::rt {

class BackwardCache {
 public:
  struct Entry {
    std::unique_ptr<ir::Graph> graph;  // holds `backward`
    ir::Function* backward = nullptr;  // backward(seed, primals...) -> tuple of the gradients it has
    std::vector<uint32_t> primals;     // the trace values passed after the seed, by TraceForm index
    std::vector<bool> adjoints;        // which watched values have a gradient (the others are zeros)
  };

  // A trace's form: `site` (the differentiating call, the backward's own
  // location), how many of its arguments are watched (its parameters,
  // before its captures) and their types, then each node's op, location,
  // attributes, operands (by index) and result types, then the output's
  // index. `values` lists the trace's values by index: the arguments,
  // then each node's results, in order; `index` is its inverse.
  struct TraceForm {
    std::string key;
    std::vector<const ir::Value*> values;
    std::unordered_map<const ir::Value*, uint32_t> index;
  };
  static TraceForm formOf(const ir::Function& trace, const ir::Value* output, SourceLoc site);

  // The entry for that form, or null; a hit keeps it alive for its caller
  // even if a later add() drops it.
  std::shared_ptr<const Entry> find(const std::string& key) const;
  void add(const std::string& key, std::shared_ptr<const Entry> entry);
  size_t size() const { return entries_.size(); }

 private:
  static constexpr size_t kMaxEntries = 64, kMaxKeyBytes = size_t(8) << 20;
  std::unordered_map<std::string, std::shared_ptr<const Entry>> entries_;
  size_t keyBytes_ = 0;
};

}  // namespace nn::rt
