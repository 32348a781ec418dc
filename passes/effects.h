// What passes may assume about a node: whether running it can be observed
// (an effect: output, module state, randomness, files, or a call that may
// do any of these) and whether it may raise. A node with neither can be
// removed, merged with an equal node, or moved; a node that may raise but
// has no effect can be merged with an equal one (the first raises first)
// but not removed or moved where it would run when it did not before.
#pragma once

#include <string>
#include <unordered_map>

#include "ir/builtins.h"
#include "ir/ir.h"

namespace nn::passes {

// True for EFFECT and RANDOM ops, calls of anything but a builtin without
// an effect (the op table's traits, builtins.def's effect classes), and
// if/loop nodes whose blocks contain such nodes.
bool hasEffect(const ir::Node& n);
// A node whose effect is observed relative to all other work, not only to
// other effects: reading the clock (time()), and if/loop nodes containing
// one. The executor must finish everything before it first and start
// nothing after it early, or a timing measures the wrong work.
bool isBarrier(const ir::Node& n);
// False only where the operand types prove the op cannot fail.
bool mayRaise(const ir::Node& n);
inline bool removable(const ir::Node& n) { return !hasEffect(n) && !mayRaise(n); }
// The predicates above with their answers for the nodes holding blocks kept
// (those answers depend on everything nested in them), so that a pass
// asking at every level of a deep nesting (an `elif` chain) stays linear.
// Valid while the nodes asked about and their blocks do not change.
class EffectMemo {
 public:
  bool hasEffect(const ir::Node& n);
  bool isBarrier(const ir::Node& n);
  bool mayRaise(const ir::Node& n);

 private:
  std::unordered_map<const ir::Node*, bool> effect_, barrier_, raise_;
};

// Whether a value of type t may be a function (or anything).
inline bool mayBeCallable(const ir::Type& t) { return t.kind == ir::TypeKind::Func || t.kind == ir::TypeKind::Any; }

// Whether a call of a builtin of effect class `effect` may call one of its
// arguments: any argument that `callable` admits for CallsArgs (map,
// filter, vjp), only the key= argument for CallsKey (min, max, sorted);
// other classes call nothing they are given.
template <class Callable>
bool callsAnArgument(const ir::Node& call, ir::Effect effect, Callable callable) {
  if (effect == ir::Effect::CallsKey) {
    const std::vector<std::string>& kw = call.strListAttr("kw");
    size_t first = call.operands().size() - kw.size();  // keyword values come last
    for (size_t i = 0; i < kw.size(); ++i)
      if (kw[i] == "key") return callable(call.operand(first + i));
    return false;
  }
  if (effect != ir::Effect::CallsArgs) return false;
  for (size_t i = 1; i < call.operands().size(); ++i)
    if (callable(call.operand(i))) return true;
  return false;
}

// Nodes that make a new mutable object each time they run (a list, a dict,
// a function object): not to be merged or run fewer times.
inline bool makesFreshObject(const ir::Node& n) {
  return n.op() == ir::Op::MakeList || n.op() == ir::Op::MakeDict || n.op() == ir::Op::MakeClosure;
}

}  // namespace nn::passes
