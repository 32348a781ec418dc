// inline: calls of local functions whose body is known are replaced by
// the body.
//
// Algorithm: for each `call` whose callee is a `make_closure` of the same
// function (a nested def or a lambda) of positional parameters only (no
// `*args`, keyword-only or `**kwargs`), whose arguments bind every
// parameter (positional ones, then keywords by name, then the closure's
// defaults) without raising, and a callee that is not recursive (no
// `self_closure` anywhere in it), the callee's body is copied before the
// call with its parameters bound to the arguments (defaults from the
// make_closure's operands) and its captures bound to the captured values;
// uses of the call's result then use the copy of the returned value. An
// annotated callee's checks become nodes located at the call: check_args
// before the copy, check_result after it (dce removes those the types
// prove pass). One round per run: calls inside the inlined copies wait
// for the next run, which bounds growth.
//
// Graph mode's compile cache also presents calls of module-level functions
// this way (it binds a global that holds a plain function to a
// make_closure, and recompiles if the global is rebound).
//
// Invariants: the make_closure stays (dce removes it when unused); the
// inlined nodes keep their own source locations, so an error inside them
// points into the callee.
#include <algorithm>
#include <unordered_map>

#include "ir/clone.h"
#include "passes/passes.h"

namespace nn::passes {
namespace {

bool usesSelf(const ir::Block& b) {
  for (const auto& n : b.nodes()) {
    if (n->op() == ir::Op::SelfClosure) return true;
    for (size_t i = 0; i < n->numBlocks(); ++i)
      if (usesSelf(*n->block(i))) return true;
  }
  return false;
}

class Inliner {
 public:
  explicit Inliner(const ir::Graph& g) : graph_(g) {}
  std::unordered_map<const ir::Value*, ir::Value*> replaced;

  void block(ir::Block& b) {
    auto& nodes = b.mutableNodes();
    for (size_t i = 0; i < nodes.size(); ++i) {
      ir::Node& n = *nodes[i];
      ir::replaceOperands(n, replaced);
      for (size_t k = 0; k < n.numBlocks(); ++k) block(*n.block(k));
      std::vector<ir::Value*> args;
      const ir::Function* callee = inlinable(n, args);
      if (!callee) continue;
      size_t before = nodes.size();
      ir::Value* result = ir::inlineBody(*callee, b, i, args, n);
      if (!result) continue;
      size_t added = nodes.size() - before;
      ir::Node& call = *nodes[i + added];
      replaced[call.result(0)] = result;
      if (callee->annotated()) added += addChecks(*callee, b, i, added, args, result, call);
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i + added));
      i += added - 1;  // past the copy (its calls wait for the next run)
    }
  }

 private:
  // The callee of call `n` when it can be inlined, with `args` its
  // parameters' values (positional arguments, then keywords by name, then
  // defaults) and captures; null when the call would bind them otherwise
  // or raise (an unknown keyword, one given twice, a parameter missing).
  const ir::Function* inlinable(const ir::Node& n, std::vector<ir::Value*>& args) const {
    if (n.op() != ir::Op::Call) return nullptr;
    const ir::Node* mk = n.operand(0)->def();
    if (!mk || mk->op() != ir::Op::MakeClosure) return nullptr;
    const ir::Function* fn = graph_.function(mk->strAttr("func"));
    if (!fn || !fn->plainSignature() || usesSelf(*fn->body())) return nullptr;
    const std::vector<std::string>& kw = n.strListAttr("kw");
    if (kw.size() >= n.operands().size()) return nullptr;
    size_t nparams = fn->numParams(), nargs = n.operands().size() - 1, npositional = nargs - kw.size();
    size_t ndefaults = static_cast<size_t>(mk->intAttr("ndefaults"));
    size_t ncap = mk->operands().size() - ndefaults;
    if (ncap != fn->numCaptures() || npositional > nparams) return nullptr;
    std::vector<ir::Value*> bound(nparams, nullptr);
    for (size_t i = 0; i < npositional; ++i) bound[i] = n.operand(1 + i);
    const std::vector<std::string>& names = fn->paramNames();
    for (size_t k = 0; k < kw.size(); ++k) {
      auto at = std::find(names.begin(), names.end(), kw[k]);
      if (at == names.end() || bound[static_cast<size_t>(at - names.begin())]) return nullptr;
      bound[static_cast<size_t>(at - names.begin())] = n.operand(1 + npositional + k);
    }
    for (size_t i = 0; i < nparams; ++i) {
      if (bound[i]) continue;
      if (i < nparams - ndefaults) return nullptr;
      bound[i] = mk->operand(ncap + (i - (nparams - ndefaults)));
    }
    args = std::move(bound);
    for (size_t c = 0; c < ncap; ++c) args.push_back(mk->operand(c));
    return fn;
  }

  // The checks an annotated callee's call makes (runtime/annotations.h),
  // around its body inlined at [at, at + size): check_args before it,
  // check_result after it. Returns how many were added.
  static size_t addChecks(const ir::Function& fn, ir::Block& b, size_t at, size_t size,
                          const std::vector<ir::Value*>& args, ir::Value* result, const ir::Node& call) {
    std::vector<ir::Value*> params(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(fn.numParams()));
    auto add = [&](ir::Op op, size_t pos, std::vector<ir::Value*> operands) {
      auto check = std::make_unique<ir::Node>(op, call.loc());
      check->setParent(&b);
      for (ir::Value* v : operands) check->addOperand(v);
      check->setAttr("func", fn.name());
      check->setAttr("name", call.operand(0)->def()->strAttr("name"));
      check->setInlinedAt(call.inlinedAt());
      b.mutableNodes().insert(b.mutableNodes().begin() + static_cast<std::ptrdiff_t>(pos), std::move(check));
    };
    size_t added = 0;
    if (fn.returnAnnotation()) {
      std::vector<ir::Value*> operands{result};
      operands.insert(operands.end(), params.begin(), params.end());
      add(ir::Op::CheckResult, at + size, std::move(operands));
      ++added;
    }
    for (size_t i = 0; i < fn.numParams(); ++i)
      if (fn.paramAnnotation(i)) {
        add(ir::Op::CheckArgs, at, std::move(params));
        return added + 1;
      }
    return added;
  }

  const ir::Graph& graph_;
};

}  // namespace

bool inlineCalls(ir::Graph& g, PassContext&) {
  return rewriteFunctions(g, [&](ir::Function& f) {
    Inliner in(g);
    in.block(*f.body());
    return !in.replaced.empty();
  });
}

}  // namespace nn::passes
