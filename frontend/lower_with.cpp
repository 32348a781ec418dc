// Lowering of `with device(NAME) [as t]: body` (language.md §7): the
// block's operations run on the named device, and nothing about the block
// exists at run time.
//
//   - device(NAME) is called where the with statement is, so a device that
//     does not exist is an error at that line; `as t` binds its result (the
//     device's name).
//   - Every variable of the function that the body reads is bound, for the
//     block, to `place(v, NAME)`: a tensor is copied onto the device (itself
//     when it is there), anything else is itself. Globals and variables of
//     enclosing functions go through `place` where the block reads them.
//     What the block computes from these is then on the device, since an
//     operation runs where its operands are.
//   - Every call of a creation builtin (zeros, randn, tensor, ...) in the
//     block without a device= argument gets one.
//   - After the block, the variables it did not assign are bound to their
//     values from before it again; those it assigned keep the block's.
//
// Graph mode's place-devices pass turns the `place` nodes on tensors into
// `to` copies, visible in the IR, and drops the others. Since nothing runs
// when the block ends, a return, break or error inside it needs no
// cleanup. Functions defined in the block are not in it: their bodies run
// when they are called.
#include "frontend/lower_internal.h"
#include "ir/builtins.h"

namespace nn::frontend {

using namespace nn::ast;
using ir::Op;
using ir::Value;

namespace {

bool isBuiltin(const Value* v, std::string_view name) {
  const ir::Node* def = v->def();
  return def && def->op() == Op::Builtin && def->strAttr("name") == name;
}

}  // namespace

Value* Lowerer::placed(Value* v, SourceLoc loc) {
  if (withDevices_.empty()) return v;
  Value* p = emitValue(Op::Place, loc, {v, withDevices_.back()});
  p->setNameHint(v->nameHint());
  return p;
}

void Lowerer::addCreationDevice(const CallExpr& e, std::vector<Value*>& operands, std::vector<std::string>& kw) {
  if (withDevices_.empty()) return;
  const ir::Node* def = operands[0]->def();
  if (!def || def->op() != Op::Builtin) return;
  std::optional<Op> op = ir::functionOp(def->strAttr("name"));
  if (!op || !ir::hasTrait(*op, ir::Trait::CREATE)) return;
  for (const Keyword& k : e.keywords)
    if (k.name == "device" || k.name.empty()) return;  // given, or maybe inside **kwargs
  operands.push_back(withDevices_.back());
  kw.push_back("device");
}

void Lowerer::withStmt(const WithStmt& s, size_t item) {
  if (item == s.items.size()) {
    body(s.body, 0);
    return;
  }
  const Expr& e = *s.items[item];
  const auto* c = as<CallExpr>(&e);
  const auto* f = c ? as<NameExpr>(c->func.get()) : nullptr;
  // The builtin device, not a variable of that name.
  Value* callee = f && f->id == "device" ? expr(*c->func) : nullptr;
  if (!callee || !isBuiltin(callee, "device"))
    fail(e.loc, "'with' takes device(...) only: other context managers are not supported");
  if (c->args.size() != 1 || !c->keywords.empty() || as<StarredExpr>(c->args[0].get()))
    fail(e.loc, "device() takes one device name, as in with device(\"cpu:1\"):");
  Value* name = emitValue(Op::Call, e.loc, {callee, expr(*c->args[0])});
  if (const ExprPtr& target = s.asTargets[item]) {
    checkAssignable(*target);
    assign(*target, name);
  }
  // A literal name is a constant, which graph mode's placement reads; the
  // call's result is the same name known only when it runs.
  const auto* literal = as<StrExpr>(c->args[0].get());
  Value* device = literal ? constant(literal->value, e.loc) : name;

  std::set<std::string> reads, assigned;
  collectReads(s.body, reads);
  collectAssigned(s.body, assigned);
  withDevices_.push_back(device);
  Env before;
  for (const std::string& n : reads) {
    if (n[0] == '$' || !isSsaName(n)) continue;
    auto it = env_.find(n);
    if (it == env_.end()) continue;  // not bound yet: the body binds it, or reads it unbound
    before[n] = it->second;
    it->second = placed(it->second, e.loc);
  }
  withStmt(s, item + 1);
  withDevices_.pop_back();
  for (const auto& [n, v] : before)
    if (!assigned.count(n)) env_[n] = v;
}

}  // namespace nn::frontend
