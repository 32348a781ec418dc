// Lowering of expressions. Short-circuit operators, conditional expressions
// and chained comparisons become `if` nodes; comprehensions become loops
// that append to a fresh list; f-strings become format + str_concat.
#include "frontend/lower_internal.h"

#include <algorithm>

namespace nn::frontend {

using namespace nn::ast;
using ir::Op;
using ir::Value;

Value* Lowerer::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name: return readName(static_cast<const NameExpr&>(e).id, e.loc);
    case ExprKind::Int: return constant(static_cast<const IntExpr&>(e).value, e.loc);
    case ExprKind::Float: return constant(static_cast<const FloatExpr&>(e).value, e.loc);
    case ExprKind::Str: return constant(static_cast<const StrExpr&>(e).value, e.loc);
    case ExprKind::Bool: return constant(static_cast<const BoolExpr&>(e).value, e.loc);
    case ExprKind::None: return none(e.loc);
    case ExprKind::Ellipsis: return builtin("Ellipsis", e.loc);
    case ExprKind::FStr: return fstring(static_cast<const FStrExpr&>(e));
    case ExprKind::Tuple:
    case ExprKind::List: {
      const auto& elts = e.kind == ExprKind::Tuple ? static_cast<const TupleExpr&>(e).elts
                                                   : static_cast<const ListExpr&>(e).elts;
      // [*a, b, *c]: a call of _list_of (_tuple_of) with its starred
      // arguments spread, like f(*a, b, *c).
      bool spread = std::any_of(elts.begin(), elts.end(), [](const ExprPtr& x) { return x->kind == ExprKind::Starred; });
      std::vector<Value*> vals;
      ir::Ints kinds;
      if (spread) vals.push_back(builtin(e.kind == ExprKind::Tuple ? "_tuple_of" : "_list_of", e.loc));
      for (const auto& x : elts) {
        const auto* star = as<StarredExpr>(x.get());
        vals.push_back(expr(star ? *star->value : *x));
        kinds.push_back(static_cast<int64_t>(star ? ir::CallSpread::Iterable : ir::CallSpread::Positional));
      }
      Op op = spread ? Op::CallUnpacked : e.kind == ExprKind::Tuple ? Op::MakeTuple : Op::MakeList;
      ir::Node* n = emit(op, e.loc, vals);
      if (spread) n->setAttr("spread", kinds);
      Value* v = n->result(0);
      v->setType(ir::Type{e.kind == ExprKind::Tuple ? ir::TypeKind::Tuple : ir::TypeKind::List});
      return v;
    }
    case ExprKind::Dict: {
      const auto& d = static_cast<const DictExpr&>(e);
      if (std::any_of(d.keys.begin(), d.keys.end(), [](const ExprPtr& k) { return !k; })) return dictWithUnpacking(d);
      std::vector<Value*> vals;
      for (size_t i = 0; i < d.keys.size(); ++i) {
        vals.push_back(expr(*d.keys[i]));
        vals.push_back(expr(*d.values[i]));
      }
      Value* v = emitValue(Op::MakeDict, e.loc, vals);
      v->setType(ir::Type{ir::TypeKind::Dict});
      return v;
    }
    case ExprKind::Unary: {
      const auto& u = static_cast<const UnaryExpr&>(e);
      Value* v = expr(*u.operand);
      Op op = u.op == UnaryOp::Neg ? Op::Neg : u.op == UnaryOp::Pos ? Op::Pos
            : u.op == UnaryOp::Invert ? Op::Invert : Op::Not;
      return emitValue(op, e.loc, {v});
    }
    case ExprKind::Binary: {
      const auto& b = static_cast<const BinaryExpr&>(e);
      Value* l = expr(*b.lhs);
      Value* r = expr(*b.rhs);
      return emitValue(binaryOp(b.op), e.loc, {l, r});
    }
    case ExprKind::Compare: return compare(static_cast<const CompareExpr&>(e));
    case ExprKind::BoolOp: return boolOp(static_cast<const BoolOpExpr&>(e));
    case ExprKind::IfExp: return ifExpr(static_cast<const IfExpr&>(e));
    case ExprKind::Lambda: {
      const auto& l = static_cast<const LambdaExpr&>(e);
      std::string name = "lambda_" + std::to_string(e.loc.line) + "_" + std::to_string(e.loc.col);
      return functionValue(name, l.params, e.loc, nullptr, l.body.get());
    }
    case ExprKind::Call: return call(static_cast<const CallExpr&>(e));
    // What a `with device(...)` block reads out of containers and modules
    // enters it too (lower_with.cpp).
    case ExprKind::Attribute: return placed(attribute(static_cast<const AttributeExpr&>(e)), e.loc);
    case ExprKind::Subscript: {
      const auto& s = static_cast<const SubscriptExpr&>(e);
      Value* base = expr(*s.value);
      return placed(emitValue(Op::GetItem, e.loc, {base, subscriptIndex(*s.index)}), e.loc);
    }
    case ExprKind::Slice: return subscriptIndex(e);
    case ExprKind::ListComp: return listComp(static_cast<const ListCompExpr&>(e));
    case ExprKind::Starred: fail(e.loc, "starred expressions are not supported here");
    case ExprKind::Named: {
      const auto& n = static_cast<const NamedExpr&>(e);
      Value* v = expr(*n.value);
      assign(*n.target, v);
      return v;
    }
  }
  fail(e.loc, "internal error: unknown expression");
}

// An index expression: slices become make_slice values; several indices a tuple.
Value* Lowerer::subscriptIndex(const Expr& index) {
  if (auto* s = as<SliceExpr>(&index)) {
    Value* parts[3];
    const ExprPtr* srcs[3] = {&s->lower, &s->upper, &s->step};
    for (int i = 0; i < 3; ++i) parts[i] = *srcs[i] ? expr(**srcs[i]) : none(index.loc);
    return emitValue(Op::MakeSlice, index.loc, {parts[0], parts[1], parts[2]});
  }
  if (auto* t = as<TupleExpr>(&index)) {
    std::vector<Value*> vals;
    for (const auto& x : t->elts) vals.push_back(subscriptIndex(*x));
    return emitValue(Op::MakeTuple, index.loc, vals);
  }
  return expr(index);
}

Value* Lowerer::attribute(const AttributeExpr& a) {
  ir::Node* n = emit(Op::GetAttr, a.loc, {expr(*a.value)});
  n->setAttr("name", a.attr);
  return n->result(0);
}

Value* Lowerer::call(const CallExpr& e) {
  // A method is called on its object's attribute itself (builtin-ops reads
  // the pattern), not on a placed copy of it.
  const auto* method = as<AttributeExpr>(e.func.get());
  std::vector<Value*> operands{method ? attribute(*method) : expr(*e.func)};
  // With `*xs` or `**kw` the call is a call_unpacked: `spread` says what
  // each argument is, and the expansion happens when it runs.
  bool unpacked = false;
  ir::Ints spread;
  for (const auto& a : e.args) {
    const auto* star = as<StarredExpr>(a.get());
    operands.push_back(expr(star ? *star->value : *a));
    spread.push_back(static_cast<int64_t>(star ? ir::CallSpread::Iterable : ir::CallSpread::Positional));
    unpacked = unpacked || star;
  }
  std::vector<std::string> kw;
  for (const auto& k : e.keywords) {
    operands.push_back(expr(*k.value));
    spread.push_back(static_cast<int64_t>(k.name.empty() ? ir::CallSpread::Mapping : ir::CallSpread::Keyword));
    if (!k.name.empty()) kw.push_back(k.name);
    unpacked = unpacked || k.name.empty();
  }
  if (!unpacked) addCreationDevice(e, operands, kw);
  ir::Node* n = emit(unpacked ? Op::CallUnpacked : Op::Call, e.loc, operands);
  if (unpacked) n->setAttr("spread", spread);
  if (!kw.empty()) n->setAttr("kw", kw);
  return n->result(0);
}

static Op compareOp(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return Op::Lt;
    case CmpOp::Le: return Op::Le;
    case CmpOp::Gt: return Op::Gt;
    case CmpOp::Ge: return Op::Ge;
    case CmpOp::Eq: return Op::Eq;
    case CmpOp::Ne: return Op::Ne;
    case CmpOp::In: return Op::In;
    case CmpOp::NotIn: return Op::NotIn;
    case CmpOp::Is: return Op::Is;
    case CmpOp::IsNot: return Op::IsNot;
  }
  return Op::Eq;
}

// a < b < c  ==>  t = a < b; if t: b < c else: t   (b evaluated once)
Value* Lowerer::compare(const CompareExpr& e) {
  Value* left = expr(*e.operands[0]);
  std::function<Value*(size_t, Value*)> chain = [&](size_t i, Value* lhs) -> Value* {
    Value* rhs = expr(*e.operands[i + 1]);
    SourceLoc l = SourceLoc::span(e.operands[i]->loc, e.operands[i + 1]->loc);
    Value* r = emitValue(compareOp(e.ops[i]), l, {lhs, rhs});
    if (i + 1 == e.ops.size()) return r;
    return ifMerge(r, l, [&] { return chain(i + 1, rhs); }, [&] { return r; });
  };
  return chain(0, left);
}

// a and b: if a is falsy the result is a, else b (Python semantics).
Value* Lowerer::boolOp(const BoolOpExpr& e) {
  std::function<Value*(size_t)> rest = [&](size_t i) -> Value* {
    Value* v = expr(*e.values[i]);
    if (i + 1 == e.values.size()) return v;
    auto next = [&] { return rest(i + 1); };
    auto keep = [&] { return v; };
    return e.isAnd ? ifMerge(v, e.loc, next, keep) : ifMerge(v, e.loc, keep, next);
  };
  return rest(0);
}

Value* Lowerer::ifExpr(const IfExpr& e) {
  Value* c = expr(*e.cond);
  return ifMerge(c, e.loc, [&] { return expr(*e.then); }, [&] { return expr(*e.orelse); });
}

Value* Lowerer::fstring(const FStrExpr& e) {
  std::vector<Value*> pieces;
  for (const auto& p : e.parts) pieces.push_back(p.expr ? fstringField(p, e.loc) : constant(p.literal, e.loc));
  Value* v = emitValue(Op::StrConcat, e.loc, pieces);
  v->setType(ir::Type{ir::TypeKind::Str});
  return v;
}

Value* Lowerer::fstringField(const FStrPart& p, SourceLoc at) {
  std::vector<Value*> operands{expr(*p.expr)};
  if (!p.specFields.empty()) {
    std::vector<Value*> specPieces;
    for (const auto& q : p.specFields) specPieces.push_back(q.expr ? fstringField(q, at) : constant(q.literal, at));
    Value* spec = emitValue(Op::StrConcat, p.expr->loc, specPieces);
    spec->setType(ir::Type{ir::TypeKind::Str});
    operands.push_back(spec);
  }
  ir::Node* n = emit(Op::Format, p.expr->loc, operands);
  if (!p.spec.empty()) n->setAttr("spec", p.spec);
  if (p.conversion) n->setAttr("conv", std::string(1, p.conversion));
  return n->result(0);
}

// {k: v, **m, ...}: a fresh dict filled in the display's order, as Python
// evaluates it: each pair stored, each mapping's items added by its
// update() (located at the mapping, which must be a dict).
Value* Lowerer::dictWithUnpacking(const DictExpr& d) {
  Value* dict = emitValue(Op::MakeDict, d.loc, {});
  dict->setType(ir::Type{ir::TypeKind::Dict});
  for (size_t i = 0; i < d.keys.size(); ++i) {
    if (d.keys[i]) {
      Value* k = expr(*d.keys[i]);
      emit(Op::SetItem, d.keys[i]->loc, {dict, k, expr(*d.values[i])});
      continue;
    }
    SourceLoc at = d.values[i]->loc;
    ir::Node* update = emit(Op::GetAttr, at, {dict});
    update->setAttr("name", std::string("update"));
    emit(Op::Call, at, {update->result(0), expr(*d.values[i])});
  }
  return dict;
}

// The first `name := value` in e whose name `binds` accepts, or null (not
// in a lambda, which binds its own).
static const NamedExpr* namedBinding(const Expr& e, const std::function<bool(const std::string&)>& binds) {
  const NamedExpr* found = nullptr;
  if (e.kind == ExprKind::Lambda) return found;
  if (auto* n = as<NamedExpr>(&e); n && binds(static_cast<const NameExpr&>(*n->target).id)) return n;
  forEachChild(e, [&](const Expr& c) {
    if (!found) found = namedBinding(c, binds);
  });
  return found;
}

// [elt for t1 in it1 if c1 for t2 in it2 ...]: nested loops appending to a
// fresh list. Comprehension variables are local to the comprehension; a
// `name := value` in it binds in the enclosing function, so the loops
// carry that name (Python's rules: not a comprehension's variable, not in
// an iterable).
Value* Lowerer::listComp(const ListCompExpr& e) {
  Value* list = emitValue(e.key ? Op::MakeDict : Op::MakeList, e.loc, {});
  list->setType(ir::Type{e.key ? ir::TypeKind::Dict : ir::TypeKind::List});
  std::set<std::string> names;
  for (const auto& g : e.generators) collectTargetNames(*g.target, names);
  std::set<std::string> bound, iterationNames = names;
  for (const auto& scope : fctx_->compScopes) iterationNames.insert(scope.begin(), scope.end());
  std::vector<const Expr*> parts{e.key.get(), e.elt.get()};
  for (const auto& g : e.generators) {
    if (const NamedExpr* n = namedBinding(*g.iter, [](const std::string&) { return true; }))
      fail(n->loc, "assignment expression cannot be used in a comprehension iterable expression");
    for (const auto& c : g.ifs) parts.push_back(c.get());
  }
  for (const Expr* part : parts) {
    if (!part) continue;
    auto iterationName = [&](const std::string& name) { return iterationNames.count(name) > 0; };
    if (const NamedExpr* n = namedBinding(*part, iterationName))
      fail(n->loc, "assignment expression cannot rebind comprehension iteration variable '" +
                       static_cast<const NameExpr&>(*n->target).id + "'");
    collectNamedTargets(*part, bound);
  }
  std::vector<std::string> carried;
  for (const auto& n : bound)
    if (isSsaName(n)) carried.push_back(n);
  std::map<std::string, Value*> shadowed;
  for (const auto& n : names)
    if (env_.count(n)) shadowed[n] = env_[n];
  fctx_->compScopes.push_back(names);
  comprehensionLevel(e, 0, list, carried);
  fctx_->compScopes.pop_back();
  for (const auto& n : names) env_.erase(n);
  for (const auto& [n, v] : shadowed) env_[n] = v;
  return list;
}

void Lowerer::comprehensionLevel(const ListCompExpr& e, size_t level, Value* list,
                                 const std::vector<std::string>& carried) {
  if (level == e.generators.size()) {
    if (e.key) {
      // The key first, as Python (3.8) evaluates it; the dict is updated in place.
      Value* k = expr(*e.key);
      emit(Op::SetItem, e.loc, {list, k, expr(*e.elt)});
      return;
    }
    emit(Op::ListAppend, e.elt->loc, {list, expr(*e.elt)}, 0);
    return;
  }
  const Comprehension& g = e.generators[level];
  Value* seq = emitValue(Op::Iter, g.iter->loc, {expr(*g.iter)});
  std::string idx = "$i" + std::to_string(counter_++);
  env_[idx] = constant(int64_t(0), e.loc);
  // Each iteration reads the length, as a for loop does (lower_stmt.cpp).
  std::vector<std::string> loopCarried{idx};
  loopCarried.insert(loopCarried.end(), carried.begin(), carried.end());
  loop(
      e.loc, loopCarried,
      [&] { return emitValue(Op::Lt, e.loc, {env_[idx], emitValue(Op::IterLen, g.iter->loc, {seq})}); },
      [&] {
        Value* item = placed(emitValue(Op::IterItem, g.target->loc, {seq, env_[idx]}), g.target->loc);
        env_[idx] = emitValue(Op::Add, e.loc, {env_[idx], constant(int64_t(1), e.loc)});
        assign(*g.target, item);
        std::function<void(size_t)> filters = [&](size_t i) {
          if (i == g.ifs.size()) {
            comprehensionLevel(e, level + 1, list, carried);
            return;
          }
          Value* c = expr(*g.ifs[i]);
          ifMerge(c, g.ifs[i]->loc,
                  [&]() -> Value* {
                    filters(i + 1);
                    return nullptr;
                  },
                  [] { return nullptr; });
        };
        filters(0);
      });
  env_.erase(idx);
}

}  // namespace nn::frontend
