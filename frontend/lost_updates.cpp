// Lost-update detection (see lost_updates.h).
//
// Algorithm: a value is observed when something other than the structured
// control flow's plumbing reads it: any operand of an ordinary node (a
// call, a store, an arithmetic op, a return, a loop's initial values). A
// value an `if` block yields is observed when that `if`'s result is; a
// value a loop body yields is observed when the loop's result, or the
// carried argument of its condition or body block, is. A worklist
// propagates observation backwards through the yields until nothing
// changes. An update whose result is not observed is lost.
//
// In a script's main module (whose globals nothing outside the script can
// read) a top-level variable is a global, so a store_global observes its
// value only if a load of that name may read it: any load in another
// function, a load later in program order, or an earlier load in a loop
// around the store — unless the loop body sets the name unconditionally
// before that load (a for loop's target, set at the top of every
// iteration), so that `for p in params: p -= lr` is found at module level
// as inside a function.
//
// Invariants: only `lost_update` nodes are added, each right after its
// update, reading the update's result; nothing else changes. The analysis
// is conservative: every doubtful read counts as observing the value.
#include "frontend/lost_updates.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace nn::frontend {
namespace {

// Where the main module's globals are stored and loaded, in program order.
class GlobalAccesses {
 public:
  explicit GlobalAccesses(const ir::Graph& g) {
    for (const auto& f : g.functions()) walk(*f->body(), f->name() == "__main__");
  }

  // Whether a load may read what store `s` (in __main__) wrote.
  bool mayBeRead(const ir::Node* s) const {
    const std::string& name = s->strAttr("name");
    if (readElsewhere_.count(name)) return true;
    auto it = loads_.find(name);
    if (it == loads_.end()) return false;
    for (const ir::Node* load : it->second) {
      if (pos_.at(load) > pos_.at(s)) return true;
      for (const ir::Node* loop = enclosingLoop(s); loop; loop = enclosingLoop(loop))
        if (encloses(loop, load) && !setBefore(loop, load, name)) return true;
    }
    return false;
  }

 private:
  void walk(const ir::Block& b, bool main) {
    for (const auto& n : b.nodes()) {
      pos_[n.get()] = pos_.size();
      if (n->op() == ir::Op::LoadGlobal) {
        if (main) loads_[n->strAttr("name")].push_back(n.get());
        else readElsewhere_.insert(n->strAttr("name"));
      }
      for (size_t k = 0; k < n->numBlocks(); ++k) walk(*n->block(k), main);
    }
  }
  static const ir::Node* enclosingLoop(const ir::Node* n) {
    for (const ir::Node* p = n->parent()->parentNode(); p; p = p->parent()->parentNode())
      if (p->op() == ir::Op::Loop) return p;
    return nullptr;
  }
  static bool encloses(const ir::Node* outer, const ir::Node* n) {
    for (const ir::Node* p = n->parent()->parentNode(); p; p = p->parent()->parentNode())
      if (p == outer) return true;
    return false;
  }
  // Whether `loop`'s body stores `name` at its top level before the part
  // of the body that holds `load` (a load in the condition block is never
  // preceded so).
  bool setBefore(const ir::Node* loop, const ir::Node* load, const std::string& name) const {
    const ir::Node* top = load;
    while (top->parent()->parentNode() != loop) top = top->parent()->parentNode();
    if (top->parent() != loop->block(1)) return false;
    for (const auto& n : loop->block(1)->nodes()) {
      if (n.get() == top) return false;
      if (n->op() == ir::Op::StoreGlobal && n->strAttr("name") == name) return true;
    }
    return false;
  }

  std::unordered_map<const ir::Node*, size_t> pos_;
  std::unordered_map<std::string, std::vector<const ir::Node*>> loads_;
  std::unordered_set<std::string> readElsewhere_;
};

class Observation {
 public:
  Observation(ir::Graph& g, const std::unordered_set<const ir::Value*>& updated, bool privateGlobals)
      : updated_(updated) {
    if (privateGlobals) globals_.emplace(g);
    for (const auto& f : g.functions()) collect(*f->body());
    while (!work_.empty()) {
      const ir::Value* v = work_.back();
      work_.pop_back();
      auto it = feeds_.find(v);
      if (it == feeds_.end()) continue;
      for (const ir::Value* yielded : it->second) observe(yielded);
    }
  }
  bool observed(const ir::Value* v) const { return observed_.count(v) > 0; }

 private:
  void observe(const ir::Value* v) {
    if (observed_.insert(v).second) work_.push_back(v);
  }
  // `target` observed makes `yielded` observed.
  void feed(const ir::Value* target, const ir::Value* yielded) { feeds_[target].push_back(yielded); }

  void collect(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      for (size_t k = 0; k < n->numBlocks(); ++k) collect(*n->block(k));
      if (n->op() == ir::Op::If) {
        for (size_t k = 0; k < 2; ++k) {
          const ir::Node* y = n->block(k)->terminator();
          for (size_t i = 0; i < n->numResults(); ++i) feed(n->result(i), y->operand(i));
        }
      } else if (n->op() == ir::Op::Loop) {
        const ir::Node* y = n->block(1)->terminator();
        for (size_t i = 0; i < y->operands().size(); ++i) {
          if (i < n->numResults()) feed(n->result(i), y->operand(i));
          for (size_t k = 0; k < 2; ++k)
            if (i < n->block(k)->numArgs()) feed(n->block(k)->arg(i), y->operand(i));
        }
      }
      // A block's yield only passes values on; every other read observes.
      bool plumbing = n->op() == ir::Op::Yield && b.parentNode() &&
                      (b.parentNode()->op() == ir::Op::If || b.parentNode()->op() == ir::Op::Loop);
      // Only stores of an update's result need the (costlier) question.
      if (n->op() == ir::Op::StoreGlobal && globals_ && updated_.count(n->operand(0)) &&
          b.function()->name() == "__main__")
        plumbing = !globals_->mayBeRead(n.get());
      if (!plumbing)
        for (const ir::Value* v : n->operands()) observe(v);
    }
  }

  const std::unordered_set<const ir::Value*>& updated_;
  std::optional<GlobalAccesses> globals_;
  std::unordered_set<const ir::Value*> observed_;
  std::unordered_map<const ir::Value*, std::vector<const ir::Value*>> feeds_;
  std::vector<const ir::Value*> work_;
};

}  // namespace

void insertLostUpdateChecks(ir::Graph& g, const std::vector<ir::Node*>& updates, bool privateGlobals) {
  if (updates.empty()) return;  // most modules: no walk at all
  std::unordered_set<const ir::Value*> updated;
  for (const ir::Node* u : updates) updated.insert(u->result(0));
  Observation seen(g, updated, privateGlobals);
  for (ir::Node* u : updates) {
    if (seen.observed(u->result(0))) continue;
    ir::Block* b = u->parent();
    auto& nodes = b->mutableNodes();
    auto at = std::find_if(nodes.begin(), nodes.end(), [&](const auto& p) { return p.get() == u; });
    auto check = std::make_unique<ir::Node>(ir::Op::LostUpdate, u->loc());
    check->addOperand(u->result(0));
    check->setParent(b);
    nodes.insert(at + 1, std::move(check));
  }
}

}  // namespace nn::frontend
