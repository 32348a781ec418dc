// Lowering of statements to IR, including the structured control flow
// helpers: `if` with merged variables, loops with carried variables, and the
// flag-based lowering of break/continue/return (see lower_internal.h).
#include <algorithm>

#include "frontend/lost_updates.h"
#include "frontend/lower_internal.h"
#include "ir/text.h"

namespace nn::frontend {

using namespace nn::ast;
using ir::Op;
using ir::Value;

Lowerer::Lowerer(const SourceManager& sm, const LowerOptions& options, ir::Graph& g)
    : sm_(sm), options_(options), g_(g) {}

ir::Node* Lowerer::emit(Op op, SourceLoc loc, std::vector<Value*> operands, int results) {
  if (results < 0) results = std::max(0, ir::opInfo(op).numResults);
  return ir::build(cur_, op, loc, std::move(operands), static_cast<size_t>(results));
}

Value* Lowerer::constant(ir::Attr value, SourceLoc loc) {
  ir::Node* n = emit(Op::Const, loc, {});
  ir::TypeKind k = ir::TypeKind::None;
  if (std::holds_alternative<int64_t>(value)) k = ir::TypeKind::Int;
  if (std::holds_alternative<double>(value)) k = ir::TypeKind::Float;
  if (std::holds_alternative<bool>(value)) k = ir::TypeKind::Bool;
  if (std::holds_alternative<std::string>(value)) k = ir::TypeKind::Str;
  n->setAttr("value", std::move(value));
  n->result(0)->setType(ir::Type{k});
  return n->result(0);
}

Value* Lowerer::builtin(const std::string& name, SourceLoc loc) {
  ir::Node* n = emit(Op::Builtin, loc, {});
  n->setAttr("name", name);
  return n->result(0);
}

Value* Lowerer::undef(const std::string& name, SourceLoc loc) {
  ir::Node* n = emit(Op::Undef, loc, {});
  n->setAttr("name", name);
  return n->result(0);
}

void Lowerer::module(const Module& m) {
  moduleGlobals_ = options_.knownGlobals;
  collectAssigned(m.body, moduleGlobals_);
  collectGlobalDecls(m.body, moduleGlobals_);
  SourceLoc loc{m.file, 1, 1, 1, 1};
  ir::Function* main = g_.addFunction("__main__", loc);
  functionNames_.insert("__main__");
  FuncCtx ctx;
  ctx.fn = main;
  ctx.isModule = true;
  fctx_ = &ctx;
  cur_ = main->body();
  body(m.body, 0);
  emit(Op::Return, loc, {none(loc)}, 0);
  if (options_.lostUpdateWarnings) insertLostUpdateChecks(g_, updates_, options_.mainScript);
}

void Lowerer::body(const Body& stmts, size_t from) {
  for (size_t i = from; i < stmts.size(); ++i) {
    const Stmt& s = *stmts[i];
    stmt(s);
    // Code after an unconditional jump never runs.
    if (s.kind == StmtKind::Return || s.kind == StmtKind::Break || s.kind == StmtKind::Continue ||
        s.kind == StmtKind::Raise)
      return;
    Jumps j = jumpsOf(s, &jumps_);
    if (j.any() && i + 1 < stmts.size()) {
      // The rest of the block runs only if no flag was set.
      Value* stop = flagsSet(j, s.loc);
      ifMerge(stop, s.loc, [] { return nullptr; },
              [&, i]() -> Value* {
                body(stmts, i + 1);
                return nullptr;
              });
      return;
    }
  }
}

Value* Lowerer::flagsSet(const Jumps& j, SourceLoc loc) {
  Value* acc = nullptr;
  auto add = [&](const char* name, bool used) {
    if (!used || !env_.count(name)) return;
    acc = acc ? emitValue(Op::BitOr, loc, {acc, env_[name]}) : env_[name];
  };
  add("$ret", j.ret);
  add("$brk", j.brk);
  add("$cont", j.cont);
  return acc ? acc : constant(false, loc);
}

void Lowerer::stmt(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Expr: {
      Value* v = expr(*static_cast<const ExprStmt&>(s).value);
      if (options_.echoExpressions && fctx_->isModule && fctx_->loopDepth == 0)
        emit(Op::Echo, s.loc, {v}, 0);
      break;
    }
    case StmtKind::Assign: {
      const auto& a = static_cast<const AssignStmt&>(s);
      for (const auto& t : a.targets) checkAssignable(*t);
      // As in Python, a variable's annotation is not checked against the
      // values it holds (a function's are, at each call); it must still be
      // one nn can read.
      if (a.annotation) annotationOf(*a.annotation);
      if (!a.value) break;
      Value* v = expr(*a.value);
      for (const auto& t : a.targets) assign(*t, v);
      break;
    }
    case StmtKind::AugAssign: augAssign(static_cast<const AugAssignStmt&>(s)); break;
    case StmtKind::If: ifStmt(static_cast<const IfStmt&>(s)); break;
    case StmtKind::While: whileStmt(static_cast<const WhileStmt&>(s)); break;
    case StmtKind::For:
      checkAssignable(*static_cast<const ForStmt&>(s).target);
      forStmt(static_cast<const ForStmt&>(s));
      break;
    case StmtKind::FuncDef: funcDef(static_cast<const FuncDefStmt&>(s)); break;
    case StmtKind::Return: returnStmt(static_cast<const ReturnStmt&>(s)); break;
    case StmtKind::Pass: break;
    case StmtKind::Break:
      if (fctx_->loopDepth == 0) fail(s.loc, "'break' outside loop");
      env_["$brk"] = constant(true, s.loc);
      break;
    case StmtKind::Continue:
      if (fctx_->loopDepth == 0) fail(s.loc, "'continue' not properly in loop");
      env_["$cont"] = constant(true, s.loc);
      break;
    case StmtKind::Global: {
      if (fctx_->isModule) break;  // `global` at module level is a no-op, as in Python
      for (const std::string& name : static_cast<const GlobalStmt&>(s).names) {
        if (usedBefore(fctx_->firstWrite, name, s.loc))
          fail(s.loc, "name '" + name + "' is assigned to before global declaration");
        if (usedBefore(fctx_->firstRead, name, s.loc))
          fail(s.loc, "name '" + name + "' is used prior to global declaration");
      }
      break;
    }
    case StmtKind::Import:
    case StmtKind::ImportFrom: importStmt(s); break;
    case StmtKind::Assert: assertStmt(static_cast<const AssertStmt&>(s)); break;
    case StmtKind::Del: del(*static_cast<const DelStmt&>(s).target); break;
    case StmtKind::Raise: {
      const auto& r = static_cast<const RaiseStmt&>(s);
      std::vector<Value*> ops;
      if (r.exc) ops.push_back(expr(*r.exc));
      else if (!fctx_->handling.empty()) ops.push_back(fctx_->handling.back());  // raise again
      emit(Op::Raise, s.loc, ops, 0);
      break;
    }
    case StmtKind::Try: tryStmt(static_cast<const TryStmt&>(s)); break;
    case StmtKind::With: withStmt(static_cast<const WithStmt&>(s), 0); break;
    case StmtKind::Unsupported:
      fail(s.loc, static_cast<const UnsupportedStmt&>(s).what + " statements are not supported");
  }
}

void Lowerer::returnStmt(const ReturnStmt& s) {
  if (fctx_->isModule) fail(s.loc, "'return' outside function");
  Value* v = s.value ? expr(*s.value) : none(s.loc);
  env_["$retval"] = v;
  if (fctx_->hasNestedReturn) env_["$ret"] = constant(true, s.loc);
  else fctx_->returnLoc = s.value ? s.value->loc : s.loc;
}

// Rejects targets that cannot be assigned before anything is evaluated,
// with Python's wording.
void Lowerer::checkAssignable(const Expr& target) {
  switch (target.kind) {
    case ExprKind::Name:
    case ExprKind::Subscript: return;
    case ExprKind::Tuple:
    case ExprKind::List: {
      const auto& elts = target.kind == ExprKind::Tuple ? static_cast<const TupleExpr&>(target).elts
                                                        : static_cast<const ListExpr&>(target).elts;
      const Expr* starred = nullptr;
      for (const auto& e : elts) {
        if (const auto* s = as<StarredExpr>(e.get())) {
          if (starred) fail(e->loc, "multiple starred expressions in assignment");
          starred = e.get();
          checkAssignable(*s->value);
        } else {
          checkAssignable(*e);
        }
      }
      return;
    }
    case ExprKind::Starred: fail(target.loc, "starred assignment target must be in a list or tuple");
    case ExprKind::Attribute: fail(target.loc, "assignment to an attribute is not supported");
    case ExprKind::Int: case ExprKind::Float: case ExprKind::Str: case ExprKind::FStr:
    case ExprKind::Bool: case ExprKind::None: case ExprKind::Ellipsis:
      fail(target.loc, "cannot assign to literal");
    case ExprKind::Call: fail(target.loc, "cannot assign to function call");
    default: fail(target.loc, "cannot assign to expression");
  }
}

// target = value, recursively for tuples/lists and subscripts.
void Lowerer::assign(const Expr& target, Value* value) {
  if (auto* n = as<NameExpr>(&target)) {
    writeName(n->id, value, n->loc);
    return;
  }
  const std::vector<ExprPtr>* elts = nullptr;
  if (auto* t = as<TupleExpr>(&target)) elts = &t->elts;
  if (auto* l = as<ListExpr>(&target)) elts = &l->elts;
  if (elts) {
    // `first, *rest = xs`: the starred target takes a list of the rest.
    ir::Node* u = emit(Op::Unpack, target.loc, {value}, elts->size());
    u->setAttr("n", static_cast<int64_t>(elts->size()));
    for (size_t i = 0; i < elts->size(); ++i) {
      const Expr& e = *(*elts)[i];
      if (const auto* s = as<StarredExpr>(&e)) {
        u->setAttr("star", static_cast<int64_t>(i));
        u->result(i)->setType(ir::Type{ir::TypeKind::List});
        assign(*s->value, u->result(i));
      } else {
        assign(e, placed(u->result(i), e.loc));
      }
    }
    return;
  }
  if (auto* sub = as<SubscriptExpr>(&target)) {
    // Functional update: the container is rebound to its updated value.
    std::vector<WriteBack> outer;
    Value* container = targetContainer(*sub->value, outer);
    Value* index = subscriptIndex(*sub->index);
    Value* updated = emitValue(Op::SetItem, target.loc, {container, index, value});
    updates_.push_back(updated->def());
    rebindContainer(*sub->value, outer, updated);
    return;
  }
  if (target.kind == ExprKind::Attribute) fail(target.loc, "assignment to an attribute is not supported");
  fail(target.loc, "cannot assign to this expression");
}

// del: a name becomes unbound (reading it again is a NameError), an item
// leaves its list or dict (the container rebound as for `c[i] = v`);
// several targets are deleted left to right.
void Lowerer::del(const Expr& target) {
  switch (target.kind) {
    case ExprKind::Name: {
      const auto& n = static_cast<const NameExpr&>(target);
      // A name no scope binds is an error here; a global that is not bound
      // when the del runs, there (its store finds nothing to erase).
      readName(n.id, n.loc);
      writeName(n.id, undef(n.id, n.loc), n.loc);
      return;
    }
    case ExprKind::Tuple:
      for (const auto& e : static_cast<const TupleExpr&>(target).elts) del(*e);
      return;
    case ExprKind::List:
      for (const auto& e : static_cast<const ListExpr&>(target).elts) del(*e);
      return;
    case ExprKind::Subscript: {
      const auto& sub = static_cast<const SubscriptExpr&>(target);
      std::vector<WriteBack> outer;
      Value* container = targetContainer(*sub.value, outer);
      Value* updated = emitValue(Op::DelItem, target.loc, {container, subscriptIndex(*sub.index)});
      rebindContainer(*sub.value, outer, updated);
      return;
    }
    case ExprKind::Attribute: fail(target.loc, "deleting an attribute is not supported");
    case ExprKind::Call: fail(target.loc, "cannot delete function call");
    case ExprKind::Int: case ExprKind::Float: case ExprKind::Str: case ExprKind::FStr:
    case ExprKind::Bool: case ExprKind::None: case ExprKind::Ellipsis:
      fail(target.loc, "cannot delete literal");
    default: fail(target.loc, "cannot delete expression");
  }
}

// The container of a subscript target, each of its parts evaluated once as
// Python does (`xs[f()][0] = v` calls f once): for `a[i]` the value of a[i],
// with (a[i], the value of a, that of i) appended to `outer` so that the
// updated item can be written back; for any other expression its value.
Value* Lowerer::targetContainer(const Expr& e, std::vector<WriteBack>& outer) {
  auto* sub = as<SubscriptExpr>(&e);
  if (!sub) return expr(e);
  Value* base = targetContainer(*sub->value, outer);
  Value* index = subscriptIndex(*sub->index);
  outer.push_back({sub, base, index});
  return placed(emitValue(Op::GetItem, e.loc, {base, index}), e.loc);
}

// After `c[i] = v` the container expression is rebound to the updated value
// (functional update for tensors; the same object for lists and dicts): an
// item `a[k]` (the last of `outer`) is written back into a, and so on out
// to a name. A write-back leaves a list's, tuple's or dict's item that is
// still the same object alone (runtime/scalar_ops.h, writeBackItem), so a
// list inside a tuple can change as in Python. As in Python, a subscript
// assignment does not make a name local: a name that is not a local or
// declared global here is updated in place only.
void Lowerer::rebindContainer(const Expr& container, const std::vector<WriteBack>& outer, Value* updated) {
  const Expr* root = &container;
  for (size_t k = outer.size(); k-- > 0;) {
    const WriteBack& w = outer[k];
    ir::Node* n = emit(Op::SetItem, w.item->loc, {w.container, w.index, updated});
    n->setAttr("write_back", true);
    updated = n->result(0);
    updates_.push_back(n);
    root = w.item->value.get();
  }
  if (auto* n = as<NameExpr>(root))
    if (isSsaName(n->id) || fctx_->isModule || fctx_->globalDecls.count(n->id)) writeName(n->id, updated, n->loc);
}

static Op binOpCode(BinOp op) {
  switch (op) {
    case BinOp::Add: return Op::Add;
    case BinOp::Sub: return Op::Sub;
    case BinOp::Mul: return Op::Mul;
    case BinOp::Div: return Op::Div;
    case BinOp::FloorDiv: return Op::FloorDiv;
    case BinOp::Mod: return Op::Mod;
    case BinOp::Pow: return Op::Pow;
    case BinOp::MatMul: return Op::MatMul;
    case BinOp::BitAnd: return Op::BitAnd;
    case BinOp::BitOr: return Op::BitOr;
    case BinOp::BitXor: return Op::BitXor;
    case BinOp::LShift: return Op::LShift;
    case BinOp::RShift: return Op::RShift;
  }
  return Op::Add;
}

Op binaryOp(BinOp op) { return binOpCode(op); }

// x op= y: marked `inplace` so that a list is extended in place, as in
// Python (other values, tensors included, get a new value).
Value* Lowerer::inplaceOp(Op op, SourceLoc loc, Value* lhs, Value* rhs) {
  ir::Node* n = emit(op, loc, {lhs, rhs});
  n->setAttr("inplace", true);
  return n->result(0);
}

void Lowerer::augAssign(const AugAssignStmt& s) {
  Op op = binOpCode(s.op);
  if (auto* n = as<NameExpr>(s.target.get())) {
    Value* cur = readName(n->id, n->loc);
    Value* rhs = expr(*s.value);
    Value* updated = inplaceOp(op, s.loc, cur, rhs);
    updates_.push_back(updated->def());
    writeName(n->id, updated, n->loc);
    return;
  }
  if (auto* sub = as<SubscriptExpr>(s.target.get())) {
    std::vector<WriteBack> outer;
    Value* container = targetContainer(*sub->value, outer);
    Value* index = subscriptIndex(*sub->index);
    Value* old = emitValue(Op::GetItem, sub->loc, {container, index});
    Value* rhs = expr(*s.value);
    Value* updated = emitValue(Op::SetItem, s.loc, {container, index, inplaceOp(op, s.loc, old, rhs)});
    updates_.push_back(updated->def());
    rebindContainer(*sub->value, outer, updated);
    return;
  }
  fail(s.target->loc, "illegal expression for augmented assignment");
}

void Lowerer::ifStmt(const IfStmt& s) {
  Value* c = expr(*s.cond);
  ifMerge(c, s.loc,
          [&]() -> Value* {
            body(s.then, 0);
            return nullptr;
          },
          [&]() -> Value* {
            body(s.orelse, 0);
            return nullptr;
          });
}

Value* Lowerer::ifMerge(Value* cond, SourceLoc loc, const BranchFn& thenFn, const BranchFn& elseFn) {
  ir::Node* n = emit(Op::If, loc, {cond}, 0);
  ir::Block* saved = cur_;
  Env before = env_;
  const BranchFn* fns[2] = {&thenFn, &elseFn};
  Env envs[2];
  Value* vals[2] = {nullptr, nullptr};
  ir::Block* blocks[2];
  for (int i = 0; i < 2; ++i) {
    blocks[i] = n->addBlock();
    cur_ = blocks[i];
    env_ = before;
    vals[i] = (*fns[i])();
    envs[i] = env_;
  }
  Value* result = joinBranches(n, blocks, envs, before, vals, ir::Type::any(), loc);
  cur_ = saved;
  return result;
}

Value* Lowerer::joinBranches(ir::Node* n, ir::Block* const blocks[2], const Env envs[2], const Env& before,
                             Value* const leads[2], ir::Type leadType, SourceLoc loc) {
  std::set<std::string> changed;
  for (int i = 0; i < 2; ++i)
    for (const auto& [name, v] : envs[i]) {
      auto it = before.find(name);
      if (it == before.end() || it->second != v) changed.insert(name);
    }
  bool hasLead = leads[0] != nullptr;
  for (int i = 0; i < 2; ++i) {
    cur_ = blocks[i];
    std::vector<Value*> yields;
    if (hasLead) yields.push_back(leads[i] ? leads[i] : none(loc));
    for (const std::string& name : changed) {
      auto it = envs[i].find(name);
      yields.push_back(it != envs[i].end() ? it->second : undef(name, loc));
    }
    emit(Op::Yield, loc, yields, 0);
  }
  env_ = before;
  Value* lead = hasLead ? n->addResult(leadType) : nullptr;
  for (const std::string& name : changed) {
    Value* r = n->addResult(ir::Type::any());
    r->setNameHint(name);
    env_[name] = r;
  }
  return lead;
}

void Lowerer::loop(SourceLoc loc, const std::vector<std::string>& carried, const BranchFn& cond,
                   const std::function<void()>& bodyFn) {
  std::vector<Value*> inits;
  for (const std::string& name : carried) {
    auto it = env_.find(name);
    inits.push_back(it != env_.end() ? it->second : undef(name, loc));
  }
  ir::Node* n = emit(Op::Loop, loc, inits, 0);
  ir::Block* saved = cur_;
  Env before = env_;
  auto enter = [&](ir::Block* b) {
    cur_ = b;
    env_ = before;
    for (const std::string& name : carried) {
      Value* a = b->addArg(ir::Type::any());
      a->setNameHint(name);
      env_[name] = a;
    }
  };
  ir::Block* cb = n->addBlock();
  enter(cb);
  emit(Op::Condition, loc, {cond()}, 0);
  ir::Block* bb = n->addBlock();
  enter(bb);
  ++fctx_->loopDepth;
  bodyFn();
  --fctx_->loopDepth;
  std::vector<Value*> yields;
  for (const std::string& name : carried) {
    auto it = env_.find(name);
    yields.push_back(it != env_.end() ? it->second : undef(name, loc));
  }
  emit(Op::Yield, loc, yields, 0);
  cur_ = saved;
  env_ = before;
  for (const std::string& name : carried) {
    Value* r = n->addResult(ir::Type::any());
    r->setNameHint(name);
    env_[name] = r;
  }
}

std::vector<std::string> Lowerer::loopCarried(const std::set<std::string>& assigned, const Jumps& inner) {
  std::vector<std::string> carried;
  for (const std::string& name : assigned)
    if (isSsaName(name)) carried.push_back(name);
  if (inner.brk) carried.push_back("$brk");
  if (inner.ret) {
    carried.push_back("$ret");
    carried.push_back("$retval");
  }
  return carried;
}

static Jumps loopBodyJumps(const Body& body, JumpsCache& cache) {
  Jumps j;
  for (const auto& s : body) j |= jumpsOf(*s, &cache);
  return j;
}

// Saves the enclosing loop's break/continue flags and restores them after
// an inner loop, whose flags are its own.
struct FlagScope {
  Env& env;
  std::map<std::string, Value*> saved;
  explicit FlagScope(Env& e) : env(e) {
    for (const char* f : {"$brk", "$cont"}) {
      auto it = env.find(f);
      if (it != env.end()) saved[f] = it->second;
      env.erase(f);
    }
  }
  ~FlagScope() {
    for (const char* f : {"$brk", "$cont"}) {
      env.erase(f);
      auto it = saved.find(f);
      if (it != saved.end()) env[f] = it->second;
    }
  }
};

// The `else` block of a loop runs when the loop ended without break (or return).
void Lowerer::loopElse(const Body& orelse, const Jumps& stopOn, SourceLoc loc) {
  if (orelse.empty()) return;
  if (!stopOn.any()) {
    body(orelse, 0);
    return;
  }
  ifMerge(flagsSet(stopOn, loc), loc, [] { return nullptr; },
          [&]() -> Value* {
            body(orelse, 0);
            return nullptr;
          });
}

void Lowerer::whileStmt(const WhileStmt& s) {
  Jumps inner = loopBodyJumps(s.body, jumps_);
  std::set<std::string> assigned;
  collectAssigned(s.body, assigned, true);
  collectNamedTargets(*s.cond, assigned);  // while (line := ...): rebound each round
  FlagScope flags(env_);
  if (inner.brk) env_["$brk"] = constant(false, s.loc);
  std::vector<std::string> carried = loopCarried(assigned, inner);
  Jumps stopOn{inner.ret, inner.brk, false};
  loop(
      s.loc, carried,
      [&]() -> Value* {
        if (!stopOn.any()) return expr(*s.cond);
        Value* stop = flagsSet(stopOn, s.loc);
        return ifMerge(stop, s.loc, [&] { return constant(false, s.loc); },
                       [&] { return expr(*s.cond); });
      },
      [&] {
        if (inner.cont) env_["$cont"] = constant(false, s.loc);
        body(s.body, 0);
      });
  loopElse(s.orelse, stopOn, s.loc);
}

void Lowerer::forStmt(const ForStmt& s) {
  Value* seq = emitValue(Op::Iter, s.iter->loc, {expr(*s.iter)});
  Jumps inner = loopBodyJumps(s.body, jumps_);
  std::set<std::string> assigned;
  collectAssigned(s.body, assigned, true);
  collectTargetNames(*s.target, assigned);
  FlagScope flags(env_);
  if (inner.brk) env_["$brk"] = constant(false, s.loc);
  std::string idx = "$i" + std::to_string(counter_++);
  env_[idx] = constant(int64_t(0), s.loc);
  std::vector<std::string> carried = loopCarried(assigned, inner);
  carried.insert(carried.begin(), idx);
  Jumps stopOn{inner.ret, inner.brk, false};
  loop(
      s.loc, carried,
      [&]() -> Value* {
        // The length as the iteration starts, as Python reads it: a list
        // the body appends to is iterated to its new end. (licm hoists it
        // where the iterable's length cannot change.)
        Value* len = emitValue(Op::IterLen, s.loc, {seq});
        auto more = [&] { return emitValue(Op::Lt, s.loc, {env_[idx], len}); };
        if (!stopOn.any()) return more();
        return ifMerge(flagsSet(stopOn, s.loc), s.loc, [&] { return constant(false, s.loc); }, more);
      },
      [&] {
        Value* item = placed(emitValue(Op::IterItem, s.target->loc, {seq, env_[idx]}), s.target->loc);
        env_[idx] = emitValue(Op::Add, s.loc, {env_[idx], constant(int64_t(1), s.loc)});
        if (inner.cont) env_["$cont"] = constant(false, s.loc);
        assign(*s.target, item);
        body(s.body, 0);
      });
  env_.erase(idx);
  loopElse(s.orelse, stopOn, s.loc);
}

void Lowerer::importStmt(const Stmt& s) {
  if (auto* imp = as<ImportStmt>(&s)) {
    for (const auto& a : imp->names) {
      ir::Node* n = emit(Op::Import, a.loc, {});
      n->setAttr("module", a.name);
      bool dotted = a.name.find('.') != std::string::npos;
      if (!a.asName.empty()) {
        writeName(a.asName, n->result(0), a.loc);
      } else {
        // `import a.b` binds `a`, a package whose member `b` is the module.
        if (dotted) n->setAttr("bind_top", true);
        writeName(a.name.substr(0, a.name.find('.')), n->result(0), a.loc);
      }
    }
    return;
  }
  const auto& from = static_cast<const ImportFromStmt&>(s);
  ir::Node* n = emit(Op::Import, s.loc, {});
  n->setAttr("module", from.module);
  Value* mod = n->result(0);
  for (const auto& a : from.names) {
    ir::Node* g = emit(Op::GetAttr, a.loc, {mod});
    g->setAttr("name", a.name);
    writeName(a.asName.empty() ? a.name : a.asName, g->result(0), a.loc);
  }
}

void Lowerer::assertStmt(const AssertStmt& s) {
  Value* c = expr(*s.test);
  if (!s.msg) {
    emit(Op::Assert, s.loc, {c}, 0);
    return;
  }
  // The message is evaluated only when the assertion fails.
  Value* failed = emitValue(Op::Not, s.loc, {c});
  ifMerge(failed, s.loc,
          [&]() -> Value* {
            emit(Op::Assert, s.loc, {c, expr(*s.msg)}, 0);
            return nullptr;
          },
          [] { return nullptr; });
}

std::unique_ptr<ir::Graph> lowerModule(const Module& m, const SourceManager& sm, const LowerOptions& options) {
  auto g = std::make_unique<ir::Graph>(m.file);
  g->setSourceName(sm.path(m.file));
  Lowerer l(sm, options, *g);
  l.module(m);
  ir::verify(*g);
  for (const auto& f : g->functions()) f->number();
  return g;
}

}  // namespace nn::frontend
