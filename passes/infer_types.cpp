// Type inference over the IR.
//
// Algorithm: one forward walk in program order applying each op's type rule
// (ir/type_rules.cpp). An `if` result takes the join of what its two blocks
// yield. A loop's carried values start with the types of their initial
// values; the body is walked and any carried value whose yielded type
// differs becomes `any`, and the walk repeats until nothing changes (at most
// twice more, as types only move to `any`).
//
// In a strict graph (graph mode) a mismatch a rule proves — shapes that
// cannot broadcast, a reshape to the wrong size, a tensor in one branch of
// an if and a number in the other — is a compile-time error at the op;
// otherwise the value becomes `any` and the op fails when it runs.
//
// Invariants: only Value types change; the graph's structure is untouched.
// Function parameters and captures keep their declared types (any until
// specialisation assigns argument types).
#include "ir/type_rules.h"
#include "passes/passes.h"
#include "support/diagnostics.h"

namespace nn::passes {
namespace {

class Inference {
 public:
  explicit Inference(bool strict) : strict_(strict) {}
  bool changed = false;

  void block(ir::Block& b) {
    for (const auto& n : b.nodes()) node(*n);
  }

 private:
  void set(ir::Value* v, ir::Type t) {
    if (v->type() != t) {
      v->setType(t);
      changed = true;
    }
  }

  static const ir::Node* yieldOf(const ir::Block& b) { return b.terminator(); }

  // A tensor in one branch and a number or string in the other cannot be
  // one static type: a compile-time error naming both branches. (None and
  // unknown types merge to `any`, e.g. a variable bound in one branch only.)
  static void checkBranchesAgree(const ir::Node& n, size_t i, const ir::Value* a, const ir::Value* b) {
    const ir::Type &ta = a->type(), &tb = b->type();
    auto concrete = [](const ir::Type& t) { return t.kind != ir::TypeKind::Any && t.kind != ir::TypeKind::None; };
    if (!concrete(ta) || !concrete(tb) || ta.isTensor() == tb.isTensor()) return;
    std::string name = n.result(i)->nameHint();
    auto where = [&](const ir::Value* v, const char* branch) {
      std::string s = v->type().str() + " from the " + branch + " branch";
      if (v->def() && v->def()->loc().line) s += " (line " + std::to_string(v->def()->loc().line) + ")";
      return s;
    };
    fail(n.loc(), "the branches of this if give " + (name.empty() ? std::string("a value") : "'" + name + "'") +
                      " different types: " + where(a, "then") + " and " + where(b, "else"));
  }

  void node(ir::Node& n) {
    if (n.op() == ir::Op::If) {
      block(*n.block(0));
      block(*n.block(1));
      const ir::Node* y0 = yieldOf(*n.block(0));
      const ir::Node* y1 = yieldOf(*n.block(1));
      for (size_t i = 0; i < n.numResults(); ++i) {
        if (strict_) checkBranchesAgree(n, i, y0->operand(i), y1->operand(i));
        set(n.result(i), ir::join(y0->operand(i)->type(), y1->operand(i)->type()));
      }
      return;
    }
    if (n.op() == ir::Op::Loop) {
      std::vector<ir::Type> carried;
      for (const ir::Value* v : n.operands()) carried.push_back(v->type());
      for (int round = 0; round < 3; ++round) {
        for (size_t k = 0; k < 2; ++k)
          for (size_t i = 0; i < carried.size(); ++i) set(n.block(k)->arg(i), carried[i]);
        block(*n.block(0));
        block(*n.block(1));
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
    for (size_t i = 0; i < n.numResults(); ++i) {
      try {
        set(n.result(i), ir::resultType(n, i));
      } catch (const NnError&) {
        if (strict_) throw;
        set(n.result(i), ir::Type::any());  // the op reports it when it runs
      }
    }
  }

  bool strict_;
};

}  // namespace

bool inferTypes(ir::Graph& g, PassContext&) {
  Inference inf(g.strictTypes());
  for (const auto& f : g.functions()) inf.block(*f->body());
  return inf.changed;
}

}  // namespace nn::passes
