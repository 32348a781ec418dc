// AST construction for expressions: the precedence chain of the grammar is
// collapsed so one-child levels leave no trace in the tree.
#include <charconv>
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "frontend/ast_builder.h"

namespace nn::frontend {

using namespace nn::ast;

// Deeper expressions are rejected so that the recursive passes over the AST
// and IR stay far from the native stack limit (CPython's compiler stops at a
// similar depth with "too complex").
constexpr uint32_t kMaxExprDepth = 1000;

ExprPtr AstBuilder::bounded(ExprPtr e) {
  uint32_t d = 0;
  forEachChild(*e, [&](const Expr& c) { d = std::max(d, c.depth); });
  e->depth = d + 1;
  if (e->depth > kMaxExprDepth) fail(e->loc, "expression is too deeply nested (more than 1000 levels)");
  return e;
}

// Dispatches any expression-level rule context to its builder.
ExprPtr AstBuilder::exprRule(antlr4::ParserRuleContext* ctx) {
  switch (ctx->getRuleIndex()) {
    case NNParser::RuleTest: return test(static_cast<NNParser::TestContext*>(ctx));
    case NNParser::RuleNamedexpr_test: {
      auto* n = static_cast<NNParser::Namedexpr_testContext*>(ctx);
      if (!n->WALRUS()) return test(n->test());
      auto e = std::make_unique<NamedExpr>(loc(ctx));
      auto target = std::make_unique<NameExpr>(loc(n->NAME()));
      target->id = n->NAME()->getText();
      e->target = std::move(target);
      e->value = test(n->test());
      return e;
    }
    case NNParser::RuleTest_nocond: {
      auto* t = static_cast<NNParser::Test_nocondContext*>(ctx);
      if (t->lambdef_nocond())
        return lambda(t, t->lambdef_nocond()->lambda_params(), t->lambdef_nocond()->test_nocond());
      return expr(t->or_test());
    }
    case NNParser::RuleOr_test:
    case NNParser::RuleAnd_test: {
      bool isAnd = ctx->getRuleIndex() == NNParser::RuleAnd_test;
      std::vector<antlr4::ParserRuleContext*> parts;
      for (auto* c : ctx->children)
        if (auto* r = dynamic_cast<antlr4::ParserRuleContext*>(c)) parts.push_back(r);
      if (parts.size() == 1) return expr(parts[0]);
      auto e = std::make_unique<BoolOpExpr>(loc(ctx));
      e->isAnd = isAnd;
      for (auto* p : parts) e->values.push_back(expr(p));
      return e;
    }
    case NNParser::RuleNot_test: {
      auto* n = static_cast<NNParser::Not_testContext*>(ctx);
      if (n->comparison()) return comparison(n->comparison());
      auto e = std::make_unique<UnaryExpr>(loc(ctx));
      e->op = UnaryOp::Not;
      e->operand = expr(n->not_test());
      return e;
    }
    case NNParser::RuleComparison:
      return comparison(static_cast<NNParser::ComparisonContext*>(ctx));
    case NNParser::RuleExpr:
    case NNParser::RuleXor_expr:
    case NNParser::RuleAnd_expr:
    case NNParser::RuleShift_expr:
    case NNParser::RuleArith_expr:
    case NNParser::RuleTerm:
      return binaryChain(ctx);
    case NNParser::RuleFactor: return factor(static_cast<NNParser::FactorContext*>(ctx));
    case NNParser::RulePower: return power(static_cast<NNParser::PowerContext*>(ctx));
    case NNParser::RuleAtom_expr: return atomExpr(static_cast<NNParser::Atom_exprContext*>(ctx));
    case NNParser::RuleAtom: return atom(static_cast<NNParser::AtomContext*>(ctx));
    case NNParser::RuleStar_expr: {
      auto e = std::make_unique<StarredExpr>(loc(ctx));
      e->value = expr(static_cast<NNParser::Star_exprContext*>(ctx)->expr());
      return e;
    }
    case NNParser::RuleTestlist:
    case NNParser::RuleExprlist:
    case NNParser::RuleTestlist_star:
      return tupleOf(ctx, false);
    default:
      fail(loc(ctx), "internal error: unexpected expression rule");
  }
}

// test : or_test (IF or_test ELSE test)? | lambdef
ExprPtr AstBuilder::testRule(NNParser::TestContext* ctx) {
  if (auto* l = ctx->lambdef()) return lambda(ctx, l->lambda_params(), l->test());
  auto ors = ctx->or_test();
  if (!ctx->IF()) return expr(ors[0]);
  auto e = std::make_unique<IfExpr>(loc(ctx));
  e->then = expr(ors[0]);
  e->cond = expr(ors[1]);
  e->orelse = test(ctx->test());
  return e;
}

ExprPtr AstBuilder::lambda(antlr4::ParserRuleContext* ctx, NNParser::Lambda_paramsContext* params,
                           antlr4::ParserRuleContext* body) {
  auto e = std::make_unique<LambdaExpr>(loc(ctx));
  e->params = lambdaParams(params);
  e->body = expr(body);
  return e;
}

// comparison : expr (comp_op expr)*
ExprPtr AstBuilder::comparison(NNParser::ComparisonContext* ctx) {
  auto operands = ctx->expr();
  if (operands.size() == 1) return expr(operands[0]);
  auto e = std::make_unique<CompareExpr>(loc(ctx));
  for (auto* o : operands) e->operands.push_back(expr(o));
  for (auto* op : ctx->comp_op()) {
    size_t t = op->getStart()->getType();
    bool two = op->children.size() == 2;
    CmpOp c = CmpOp::Eq;
    switch (t) {
      case NNParser::LT: c = CmpOp::Lt; break;
      case NNParser::GT: c = CmpOp::Gt; break;
      case NNParser::EQ: c = CmpOp::Eq; break;
      case NNParser::GE: c = CmpOp::Ge; break;
      case NNParser::LE: c = CmpOp::Le; break;
      case NNParser::NE: c = CmpOp::Ne; break;
      case NNParser::IN: c = CmpOp::In; break;
      case NNParser::NOT: c = CmpOp::NotIn; break;
      case NNParser::IS: c = two ? CmpOp::IsNot : CmpOp::Is; break;
      default: break;
    }
    e->ops.push_back(c);
  }
  return e;
}

static BinOp binOpFor(size_t tokenType) {
  switch (tokenType) {
    case NNParser::PLUS: return BinOp::Add;
    case NNParser::MINUS: return BinOp::Sub;
    case NNParser::STAR: return BinOp::Mul;
    case NNParser::SLASH: return BinOp::Div;
    case NNParser::PERCENT: return BinOp::Mod;
    case NNParser::FLOORDIV: return BinOp::FloorDiv;
    case NNParser::AT: return BinOp::MatMul;
    case NNParser::PIPE: return BinOp::BitOr;
    case NNParser::CARET: return BinOp::BitXor;
    case NNParser::AMP: return BinOp::BitAnd;
    case NNParser::LSHIFT: return BinOp::LShift;
    default: return BinOp::RShift;
  }
}

// Left-associative chains: expr, xor_expr, and_expr, shift_expr, arith_expr, term.
ExprPtr AstBuilder::binaryChain(antlr4::ParserRuleContext* ctx) {
  ExprPtr result;
  BinOp pending = BinOp::Add;
  SourceLoc opLoc;
  for (auto* child : ctx->children) {
    if (auto* rule = dynamic_cast<antlr4::ParserRuleContext*>(child)) {
      ExprPtr operand = expr(rule);
      if (!result) {
        result = std::move(operand);
        continue;
      }
      auto e = std::make_unique<BinaryExpr>(SourceLoc::span(result->loc, operand->loc));
      e->op = pending;
      e->opLoc = opLoc;
      e->lhs = std::move(result);
      e->rhs = std::move(operand);
      result = bounded(std::move(e));
    } else if (auto* term = dynamic_cast<antlr4::tree::TerminalNode*>(child)) {
      pending = binOpFor(term->getSymbol()->getType());
      opLoc = loc(term);
    }
  }
  return result;
}

// factor : (PLUS | MINUS | TILDE) factor | power
ExprPtr AstBuilder::factor(NNParser::FactorContext* ctx) {
  if (ctx->power()) return power(ctx->power());
  ExprPtr operand = factor(ctx->factor());
  size_t t = ctx->getStart()->getType();
  // Fold "-literal" so that -9223372036854775808 and -1.5 are plain constants.
  if (t == NNParser::MINUS) {
    if (auto* f = as<FloatExpr>(operand.get())) {
      f->value = -f->value;
      f->loc = loc(ctx);
      return operand;
    }
  }
  auto e = std::make_unique<UnaryExpr>(loc(ctx));
  e->op = t == NNParser::PLUS ? UnaryOp::Pos : t == NNParser::MINUS ? UnaryOp::Neg : UnaryOp::Invert;
  e->operand = std::move(operand);
  return e;
}

// power : atom_expr (POWER factor)?
ExprPtr AstBuilder::power(NNParser::PowerContext* ctx) {
  ExprPtr base = atomExpr(ctx->atom_expr());
  if (!ctx->factor()) return base;
  auto e = std::make_unique<BinaryExpr>(loc(ctx));
  e->op = BinOp::Pow;
  e->opLoc = loc(ctx->POWER());
  e->lhs = std::move(base);
  e->rhs = factor(ctx->factor());
  return e;
}

// atom_expr : atom trailer*
ExprPtr AstBuilder::atomExpr(NNParser::Atom_exprContext* ctx) {
  ExprPtr e = atom(ctx->atom());
  SourceLoc start = loc(ctx->atom());
  for (auto* t : ctx->trailer()) e = bounded(trailer(std::move(e), t, start));
  return e;
}

// trailer : LPAREN arglist? RPAREN | LBRACK subscriptlist RBRACK | DOT NAME
ExprPtr AstBuilder::trailer(ExprPtr base, NNParser::TrailerContext* ctx, SourceLoc start) {
  SourceLoc l = SourceLoc::span(start, loc(ctx));
  if (ctx->LPAREN()) {
    auto call = std::make_unique<CallExpr>(l);
    call->func = std::move(base);
    if (ctx->arglist()) callArgs(*call, ctx->arglist());
    return call;
  }
  if (ctx->LBRACK()) {
    auto sub = std::make_unique<SubscriptExpr>(l);
    sub->value = std::move(base);
    sub->index = subscripts(ctx->subscriptlist());
    return sub;
  }
  auto attr = std::make_unique<AttributeExpr>(l);
  attr->value = std::move(base);
  attr->attr = ctx->NAME()->getText();
  return attr;
}

ExprPtr AstBuilder::subscripts(NNParser::SubscriptlistContext* ctx) {
  auto subs = ctx->subscript();
  if (subs.size() == 1 && ctx->COMMA().empty()) return subscript(subs[0]);
  auto t = std::make_unique<TupleExpr>(loc(ctx));
  for (auto* s : subs) t->elts.push_back(subscript(s));
  return t;
}

// subscript : test | test? COLON test? sliceop?
ExprPtr AstBuilder::subscript(NNParser::SubscriptContext* ctx) {
  if (!ctx->COLON()) return test(ctx->test(0));
  auto s = std::make_unique<SliceExpr>(loc(ctx));
  bool afterColon = false;
  for (auto* child : ctx->children) {
    if (auto* t = dynamic_cast<NNParser::TestContext*>(child)) {
      (afterColon ? s->upper : s->lower) = test(t);
    } else if (auto* term = dynamic_cast<antlr4::tree::TerminalNode*>(child)) {
      if (term->getSymbol()->getType() == NNParser::COLON) afterColon = true;
    } else if (auto* op = dynamic_cast<NNParser::SliceopContext*>(child)) {
      if (op->test()) s->step = test(op->test());
    }
  }
  return s;
}

void AstBuilder::callArgs(CallExpr& call, NNParser::ArglistContext* ctx) {
  bool spread = false;  // a `**` argument was seen
  for (auto* a : ctx->argument()) {
    if (a->POWER()) {
      Keyword kw;
      kw.loc = loc(a);
      kw.value = test(a->test());
      call.keywords.push_back(std::move(kw));
      spread = true;
      continue;
    }
    if (a->STAR()) {
      if (spread) fail(loc(a), "iterable argument unpacking follows keyword argument unpacking");
      auto e = std::make_unique<StarredExpr>(loc(a));
      e->value = test(a->test());
      call.args.push_back(std::move(e));
      continue;
    }
    if (a->ASSIGN()) {
      Keyword kw;
      kw.name = a->NAME()->getText();
      kw.loc = loc(a);
      kw.value = test(a->test());
      for (const Keyword& k : call.keywords)
        if (k.name == kw.name) fail(kw.loc, "keyword argument repeated: '" + kw.name + "'");
      call.keywords.push_back(std::move(kw));
      continue;
    }
    if (spread) fail(loc(a), "positional argument follows keyword argument unpacking");
    if (!call.keywords.empty()) fail(loc(a), "positional argument follows keyword argument");
    if (a->comp_for()) {
      // f(x for x in xs): a generator argument, evaluated as a list.
      auto lc = std::make_unique<ListCompExpr>(loc(a));
      lc->elt = expr(a->namedexpr_test());
      comprehension(a->comp_for(), lc->generators);
      call.args.push_back(std::move(lc));
      continue;
    }
    call.args.push_back(expr(a->namedexpr_test()));
  }
}

// comp_for : FOR exprlist IN or_test comp_iter?
void AstBuilder::comprehension(NNParser::Comp_forContext* ctx, std::vector<Comprehension>& out) {
  Comprehension c;
  c.target = tupleOf(ctx->exprlist(), false);
  c.iter = expr(ctx->or_test());
  out.push_back(std::move(c));
  auto* iter = ctx->comp_iter();
  while (iter) {
    if (iter->comp_for()) {
      comprehension(iter->comp_for(), out);
      return;
    }
    auto* cif = iter->comp_if();
    out.back().ifs.push_back(expr(cif->test_nocond()));
    iter = cif->comp_iter();
  }
}

// A comma-separated list (testlist, exprlist, testlist_star, testlist_comp)
// is a tuple when it has a comma, else its single element.
ExprPtr AstBuilder::tupleOf(antlr4::ParserRuleContext* ctx, bool forceTuple) {
  std::vector<antlr4::ParserRuleContext*> elems;
  bool comma = false;
  for (auto* child : ctx->children) {
    if (auto* r = dynamic_cast<antlr4::ParserRuleContext*>(child)) elems.push_back(r);
    else if (auto* t = dynamic_cast<antlr4::tree::TerminalNode*>(child))
      comma = comma || t->getSymbol()->getType() == NNParser::COMMA;
  }
  if (!comma && !forceTuple && elems.size() == 1) return expr(elems[0]);
  auto t = std::make_unique<TupleExpr>(loc(ctx));
  for (auto* e : elems) t->elts.push_back(expr(e));
  return t;
}

// testlist_comp inside () or []: a comprehension, a tuple/list display, or a
// parenthesised expression.
ExprPtr AstBuilder::sequence(antlr4::ParserRuleContext* atomCtx, bool isList) {
  auto* a = static_cast<NNParser::AtomContext*>(atomCtx);
  auto* tc = a->testlist_comp();
  SourceLoc l = loc(atomCtx);
  if (!tc) {
    if (isList) return std::make_unique<ListExpr>(l);
    return std::make_unique<TupleExpr>(l);
  }
  if (tc->comp_for()) {
    auto lc = std::make_unique<ListCompExpr>(l);
    lc->elt = expr(dynamic_cast<antlr4::ParserRuleContext*>(tc->children[0]));
    comprehension(tc->comp_for(), lc->generators);
    return lc;
  }
  if (!isList) {
    ExprPtr inner = tupleOf(tc, false);
    if (inner->kind == ExprKind::Tuple) inner->loc = l;
    return inner;
  }
  auto list = std::make_unique<ListExpr>(l);
  for (auto* child : tc->children)
    if (auto* r = dynamic_cast<antlr4::ParserRuleContext*>(child)) list->elts.push_back(expr(r));
  return list;
}

ExprPtr AstBuilder::dictMaker(NNParser::AtomContext* atomCtx, NNParser::DictorsetmakerContext* ctx) {
  SourceLoc l = loc(atomCtx);
  auto d = std::make_unique<DictExpr>(l);
  if (!ctx) return d;
  auto entries = ctx->dictentry();
  // A set's items are entries without a colon; a dict's entries all have
  // one (or are **mappings).
  auto keyOnly = [](NNParser::DictentryContext* e) { return !e->POWER() && !e->COLON(); };
  if (keyOnly(entries[0])) unsupported(atomCtx, "set literal");
  for (auto* entry : entries)
    if (keyOnly(entry)) fail(loc(entry), "expected ':' after a dict key");
  if (ctx->comp_for()) {
    if (entries[0]->POWER()) fail(loc(entries[0]), "dict unpacking cannot be used in a dict comprehension");
    auto dc = std::make_unique<ListCompExpr>(l);
    dc->key = test(entries[0]->test(0));
    dc->elt = test(entries[0]->test(1));
    comprehension(ctx->comp_for(), dc->generators);
    return dc;
  }
  // **m is an entry without a key.
  for (auto* entry : entries) {
    d->keys.push_back(entry->POWER() ? nullptr : test(entry->test(0)));
    d->values.push_back(entry->POWER() ? expr(entry->expr()) : test(entry->test(1)));
  }
  return d;
}

ExprPtr AstBuilder::atom(NNParser::AtomContext* ctx) {
  SourceLoc l = loc(ctx);
  if (ctx->LPAREN()) return sequence(ctx, false);
  if (ctx->LBRACK()) return sequence(ctx, true);
  if (ctx->LBRACE()) return dictMaker(ctx, ctx->dictorsetmaker());
  if (ctx->NAME()) {
    auto n = std::make_unique<NameExpr>(l);
    n->id = ctx->NAME()->getText();
    return n;
  }
  if (ctx->number()) return number(ctx->number());
  if (!ctx->STRING().empty()) return strings(ctx);
  if (ctx->ELLIPSIS()) return std::make_unique<EllipsisExpr>(l);
  if (ctx->NONE()) return std::make_unique<NoneExpr>(l);
  auto b = std::make_unique<BoolExpr>(l);
  b->value = ctx->TRUE() != nullptr;
  return b;
}

ExprPtr AstBuilder::number(NNParser::NumberContext* ctx) {
  SourceLoc l = loc(ctx);
  std::string text;
  for (char c : ctx->getText())
    if (c != '_') text += c;
  if (ctx->FLOAT_NUMBER()) {
    auto f = std::make_unique<FloatExpr>(l);
    f->value = std::strtod(text.c_str(), nullptr);
    return f;
  }
  int base = 10;
  size_t skip = 0;
  if (ctx->HEX_NUMBER()) base = 16, skip = 2;
  if (ctx->BIN_NUMBER()) base = 2, skip = 2;
  if (ctx->OCT_NUMBER()) base = 8, skip = 2;
  if (base == 10 && text.size() > 1 && text[0] == '0' && text.find_first_not_of('0') != std::string::npos)
    fail(l, "leading zeros in decimal integer literals are not permitted; use 0o for octal");
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data() + skip, text.data() + text.size(), value, base);
  (void)ptr;
  if (ec != std::errc() || value > uint64_t(INT64_MAX))
    fail(l, "integer literal too large for a 64-bit int");
  auto i = std::make_unique<IntExpr>(l);
  i->value = static_cast<int64_t>(value);
  return i;
}

}  // namespace nn::frontend
