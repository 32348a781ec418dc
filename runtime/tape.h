// Eager reverse mode: a tape of the ops a differentiated call runs.
//
// While `grad`/`value_and_grad` call their function, the interpreter's
// active tape (and any tape outside it) records every op whose operands
// include a value it tracks
// (the watched arguments and everything computed from them): the op, its
// attributes and the values it read, as a node of a straight-line IR trace.
// Control flow, calls and closures need nothing of their own: the trace
// holds the ops that actually ran. The gradient is then the trace's
// backward pass, built by the same rules and the same reverse sweep as
// graph mode's (passes/reverse_mode.h) and run by the interpreter — so
// while it runs, the tapes outside record the backward's ops in turn, and
// gradients of gradients (of gradients) work.
//
// Recorded values are held until the tape ends, which also keeps their
// buffers from being reused in place by later ops.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "runtime/backward_cache.h"
#include "runtime/module.h"
#include "runtime/value.h"

namespace nn::rt {

class Interpreter;

class Tape {
 public:
  // `outer`: the tape active when this one starts (null: none), which
  // learns that watched values come from the values they watch.
  Tape(Interpreter& interp, Tape* outer, SourceLoc loc);
  ~Tape();
  Tape* outer() const { return outer_; }
  // Forgets the tape outside once this one no longer records (a pullback
  // keeps its tape beyond the tape that was active when it was made).
  void detach() { outer_ = nullptr; }

  // Starts tracking `v`, a floating tensor: the returned value (the same
  // elements, its own identity) is what the function receives.
  Value watch(const Value& v);
  bool tracks(const Value& v) const;

  // Records a value op node that ran on `in` (n.operands().size() values)
  // and gave `out`, or a tensor op that ran on the parameters of its
  // signature, on this tape and every tape outside it that tracks one of
  // the operands.
  void recordNode(const ir::Node& n, const Value* const* in, const Value& out);
  void recordTensorOp(ir::Op op, SourceLoc loc, const std::vector<Value>& params, const Value& out);
  // An op without attributes that a builtin ran itself (sum's additions),
  // or an element taken out of a tensor (unpacking, iteration, split):
  // x[index].
  void recordOp(ir::Op op, SourceLoc loc, const std::vector<Value>& operands, const Value& out);

  // The gradients of `output` (a floating tensor, or a number) with
  // respect to the watched values, in watch order: zeros where none flows.
  // `seed` is the gradient of the final result with respect to output (of
  // output's shape; none: ones, for a scalar output). Runs the backward
  // pass on the interpreter; call it once this tape is no longer the active
  // one. `last`: the tape is not asked again, so the recorded values are
  // handed over to the backward pass and freed at their last use there.
  std::vector<Value> gradients(const Value& output, const Value& seed = Value::none(), bool last = true);

 private:
  // The trace value holding runtime value `v`: its node when tracked, a
  // make_list/make_tuple of its elements for a sequence holding tracked
  // tensors (concat([a, b])), else an argument of the trace.
  ir::Value* traced(const Value& v);
  bool tracksAny(const Value& v) const;
  ir::Node* append(ir::Op op, SourceLoc loc, const std::vector<Value>& operands, const Value& out);
  // The pieces split/chunk cut from x along `axis`, as x[..., a:b] each.
  void recordPieces(const Value& x, int64_t axis, const Value& pieces, SourceLoc loc);
  // The backward of this trace (of that form) for `output`, built.
  std::shared_ptr<const BackwardCache::Entry> buildBackward(const BackwardCache::TraceForm& form, const Value& output);
  // append() when this tape tracks one of the operands; else null.
  ir::Node* appendIfTracked(ir::Op op, SourceLoc loc, const std::vector<Value>& operands, const Value& out);

  Interpreter& interp_;
  Tape* outer_;
  SourceLoc loc_;
  ir::Graph graph_;
  ir::Function* trace_;
  ModuleInstance module_;
  std::vector<ir::Value*> watched_;
  std::unordered_map<const Object*, ir::Value*> tracked_;  // by tensor (or sequence) object
  std::unordered_map<const ir::Value*, Value> values_;     // runtime value of each trace value
};

}  // namespace nn::rt
