// Scope analysis for lowering, following Python's rules: a name assigned
// anywhere in a function body (assignment, augmented assignment, for target,
// def, import, `name := value`) is local to that function unless declared
// `global`; nested functions and comprehensions have scopes of their own,
// except that a comprehension's `name := value` binds in the function.
#include "frontend/lower_internal.h"

namespace nn::frontend {

using namespace nn::ast;

void collectTargetNames(const Expr& target, std::set<std::string>& out, bool updates) {
  if (auto* n = as<NameExpr>(&target)) {
    out.insert(n->id);
  } else if (auto* t = as<TupleExpr>(&target)) {
    for (const auto& e : t->elts) collectTargetNames(*e, out, updates);
  } else if (auto* l = as<ListExpr>(&target)) {
    for (const auto& e : l->elts) collectTargetNames(*e, out, updates);
  } else if (auto* st = as<StarredExpr>(&target)) {
    collectTargetNames(*st->value, out, updates);
  } else if (auto* sub = as<SubscriptExpr>(&target); sub && updates) {
    collectTargetNames(*sub->value, out, updates);  // x[i] = v rebinds x to the updated tensor
  }
}

void collectNamedTargets(const Expr& e, std::set<std::string>& out) {
  if (e.kind == ExprKind::Lambda) return;  // binds in the lambda
  if (auto* n = as<NamedExpr>(&e)) out.insert(static_cast<const NameExpr&>(*n->target).id);
  forEachChild(e, [&](const Expr& c) { collectNamedTargets(c, out); });
}

// The expressions statement s evaluates itself (not those of the
// statements it holds): where its `name := value` bind.
static void forEachOwnExpr(const Stmt& s, const std::function<void(const Expr&)>& fn) {
  auto opt = [&](const ExprPtr& e) {
    if (e) fn(*e);
  };
  switch (s.kind) {
    case StmtKind::Expr: fn(*static_cast<const ExprStmt&>(s).value); break;
    case StmtKind::Assign:
      for (const auto& t : static_cast<const AssignStmt&>(s).targets) fn(*t);
      opt(static_cast<const AssignStmt&>(s).value);
      break;
    case StmtKind::AugAssign:
      fn(*static_cast<const AugAssignStmt&>(s).target);
      fn(*static_cast<const AugAssignStmt&>(s).value);
      break;
    case StmtKind::If: fn(*static_cast<const IfStmt&>(s).cond); break;
    case StmtKind::While: fn(*static_cast<const WhileStmt&>(s).cond); break;
    case StmtKind::For: fn(*static_cast<const ForStmt&>(s).iter); break;
    case StmtKind::Return: opt(static_cast<const ReturnStmt&>(s).value); break;
    case StmtKind::Assert:
      fn(*static_cast<const AssertStmt&>(s).test);
      opt(static_cast<const AssertStmt&>(s).msg);
      break;
    case StmtKind::Raise: opt(static_cast<const RaiseStmt&>(s).exc); break;
    case StmtKind::With:
      for (const auto& e : static_cast<const WithStmt&>(s).items) fn(*e);
      break;
    case StmtKind::Del: fn(*static_cast<const DelStmt&>(s).target); break;
    case StmtKind::FuncDef: {
      const auto& f = static_cast<const FuncDefStmt&>(s);
      for (const Param& p : f.params) opt(p.defaultValue);
      for (const Decorator& d : f.decorators) fn(*d.expr);
      break;
    }
    case StmtKind::Try:
      for (const auto& h : static_cast<const TryStmt&>(s).handlers) opt(h.type);
      break;
    default: break;
  }
}

static void collectStmt(const Stmt& s, std::set<std::string>& out, bool updates) {
  forEachOwnExpr(s, [&](const Expr& e) { collectNamedTargets(e, out); });
  switch (s.kind) {
    case StmtKind::Assign:
      for (const auto& t : static_cast<const AssignStmt&>(s).targets) collectTargetNames(*t, out, updates);
      break;
    case StmtKind::AugAssign: collectTargetNames(*static_cast<const AugAssignStmt&>(s).target, out, updates); break;
    case StmtKind::Del: collectTargetNames(*static_cast<const DelStmt&>(s).target, out, updates); break;
    case StmtKind::If: {
      const auto& x = static_cast<const IfStmt&>(s);
      collectAssigned(x.then, out, updates);
      collectAssigned(x.orelse, out, updates);
      break;
    }
    case StmtKind::While: {
      const auto& x = static_cast<const WhileStmt&>(s);
      collectAssigned(x.body, out, updates);
      collectAssigned(x.orelse, out, updates);
      break;
    }
    case StmtKind::For: {
      const auto& x = static_cast<const ForStmt&>(s);
      collectTargetNames(*x.target, out, updates);
      collectAssigned(x.body, out, updates);
      collectAssigned(x.orelse, out, updates);
      break;
    }
    case StmtKind::With: {
      const auto& x = static_cast<const WithStmt&>(s);
      for (const auto& t : x.asTargets)
        if (t) collectTargetNames(*t, out, updates);
      collectAssigned(x.body, out, updates);
      break;
    }
    case StmtKind::Try: {
      const auto& x = static_cast<const TryStmt&>(s);
      collectTryAssigned(x, out, updates);
      collectAssigned(x.finalbody, out, updates);
      break;
    }
    case StmtKind::FuncDef: out.insert(static_cast<const FuncDefStmt&>(s).name); break;
    case StmtKind::Import:
      for (const auto& a : static_cast<const ImportStmt&>(s).names)
        out.insert(!a.asName.empty() ? a.asName : a.name.substr(0, a.name.find('.')));
      break;
    case StmtKind::ImportFrom:
      for (const auto& a : static_cast<const ImportFromStmt&>(s).names)
        out.insert(a.asName.empty() ? a.name : a.asName);
      break;
    default: break;
  }
}

void collectAssigned(const Body& body, std::set<std::string>& out, bool updates) {
  for (const auto& s : body) collectStmt(*s, out, updates);
}

void collectTryAssigned(const TryStmt& s, std::set<std::string>& out, bool updates) {
  collectAssigned(s.body, out, updates);
  for (const auto& h : s.handlers) {
    if (!h.name.empty()) out.insert(h.name);
    collectAssigned(h.body, out, updates);
  }
  collectAssigned(s.orelse, out, updates);
}

// ---- the names a body reads (for `with device`'s placement) ----

static void readsOf(const Expr* e, std::set<std::string>& out);
static void readsOf(const Body& body, std::set<std::string>& out);

// An assignment target reads the containers it indexes, not the names it binds.
static void targetReads(const Expr& target, std::set<std::string>& out) {
  if (auto* t = as<TupleExpr>(&target)) {
    for (const auto& e : t->elts) targetReads(*e, out);
  } else if (auto* l = as<ListExpr>(&target)) {
    for (const auto& e : l->elts) targetReads(*e, out);
  } else if (auto* st = as<StarredExpr>(&target)) {
    targetReads(*st->value, out);
  } else if (!as<NameExpr>(&target)) {
    readsOf(&target, out);
  }
}

static void paramReads(const std::vector<Param>& params, std::set<std::string>& out) {
  for (const Param& p : params) readsOf(p.defaultValue.get(), out);
}

static void readsOf(const Expr* e, std::set<std::string>& out) {
  if (!e) return;
  auto all = [&](const std::vector<ExprPtr>& xs) {
    for (const auto& x : xs) readsOf(x.get(), out);
  };
  switch (e->kind) {
    case ExprKind::Name: out.insert(static_cast<const NameExpr*>(e)->id); break;
    case ExprKind::FStr:
      for (const FStrPart& p : static_cast<const FStrExpr*>(e)->parts) {
        readsOf(p.expr.get(), out);
        for (const FStrPart& q : p.specFields) readsOf(q.expr.get(), out);
      }
      break;
    case ExprKind::Tuple: all(static_cast<const TupleExpr*>(e)->elts); break;
    case ExprKind::List: all(static_cast<const ListExpr*>(e)->elts); break;
    case ExprKind::Dict:
      all(static_cast<const DictExpr*>(e)->keys);
      all(static_cast<const DictExpr*>(e)->values);
      break;
    case ExprKind::Unary: readsOf(static_cast<const UnaryExpr*>(e)->operand.get(), out); break;
    case ExprKind::Binary:
      readsOf(static_cast<const BinaryExpr*>(e)->lhs.get(), out);
      readsOf(static_cast<const BinaryExpr*>(e)->rhs.get(), out);
      break;
    case ExprKind::Compare: all(static_cast<const CompareExpr*>(e)->operands); break;
    case ExprKind::BoolOp: all(static_cast<const BoolOpExpr*>(e)->values); break;
    case ExprKind::IfExp: {
      const auto* x = static_cast<const IfExpr*>(e);
      for (const Expr* part : {x->cond.get(), x->then.get(), x->orelse.get()}) readsOf(part, out);
      break;
    }
    case ExprKind::Lambda:
      paramReads(static_cast<const LambdaExpr*>(e)->params, out);
      readsOf(static_cast<const LambdaExpr*>(e)->body.get(), out);
      break;
    case ExprKind::Call: {
      const auto* x = static_cast<const CallExpr*>(e);
      readsOf(x->func.get(), out);
      all(x->args);
      for (const Keyword& k : x->keywords) readsOf(k.value.get(), out);
      break;
    }
    case ExprKind::Attribute: readsOf(static_cast<const AttributeExpr*>(e)->value.get(), out); break;
    case ExprKind::Subscript:
      readsOf(static_cast<const SubscriptExpr*>(e)->value.get(), out);
      readsOf(static_cast<const SubscriptExpr*>(e)->index.get(), out);
      break;
    case ExprKind::Slice: {
      const auto* x = static_cast<const SliceExpr*>(e);
      for (const Expr* part : {x->lower.get(), x->upper.get(), x->step.get()}) readsOf(part, out);
      break;
    }
    case ExprKind::ListComp: {
      const auto* x = static_cast<const ListCompExpr*>(e);
      readsOf(x->key.get(), out);
      readsOf(x->elt.get(), out);
      for (const Comprehension& g : x->generators) {
        readsOf(g.iter.get(), out);
        all(g.ifs);
      }
      break;
    }
    case ExprKind::Starred: readsOf(static_cast<const StarredExpr*>(e)->value.get(), out); break;
    case ExprKind::Named: readsOf(static_cast<const NamedExpr*>(e)->value.get(), out); break;
    default: break;  // literals
  }
}

static void readsOf(const Body& body, std::set<std::string>& out) {
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::Expr: readsOf(static_cast<const ExprStmt&>(*s).value.get(), out); break;
      case StmtKind::Assign: {
        const auto& x = static_cast<const AssignStmt&>(*s);
        for (const auto& t : x.targets) targetReads(*t, out);
        readsOf(x.value.get(), out);
        break;
      }
      case StmtKind::AugAssign:
        readsOf(static_cast<const AugAssignStmt&>(*s).target.get(), out);
        readsOf(static_cast<const AugAssignStmt&>(*s).value.get(), out);
        break;
      case StmtKind::If:
        readsOf(static_cast<const IfStmt&>(*s).cond.get(), out);
        readsOf(static_cast<const IfStmt&>(*s).then, out);
        readsOf(static_cast<const IfStmt&>(*s).orelse, out);
        break;
      case StmtKind::While:
        readsOf(static_cast<const WhileStmt&>(*s).cond.get(), out);
        readsOf(static_cast<const WhileStmt&>(*s).body, out);
        readsOf(static_cast<const WhileStmt&>(*s).orelse, out);
        break;
      case StmtKind::For: {
        const auto& x = static_cast<const ForStmt&>(*s);
        targetReads(*x.target, out);
        readsOf(x.iter.get(), out);
        readsOf(x.body, out);
        readsOf(x.orelse, out);
        break;
      }
      case StmtKind::FuncDef: {
        const auto& x = static_cast<const FuncDefStmt&>(*s);
        paramReads(x.params, out);
        for (const Decorator& d : x.decorators) readsOf(d.expr.get(), out);
        readsOf(x.body, out);  // what it captures
        break;
      }
      case StmtKind::Return: readsOf(static_cast<const ReturnStmt&>(*s).value.get(), out); break;
      case StmtKind::Assert:
        readsOf(static_cast<const AssertStmt&>(*s).test.get(), out);
        readsOf(static_cast<const AssertStmt&>(*s).msg.get(), out);
        break;
      case StmtKind::Raise: readsOf(static_cast<const RaiseStmt&>(*s).exc.get(), out); break;
      case StmtKind::Del: targetReads(*static_cast<const DelStmt&>(*s).target, out); break;
      case StmtKind::With: {
        const auto& x = static_cast<const WithStmt&>(*s);
        for (const auto& item : x.items) readsOf(item.get(), out);
        readsOf(x.body, out);
        break;
      }
      case StmtKind::Try: {
        const auto& x = static_cast<const TryStmt&>(*s);
        for (const ExceptClause& h : x.handlers) readsOf(h.type.get(), out);
        for (const Body* b : x.bodies()) readsOf(*b, out);
        break;
      }
      default: break;
    }
  }
}

void collectReads(const Body& body, std::set<std::string>& out) { readsOf(body, out); }

void collectGlobalDecls(const Body& body, std::set<std::string>& out) {
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::Global:
        for (const auto& n : static_cast<const GlobalStmt&>(*s).names) out.insert(n);
        break;
      case StmtKind::If: {
        const auto& x = static_cast<const IfStmt&>(*s);
        collectGlobalDecls(x.then, out);
        collectGlobalDecls(x.orelse, out);
        break;
      }
      case StmtKind::While: {
        const auto& x = static_cast<const WhileStmt&>(*s);
        collectGlobalDecls(x.body, out);
        collectGlobalDecls(x.orelse, out);
        break;
      }
      case StmtKind::For: {
        const auto& x = static_cast<const ForStmt&>(*s);
        collectGlobalDecls(x.body, out);
        collectGlobalDecls(x.orelse, out);
        break;
      }
      case StmtKind::With: collectGlobalDecls(static_cast<const WithStmt&>(*s).body, out); break;
      case StmtKind::Try: {
        const auto& x = static_cast<const TryStmt&>(*s);
        for (const Body* b : x.bodies()) collectGlobalDecls(*b, out);
        break;
      }
      case StmtKind::FuncDef:
        // A nested function's `global` declarations make module globals too.
        collectGlobalDecls(static_cast<const FuncDefStmt&>(*s).body, out);
        break;
      default: break;
    }
  }
}

static Jumps bodyJumps(const Body& body, JumpsCache* cache) {
  Jumps j;
  for (const auto& s : body) j |= jumpsOf(*s, cache);
  return j;
}

Jumps jumpsOf(const Stmt& s, JumpsCache* cache) {
  if (cache) {
    auto it = cache->find(&s);
    if (it != cache->end()) return it->second;
  }
  Jumps j;
  switch (s.kind) {
    case StmtKind::Return: j.ret = true; break;
    case StmtKind::Break: j.brk = true; break;
    case StmtKind::Continue: j.cont = true; break;
    case StmtKind::If: {
      const auto& x = static_cast<const IfStmt&>(s);
      j |= bodyJumps(x.then, cache);
      j |= bodyJumps(x.orelse, cache);
      break;
    }
    case StmtKind::While:
    case StmtKind::For: {
      // break/continue inside a loop stay inside it; a return escapes.
      const Body& b = s.kind == StmtKind::While ? static_cast<const WhileStmt&>(s).body
                                                : static_cast<const ForStmt&>(s).body;
      const Body& e = s.kind == StmtKind::While ? static_cast<const WhileStmt&>(s).orelse
                                                : static_cast<const ForStmt&>(s).orelse;
      j.ret = bodyJumps(b, cache).ret;
      j |= bodyJumps(e, cache);
      break;
    }
    case StmtKind::With: j |= bodyJumps(static_cast<const WithStmt&>(s).body, cache); break;
    case StmtKind::Try:
      for (const Body* b : static_cast<const TryStmt&>(s).bodies()) j |= bodyJumps(*b, cache);
      break;
    default: break;
  }
  if (cache) cache->emplace(&s, j);
  return j;
}

bool containsReturn(const Body& body) {
  for (const auto& s : body) {
    if (s->kind == StmtKind::Return) continue;  // a top-level return is direct
    if (jumpsOf(*s).ret) return true;
  }
  return false;
}

}  // namespace nn::frontend
