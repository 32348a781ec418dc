// Scope analysis for lowering, following Python's rules: a name assigned
// anywhere in a function body (assignment, augmented assignment, for target,
// def, import) is local to that function unless declared `global`; nested
// functions and comprehensions have scopes of their own.
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

static void collectStmt(const Stmt& s, std::set<std::string>& out, bool updates) {
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
