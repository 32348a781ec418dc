// Type inference over the IR.
//
// Algorithm: one forward walk in program order applying each op's type rule
// (ir/type_rules.cpp). An `if` result takes the join of what its two blocks
// yield. A loop's carried values start with the types of their initial
// values; the body is walked and any carried value whose yielded type
// differs becomes `any`, and the walk repeats until nothing changes (at most
// twice more, as types only move to `any`).
//
// A mismatch a rule proves — shapes that cannot broadcast, a reshape to the
// wrong size — is a compile-time error in a strict graph (graph mode) only
// where the op certainly runs once the function is called: in the
// function's own body block or a loop's condition, never inside an `if`
// branch (code after an early return is lowered into one) or a loop body
// (which may run zero times), nor after an `if` or loop that holds a
// `raise` (a check that may end the call first, as eager mode would see
// it do). That error is reported before the function
// runs, the one intended difference from eager mode (language.md §6).
// Everywhere else, and in graphs that are not strict, the value becomes
// `any`, inference goes on past it, and the op raises the same located
// error if and when it runs (with PassContext::failIfReached set, a note
// says so at compile time). A value that is a tensor in one branch of an
// `if` and a number in the other is `any`, as in eager mode.
//
// A recursive call in a strict graph (a compiled version) whose arguments
// have the types of the function's own parameters, all numbers, bools,
// strs or None, runs this same version (the cache's key is those types),
// so its result has the version's return type. When that is a number or a
// bool, the call's result gets it: inference assumes each such call
// returns int (then float, then bool) and keeps the first assumption under
// which the function returns that type — sound by induction on the depth
// of the recursion: the deepest call that returns does so without a
// recursive call, and each call above returns the type its recursive calls
// are assumed to. (A call that never returns returns no value.) The trials
// report no errors; the pass that keeps an assumption does.
//
// Invariants: only Value types change; the graph's structure is untouched.
// Function parameters and captures keep their declared types (any until
// specialisation assigns argument types).
#include <optional>
#include <vector>

#include "ir/annotation_check.h"
#include "ir/type_rules.h"
#include "passes/passes.h"
#include "support/diagnostics.h"

namespace nn::passes {
namespace {

class Inference {
 public:
  Inference(bool strict, const PassContext& ctx) : strict_(strict), ctx_(ctx) {}

  // `certain`: every node of b runs whenever its function is called. Past
  // an `if` or loop holding a `raise` (a check of the arguments, inlined
  // or not) the call may have ended, as after an early return; past a
  // `raise` itself (such an `if` folded on constant shapes) it has.
  void block(ir::Block& b, bool certain) {
    for (const auto& n : b.nodes()) {
      node(*n, certain);
      if (certain && (n->op() == ir::Op::Raise || holdsRaise(*n))) certain = false;
    }
  }

  void function(ir::Function& f) {
    function_ = &f;
    selfResult_.reset();
    if (!strict_ || !hasSelfCall(*f.body())) {
      block(*f.body(), true);
      return;
    }
    // The trials may change types that end as they were: `changed` says
    // whether the kept types differ from those before.
    bool before = changed;
    std::vector<ir::Type> start = typesIn(f);
    const ir::Value* returned = f.body()->terminator() ? f.body()->terminator()->operand(0) : nullptr;
    std::optional<ir::Type> kept;
    trial_ = true;
    for (ir::TypeKind k : {ir::TypeKind::Int, ir::TypeKind::Float, ir::TypeKind::Bool}) {
      selfResult_ = ir::Type{k};
      block(*f.body(), true);
      if (returned && returned->type() == *selfResult_) {
        kept = selfResult_;
        break;
      }
    }
    trial_ = false;
    selfResult_ = kept;
    block(*f.body(), true);  // the kept types, with their errors
    changed = before || typesIn(f) != start;
  }

  bool changed = false;

 private:
  void set(ir::Value* v, ir::Type t) {
    if (v->type() != t) {
      v->setType(t);
      changed = true;
    }
  }

  static const ir::Node* yieldOf(const ir::Block& b) { return b.terminator(); }
  static bool isSavedPlaceholder(const ir::Value* v) {
    return v->def() && v->def()->op() == ir::Op::Undef && v->def()->attr("saved");
  }

  void node(ir::Node& n, bool certain) {
    if (n.op() == ir::Op::If) {
      block(*n.block(0), false);
      block(*n.block(1), false);
      const ir::Node* y0 = yieldOf(*n.block(0));
      const ir::Node* y1 = yieldOf(*n.block(1));
      for (size_t i = 0; i < n.numResults(); ++i) {
        // A value the backward pass saved from one branch (the autodiff
        // pass) is read only where that branch ran: its type is that
        // branch's.
        const ir::Value* a = y0->operand(i);
        const ir::Value* b = y1->operand(i);
        if (isSavedPlaceholder(a)) set(n.result(i), b->type());
        else if (isSavedPlaceholder(b)) set(n.result(i), a->type());
        else set(n.result(i), ir::join(a->type(), b->type()));
      }
      return;
    }
    if (n.op() == ir::Op::Try) {
      // The body's errors are caught: none is certain to be reported.
      // The handler's values come from wherever the body failed.
      for (size_t i = 0; i < n.block(1)->numArgs(); ++i) set(n.block(1)->arg(i), ir::Type::any());
      block(*n.block(0), false);
      block(*n.block(1), false);
      const ir::Node* y0 = yieldOf(*n.block(0));
      const ir::Node* y1 = yieldOf(*n.block(1));
      for (size_t i = 0; i < n.numResults(); ++i)
        set(n.result(i), ir::join(y0->operand(i)->type(), y1->operand(i)->type()));
      return;
    }
    if (n.op() == ir::Op::Fused) {
      for (size_t i = 0; i < n.operands().size(); ++i) set(n.block(0)->arg(i), n.operand(i)->type());
      block(*n.block(0), certain);
      const ir::Node* y = yieldOf(*n.block(0));
      for (size_t i = 0; i < n.numResults(); ++i) set(n.result(i), y->operand(i)->type());
      return;
    }
    if (n.op() == ir::Op::Loop) {
      std::vector<ir::Type> carried;
      for (const ir::Value* v : n.operands()) carried.push_back(v->type());
      for (int round = 0; round < 3; ++round) {
        for (size_t k = 0; k < 2; ++k)
          for (size_t i = 0; i < carried.size(); ++i) set(n.block(k)->arg(i), carried[i]);
        // The condition runs at least once; the body perhaps never.
        block(*n.block(0), certain && round == 0);
        block(*n.block(1), false);
        const ir::Node* y = yieldOf(*n.block(1));
        bool stable = true;
        for (size_t i = 0; i < carried.size(); ++i) {
          ir::Type joined = ir::join(carried[i], y->operand(i)->type());
          if (joined != carried[i]) stable = false;
          carried[i] = joined;
        }
        if (stable) break;
      }
      for (size_t i = 0; i < n.numResults(); ++i) set(n.result(i), carried[i]);
      return;
    }
    if (n.op() == ir::Op::CheckArgs || n.op() == ir::Op::CheckResult) {
      ir::CallCheck c = ir::checkCall(n);
      if (c.verdict == ir::Verdict::Fail) {
        Diagnostic d;
        d.loc = n.loc();
        d.message = std::move(c.message);
        d.errorClass = ErrorClass::TypeError;
        d.notes.push_back({c.annotation->loc, "the annotation is " + c.annotation->str()});
        proven(NnError(std::move(d)), certain);
      }
      return;
    }
    if (selfResult_ && recursiveCall(n)) {
      set(n.result(0), *selfResult_);
      return;
    }
    for (size_t i = 0; i < n.numResults(); ++i) {
      try {
        set(n.result(i), ir::resultType(n, i));
      } catch (const NnError& e) {
        set(n.result(i), ir::Type::any());  // the op reports it if it runs
        proven(e, certain);
      }
    }
  }

  // A failure the operand types prove: an error now where the node
  // certainly runs, else the node raises it if it runs.
  void proven(const NnError& e, bool certain) {
    if (trial_) return;
    if (strict_ && certain) throw e;
    if (strict_ && ctx_.failIfReached) {
      Diagnostic note = e.diag();
      note.severity = Severity::Warning;
      note.message = "this line will fail if it is reached: " + note.message;
      note.callers.clear();
      ctx_.failIfReached(note);
    }
  }

  // A call of the running function with its own parameter types
  // (ir::callsItself), each the cache's whole key: the same version runs it.
  bool recursiveCall(const ir::Node& n) const {
    if (!ir::callsItself(n, *function_)) return false;
    const ir::Block& body = *function_->body();
    for (size_t i = 0; i < body.numArgs(); ++i)
      if (!keyedExactly(body.arg(i)->type())) return false;
    return true;
  }
  // A parameter type that is the whole of the cache's key for the values
  // it admits (a tensor's key also holds its device; `any` admits values
  // of other keys).
  static bool keyedExactly(const ir::Type& t) {
    return t.kind == ir::TypeKind::Int || t.kind == ir::TypeKind::Float || t.kind == ir::TypeKind::Bool ||
           t.kind == ir::TypeKind::Str || t.kind == ir::TypeKind::None;
  }
  static bool holdsRaise(const ir::Node& n) {
    for (size_t k = 0; k < n.numBlocks(); ++k)
      for (const auto& inner : n.block(k)->nodes())
        if (inner->op() == ir::Op::Raise || holdsRaise(*inner)) return true;
    return false;
  }
  static bool hasSelfCall(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      if (n->op() == ir::Op::SelfClosure) return true;
      for (size_t k = 0; k < n->numBlocks(); ++k)
        if (hasSelfCall(*n->block(k))) return true;
    }
    return false;
  }
  static void typesIn(const ir::Block& b, std::vector<ir::Type>& into) {
    for (size_t i = 0; i < b.numArgs(); ++i) into.push_back(b.arg(i)->type());
    for (const auto& n : b.nodes()) {
      for (size_t i = 0; i < n->numResults(); ++i) into.push_back(n->result(i)->type());
      for (size_t k = 0; k < n->numBlocks(); ++k) typesIn(*n->block(k), into);
    }
  }
  static std::vector<ir::Type> typesIn(const ir::Function& f) {
    std::vector<ir::Type> types;
    typesIn(*f.body(), types);
    return types;
  }

  bool strict_;
  const PassContext& ctx_;
  const ir::Function* function_ = nullptr;
  // The type assumed for recursiveCall results, if any.
  std::optional<ir::Type> selfResult_;
  bool trial_ = false;
};

}  // namespace

bool inferTypes(ir::Graph& g, PassContext& ctx) {
  Inference inf(g.strictTypes(), ctx);
  for (const auto& f : g.functions()) inf.function(*f);
  return inf.changed;
}

}  // namespace nn::passes
