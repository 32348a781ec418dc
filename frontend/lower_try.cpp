// Lowering of try/except/else/finally (language.md §3) to `try` nodes.
//
// A protected region is a `try` node: its body block is the region, its
// handler block runs when an error escapes the body. Variables are SSA
// values, so a variable the body changes before it fails would be lost to
// the handler; the body therefore records each change of such a variable
// with a `track` node, and the handler's arguments are the exception and
// each variable's value where the body stopped. Both blocks yield an `ok`
// flag (true from the body) and every variable either changed, as an if
// does.
//
//   try: B  except E1 as e: H1  except E2: H2  else: L  finally: F
//
// becomes, with R the region of B and the except chain,
//
//   ok1 = try { B; yield true } handler(exc) {
//           if isinstance(exc, E1): e = exc; H1  elif isinstance(exc, E2): H2
//           else: raise exc               # not matched: on to the caller
//         }
//   if ok1 and no jump left B: L
//
// and a finally wraps all of that in a second region whose handler runs F
// and raises the exception again, then runs F after it on the normal path
// (so F runs after a return, break or continue in B too).
#include "frontend/lower_internal.h"

namespace nn::frontend {

using namespace nn::ast;
using ir::Op;
using ir::Value;

Value* Lowerer::protectedRegion(SourceLoc loc, const std::set<std::string>& assigned,
                                const std::function<void()>& bodyFn, const std::function<void(Value*)>& handlerFn) {
  std::vector<std::string> tracked;
  for (const std::string& name : assigned)
    if (isSsaName(name)) tracked.push_back(name);
  std::vector<Value*> initial;
  for (const std::string& name : tracked) {
    auto it = env_.find(name);
    initial.push_back(it != env_.end() ? it->second : undef(name, loc));
  }
  ir::Node* n = emit(Op::Try, loc, initial, 0);
  n->setAttr("names", tracked);
  ir::Block* saved = cur_;
  Env before = env_;

  ir::Block* blocks[2];
  Env envs[2];
  Value* ok[2];
  blocks[0] = cur_ = n->addBlock();
  fctx_->tryTracked.emplace_back(tracked.begin(), tracked.end());
  ++fctx_->tryDepth;
  bodyFn();
  --fctx_->tryDepth;
  fctx_->tryTracked.pop_back();
  ok[0] = constant(true, loc);
  envs[0] = env_;

  blocks[1] = cur_ = n->addBlock();
  env_ = before;
  Value* exc = blocks[1]->addArg(ir::Type::any());
  for (const std::string& name : tracked) {
    Value* v = blocks[1]->addArg(ir::Type::any());
    v->setNameHint(name);
    env_[name] = v;
  }
  handlerFn(exc);
  ok[1] = constant(false, loc);
  envs[1] = env_;

  Value* result = joinBranches(n, blocks, envs, before, ok, ir::Type{ir::TypeKind::Bool}, loc);
  cur_ = saved;
  return result;
}

// The except clauses from the i-th on, tried in order on `exc`; none
// matching raises it again.
void Lowerer::exceptClauses(const TryStmt& s, size_t i, Value* exc) {
  if (i == s.handlers.size()) {
    emit(Op::Raise, s.loc, {exc}, 0);
    return;
  }
  const ExceptClause& h = s.handlers[i];
  auto run = [&]() -> Value* {
    if (!h.name.empty()) writeName(h.name, exc, h.loc);
    fctx_->handling.push_back(exc);
    body(h.body, 0);
    fctx_->handling.pop_back();
    return nullptr;
  };
  if (!h.type) {
    run();
    return;
  }
  Value* cls = expr(*h.type);
  Value* matches = emitValue(Op::Call, h.loc, {builtin("isinstance", h.loc), exc, cls});
  ifMerge(matches, h.loc, run, [&]() -> Value* {
    exceptClauses(s, i + 1, exc);
    return nullptr;
  });
}

// try/except/else, without the finally.
void Lowerer::tryExcept(const TryStmt& s) {
  if (s.handlers.empty()) {
    body(s.body, 0);
    return;
  }
  std::set<std::string> assigned;
  collectAssigned(s.body, assigned, true);
  Value* ok = protectedRegion(
      s.loc, assigned, [&] { body(s.body, 0); }, [&](Value* exc) { exceptClauses(s, 0, exc); });
  if (s.orelse.empty()) return;
  // else runs when the body ran to its end: no error, no return, break or continue.
  Jumps j;
  for (const auto& st : s.body) j |= jumpsOf(*st, &jumps_);
  if (j.any()) {
    Value* stop = flagsSet(j, s.loc);
    ok = emitValue(Op::BitAnd, s.loc, {ok, emitValue(Op::Not, s.loc, {stop})});
  }
  ifMerge(ok, s.loc,
          [&]() -> Value* {
            body(s.orelse, 0);
            return nullptr;
          },
          [] { return nullptr; });
}

void Lowerer::tryStmt(const TryStmt& s) {
  for (size_t i = 0; i + 1 < s.handlers.size(); ++i)
    if (!s.handlers[i].type) fail(s.handlers[i].loc, "default 'except:' must be last");
  if (s.finalbody.empty()) {
    tryExcept(s);
    return;
  }
  // The variables whatever the finally protects changes.
  std::set<std::string> assigned;
  collectTryAssigned(s, assigned, true);
  protectedRegion(
      s.loc, assigned, [&] { tryExcept(s); },
      [&](Value* exc) {
        body(s.finalbody, 0);
        emit(Op::Raise, s.loc, {exc}, 0);
      });
  body(s.finalbody, 0);
}

}  // namespace nn::frontend
