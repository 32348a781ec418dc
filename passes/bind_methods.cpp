// bind-methods: `xs.append(x)` on a list, dict, str or tuple becomes one
// `call_method %xs, %x {name = "append"}` instead of a `getattr` that makes
// a bound-method object and a `call` of it.
//
// Why: the bound method lives for one call. Making it costs an allocation,
// a lookup by name and a reference to the receiver, then the call puts the
// receiver back in front of the arguments; CPython skips the same object
// with its LOAD_METHOD/CALL_METHOD pair. The interpreter runs a
// call_method by looking the name up in the receiver's method table and
// calling the method with the receiver as its first argument (a receiver
// of another kind at run time takes the getattr-then-call path, so the
// meaning is the same).
//
// Algorithm (linear): count every value's uses, and how many of them are
// as the callee of a `call` that does not also pass it as an argument.
// A `getattr` whose every use is such a call is fused when its receiver is
// typed list, dict, str or tuple, or is of unknown type and the name is a
// method of theirs that tensors lack (`xs.append` on a parameter, not
// `x.sort`): each of those calls becomes a call_method of the receiver
// (same arguments, keywords, location and results), and the getattr is
// removed. An `append` of one value to a list whose None nothing reads
// becomes the comprehension's `list_append` instead.
//
// Invariants: runs after the passes that look for a getattr and its call
// (builtin-ops turns a tensor's methods into ops, the compile cache binds
// a module's functions) and before order-effects, which orders the new
// nodes. A graph-mode version reruns the pipeline on a copy of this
// output, so a tensor's method is never fused: builtin-ops still finds it
// there once the version types the receiver. Receivers typed as anything
// else (a tensor, a module, a function) are left alone. The receiver is
// defined before the getattr, so it dominates every fused call.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/builtins.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

using ir::Node;
using ir::Op;
using ir::TypeKind;
using ir::Value;

// A getattr the pass may fuse with its calls: of a list, dict, str or
// tuple, or of a value of unknown type by a method name of theirs that no
// tensor has (a specialised version may find a tensor there; its methods
// must stay a getattr and a call for builtin-ops to make them ops).
bool bindable(const Node& get) {
  const ir::Type& t = get.operand(0)->type();
  if (ir::hasHostMethods(t)) return true;
  const std::string& name = get.strAttr("name");
  return t.kind == TypeKind::Any && ir::isHostMethodName(name) && !ir::methodOp(name) &&
         !ir::isTensorOwnMethod(name);
}

class MethodBinder {
 public:
  bool run(ir::Function& f) {
    count(*f.body());
    for (Node* get : gets_) {
      const Value* bound = get->result(0);
      if (uses_[bound] == 0 || uses_[bound] != calls_[bound]) continue;
      fused_.insert(get);
    }
    if (fused_.empty()) return false;
    rewrite(*f.body());
    return true;
  }

 private:
  // Whether `call` calls `v` and does not also pass it as an argument.
  static bool onlyCallee(const Node& call, const Value* v) {
    if (call.op() != Op::Call || call.operand(0) != v) return false;
    for (size_t i = 1; i < call.operands().size(); ++i)
      if (call.operand(i) == v) return false;
    return true;
  }

  void count(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      for (const Value* v : n->operands()) ++uses_[v];
      if (!n->operands().empty() && onlyCallee(*n, n->operand(0))) ++calls_[n->operand(0)];
      if (n->op() == Op::GetAttr && bindable(*n)) gets_.push_back(n.get());
      for (size_t k = 0; k < n->numBlocks(); ++k) count(*n->block(k));
    }
  }

  void rewrite(ir::Block& b) {
    std::vector<std::unique_ptr<Node>>& nodes = b.mutableNodes();
    size_t kept = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node& n = *nodes[i];
      for (size_t k = 0; k < n.numBlocks(); ++k) rewrite(*n.block(k));
      if (fused_.count(&n)) {
        // Kept alive until the pass ends: later calls still find their
        // receiver through it.
        removed_.push_back(std::move(nodes[i]));
        continue;
      }
      if (n.op() == Op::Call) {
        const Node* get = n.operand(0)->def();
        if (get && fused_.count(get))
          nodes[i] = appendsToList(n, *get) ? listAppend(n, *get, b) : callMethod(n, *get, b);
      }
      nodes[kept++] = std::move(nodes[i]);
    }
    nodes.resize(kept);
  }

  // `xs.append(v)` of a list, its None unused: the comprehension's own
  // list_append, which runs without a method lookup or an argument list.
  bool appendsToList(const Node& call, const Node& get) {
    return get.strAttr("name") == "append" && get.operand(0)->type().kind == TypeKind::List &&
           call.operands().size() == 2 && call.operand(1) != get.operand(0) && call.strListAttr("kw").empty() &&
           uses_[call.result(0)] == 0;
  }
  static std::unique_ptr<Node> listAppend(Node& call, const Node& get, ir::Block& b) {
    auto m = std::make_unique<Node>(Op::ListAppend, call.loc());
    m->addOperand(get.operand(0));
    m->addOperand(call.operand(1));
    m->setInlinedAt(call.inlinedAt());
    if (call.backward()) m->setBackward();
    m->setParent(&b);
    return m;
  }

  static std::unique_ptr<Node> callMethod(Node& call, const Node& get, ir::Block& b) {
    auto m = std::make_unique<Node>(Op::CallMethod, call.loc());
    m->addOperand(get.operand(0));
    for (size_t i = 1; i < call.operands().size(); ++i) m->addOperand(call.operand(i));
    m->setAttr("name", get.strAttr("name"));
    if (const ir::Attr* kw = call.attr("kw")) m->setAttr("kw", *kw);
    m->setInlinedAt(call.inlinedAt());
    if (call.backward()) m->setBackward();
    m->adoptResults(call);
    m->setParent(&b);
    return m;
  }

  std::unordered_map<const Value*, size_t> uses_, calls_;
  std::vector<Node*> gets_;
  std::unordered_set<const Node*> fused_;
  std::vector<std::unique_ptr<Node>> removed_;
};

}  // namespace

bool bindMethods(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [](ir::Function& f) { return MethodBinder().run(f); });
}

}  // namespace nn::passes
