// AST construction for statements: simple statements, compound statements,
// blocks, function definitions and their parameters.
#include "frontend/ast_builder.h"

#include <optional>

namespace nn::frontend {

using namespace nn::ast;

SourceLoc AstBuilder::loc(antlr4::Token* tok) const {
  SourceLoc l;
  l.file = file_;
  uint32_t line = static_cast<uint32_t>(tok->getLine());
  uint32_t col = static_cast<uint32_t>(tok->getCharPositionInLine()) + 1;
  l.line = line + lineOffset_;
  l.col = line == 1 ? col + colOffset_ : col;
  l.endLine = l.line;
  // getText() converts the token's code points to UTF-8 on every call.
  std::string text = tok->getText();
  size_t len = text.size();
  if (text.find('\n') != std::string::npos || len == 0) len = 1;
  l.endCol = l.col + static_cast<uint32_t>(len);
  return l;
}

SourceLoc AstBuilder::loc(antlr4::ParserRuleContext* ctx) const {
  SourceLoc a = loc(ctx->getStart());
  antlr4::Token* stop = ctx->getStop();
  if (!stop || stop->getTokenIndex() < ctx->getStart()->getTokenIndex()) return a;
  // Synthesised NEWLINE/DEDENT tokens close a statement; the range ends at
  // the last real token.
  SourceLoc b = loc(stop);
  if (stop->getType() == NNParser::NEWLINE || stop->getType() == NNParser::DEDENT) b = a;
  return SourceLoc::span(a, b);
}

void AstBuilder::unsupported(antlr4::ParserRuleContext* ctx, const std::string& what) {
  fail(loc(ctx), what + " is not supported");
}

std::unique_ptr<Module> AstBuilder::buildModule(NNParser::File_inputContext* ctx) {
  auto m = std::make_unique<Module>();
  m->file = file_;
  for (auto* s : ctx->stmt()) stmt(s, m->body);
  return m;
}

ExprPtr AstBuilder::buildEvalInput(NNParser::Eval_inputContext* ctx) {
  return tupleOf(ctx->testlist(), false);
}

void AstBuilder::stmt(NNParser::StmtContext* ctx, Body& out) {
  if (auto* simple = ctx->simple_stmts()) {
    for (auto* s : simple->simple_stmt()) simpleStmt(s, out);
    return;
  }
  out.push_back(compoundStmt(ctx->compound_stmt()));
}

Body AstBuilder::block(NNParser::BlockContext* ctx) {
  Body body;
  if (auto* simple = ctx->simple_stmts()) {
    for (auto* s : simple->simple_stmt()) simpleStmt(s, body);
  } else {
    for (auto* s : ctx->stmt()) stmt(s, body);
  }
  return body;
}

// simple_stmt : expr_stmt | PASS | BREAK | CONTINUE | RETURN testlist? | RAISE test?
//             | GLOBAL NAME (COMMA NAME)* | NONLOCAL ... | ASSERT test (COMMA test)?
//             | DEL exprlist | import_stmt
void AstBuilder::simpleStmt(NNParser::Simple_stmtContext* ctx, Body& out) {
  SourceLoc l = loc(ctx);
  if (ctx->expr_stmt()) {
    out.push_back(exprStmt(ctx->expr_stmt()));
  } else if (ctx->PASS()) {
    out.push_back(std::make_unique<PassStmt>(l));
  } else if (ctx->BREAK()) {
    out.push_back(std::make_unique<BreakStmt>(l));
  } else if (ctx->CONTINUE()) {
    out.push_back(std::make_unique<ContinueStmt>(l));
  } else if (ctx->RETURN()) {
    auto s = std::make_unique<ReturnStmt>(l);
    if (ctx->testlist()) s->value = tupleOf(ctx->testlist(), false);
    out.push_back(std::move(s));
  } else if (ctx->RAISE()) {
    auto s = std::make_unique<RaiseStmt>(l);
    if (!ctx->test().empty()) s->exc = test(ctx->test(0));
    out.push_back(std::move(s));
  } else if (ctx->GLOBAL()) {
    auto s = std::make_unique<GlobalStmt>(l);
    for (auto* n : ctx->NAME()) s->names.push_back(n->getText());
    out.push_back(std::move(s));
  } else if (ctx->ASSERT()) {
    auto s = std::make_unique<AssertStmt>(l);
    s->test = test(ctx->test(0));
    if (ctx->test().size() > 1) s->msg = test(ctx->test(1));
    out.push_back(std::move(s));
  } else if (ctx->import_stmt()) {
    out.push_back(importStmt(ctx->import_stmt()));
  } else if (ctx->DEL()) {
    auto s = std::make_unique<DelStmt>(l);
    s->target = tupleOf(ctx->exprlist(), false);
    out.push_back(std::move(s));
  } else {
    auto s = std::make_unique<UnsupportedStmt>(l);
    s->what = "'nonlocal'";
    out.push_back(std::move(s));
  }
}

static BinOp augOp(size_t tokenType) {
  switch (tokenType) {
    case NNParser::ADD_ASSIGN: return BinOp::Add;
    case NNParser::SUB_ASSIGN: return BinOp::Sub;
    case NNParser::MUL_ASSIGN: return BinOp::Mul;
    case NNParser::DIV_ASSIGN: return BinOp::Div;
    case NNParser::MOD_ASSIGN: return BinOp::Mod;
    case NNParser::AT_ASSIGN: return BinOp::MatMul;
    case NNParser::POWER_ASSIGN: return BinOp::Pow;
    case NNParser::FLOORDIV_ASSIGN: return BinOp::FloorDiv;
    case NNParser::AND_ASSIGN: return BinOp::BitAnd;
    case NNParser::OR_ASSIGN: return BinOp::BitOr;
    case NNParser::XOR_ASSIGN: return BinOp::BitXor;
    case NNParser::LSHIFT_ASSIGN: return BinOp::LShift;
    default: return BinOp::RShift;
  }
}

// expr_stmt : testlist_star ( annassign | augassign testlist
//                             | (ASSIGN testlist_star)* )
StmtPtr AstBuilder::exprStmt(NNParser::Expr_stmtContext* ctx) {
  SourceLoc l = loc(ctx);
  auto lists = ctx->testlist_star();
  if (auto* ann = ctx->annassign()) {
    // `x: T = v` assigns, `x: T` declares; the lowering reads the annotation.
    auto s = std::make_unique<AssignStmt>(l);
    s->targets.push_back(tupleOf(lists[0], false));
    if (s->targets[0]->kind == ExprKind::Tuple || s->targets[0]->kind == ExprKind::List)
      fail(s->targets[0]->loc, "only a single target (not a tuple or list) can be annotated");
    s->annotation = test(ann->test());
    if (ann->testlist()) s->value = tupleOf(ann->testlist(), false);
    return s;
  }
  if (auto* aug = ctx->augassign()) {
    auto s = std::make_unique<AugAssignStmt>(l);
    s->target = tupleOf(lists[0], false);
    s->op = augOp(aug->getStart()->getType());
    s->value = tupleOf(ctx->testlist(), false);
    return s;
  }
  if (lists.size() == 1) {
    auto s = std::make_unique<ExprStmt>(l);
    s->value = tupleOf(lists[0], false);
    return s;
  }
  auto s = std::make_unique<AssignStmt>(l);
  for (size_t i = 0; i + 1 < lists.size(); ++i) s->targets.push_back(tupleOf(lists[i], false));
  s->value = tupleOf(lists.back(), false);
  return s;
}

static std::string dotted(NNParser::Dotted_nameContext* ctx) {
  std::string name;
  for (auto* n : ctx->NAME()) {
    if (!name.empty()) name += ".";
    name += n->getText();
  }
  return name;
}

StmtPtr AstBuilder::importStmt(NNParser::Import_stmtContext* ctx) {
  SourceLoc l = loc(ctx);
  if (ctx->IMPORT() && !ctx->FROM()) {
    auto s = std::make_unique<ImportStmt>(l);
    for (auto* d : ctx->dotted_as_name()) {
      ImportAlias a;
      a.name = dotted(d->dotted_name());
      if (d->NAME()) a.asName = d->NAME()->getText();
      a.loc = loc(d);
      s->names.push_back(std::move(a));
    }
    return s;
  }
  if (ctx->STAR()) unsupported(ctx, "'from ... import *'");
  auto s = std::make_unique<ImportFromStmt>(l);
  s->module = dotted(ctx->dotted_name());
  for (auto* a : ctx->import_as_name()) {
    ImportAlias alias;
    alias.name = a->NAME(0)->getText();
    if (a->NAME().size() > 1) alias.asName = a->NAME(1)->getText();
    alias.loc = loc(a);
    s->names.push_back(std::move(alias));
  }
  return s;
}

StmtPtr AstBuilder::compoundStmt(NNParser::Compound_stmtContext* ctx) {
  SourceLoc l = loc(ctx);
  if (auto* s = ctx->if_stmt()) return ifStmt(s);
  if (auto* w = ctx->while_stmt()) {
    auto s = std::make_unique<WhileStmt>(l);
    s->cond = expr(w->namedexpr_test());
    s->body = block(w->block(0));
    if (w->ELSE()) s->orelse = block(w->block(1));
    return s;
  }
  if (auto* f = ctx->for_stmt()) {
    auto s = std::make_unique<ForStmt>(l);
    s->target = tupleOf(f->exprlist(), false);
    s->iter = tupleOf(f->testlist(), false);
    s->body = block(f->block(0));
    if (f->ELSE()) s->orelse = block(f->block(1));
    return s;
  }
  if (auto* f = ctx->funcdef()) return funcDef(f);
  if (auto* d = ctx->decorated()) {
    auto fn = funcDef(d->funcdef());
    auto* def = static_cast<FuncDefStmt*>(fn.get());
    for (auto* dec : d->decorator()) {
      Decorator out;
      out.loc = loc(dec);
      SourceLoc nl = loc(dec->dotted_name());
      auto names = dec->dotted_name()->NAME();
      auto name = std::make_unique<NameExpr>(loc(names[0]));
      name->id = names[0]->getText();
      ExprPtr e = std::move(name);
      for (size_t i = 1; i < names.size(); ++i) {
        auto attr = std::make_unique<AttributeExpr>(nl);
        attr->value = std::move(e);
        attr->attr = names[i]->getText();
        e = std::move(attr);
      }
      if (dec->LPAREN()) {
        auto call = std::make_unique<CallExpr>(out.loc);
        call->func = std::move(e);
        if (dec->arglist()) callArgs(*call, dec->arglist());
        e = std::move(call);
      }
      out.expr = std::move(e);
      def->decorators.push_back(std::move(out));
    }
    return fn;
  }
  if (auto* w = ctx->with_stmt()) {
    auto s = std::make_unique<WithStmt>(l);
    for (auto* item : w->with_item()) {
      s->items.push_back(test(item->test()));
      s->asTargets.push_back(item->expr() ? expr(item->expr()) : nullptr);
    }
    s->body = block(w->block());
    return s;
  }
  if (auto* t = ctx->try_stmt()) {
    // Blocks in order: the body, one per except clause, else, finally.
    auto blocks = t->block();
    auto s = std::make_unique<TryStmt>(l);
    size_t next = 0;
    s->body = block(blocks[next++]);
    for (auto* clause : t->except_clause()) {
      ExceptClause h;
      h.loc = loc(clause);
      if (clause->test()) h.type = test(clause->test());
      if (clause->NAME()) h.name = clause->NAME()->getText();
      h.body = block(blocks[next++]);
      s->handlers.push_back(std::move(h));
    }
    if (t->ELSE()) s->orelse = block(blocks[next++]);
    if (t->FINALLY()) s->finalbody = block(blocks[next++]);
    return s;
  }
  auto s = std::make_unique<UnsupportedStmt>(l);
  s->what = "'class'";
  return s;
}

// if_stmt : IF namedexpr_test COLON block (ELIF namedexpr_test COLON block)* (ELSE COLON block)?
// elif chains become nested IfStmts in the else branch.
StmtPtr AstBuilder::ifStmt(NNParser::If_stmtContext* ctx) {
  auto tests = ctx->namedexpr_test();
  auto blocks = ctx->block();
  std::unique_ptr<IfStmt> root;
  IfStmt* cur = nullptr;
  for (size_t i = 0; i < tests.size(); ++i) {
    SourceLoc l = i == 0 ? loc(ctx) : loc(tests[i]);
    auto s = std::make_unique<IfStmt>(l);
    s->cond = expr(tests[i]);
    s->then = block(blocks[i]);
    IfStmt* raw = s.get();
    if (!root) root = std::move(s);
    else cur->orelse.push_back(std::move(s));
    cur = raw;
  }
  if (ctx->ELSE()) cur->orelse = block(blocks.back());
  return root;
}

StmtPtr AstBuilder::funcDef(NNParser::FuncdefContext* ctx) {
  auto s = std::make_unique<FuncDefStmt>(loc(ctx->getStart()));
  s->loc = SourceLoc::span(loc(ctx->getStart()), loc(ctx->NAME()));
  s->name = ctx->NAME()->getText();
  s->nameLoc = loc(ctx->NAME());
  if (ctx->parameters()) s->params = parameters(ctx->parameters());
  if (ctx->test()) s->returns = test(ctx->test());
  s->body = block(ctx->block());
  return s;
}

// Python's rules for a parameter list, applied as each parameter is read:
// one `*` or `*args`, keyword-only parameters after it, `**kwargs` last, no
// positional parameter without a default after one with a default.
namespace {
class ParamListBuilder {
 public:
  void star(SourceLoc loc) {
    if (starred_) fail(loc, "* argument may appear only once");
    if (varKeywords_) fail(loc, "arguments cannot follow var-keyword argument");
    starred_ = true;
    bareStar_ = loc;
  }
  void add(Param p) {
    if (varKeywords_) fail(p.loc, "arguments cannot follow var-keyword argument");
    for (const Param& q : out_)
      if (q.name == p.name) fail(p.loc, "duplicate argument '" + p.name + "' in function definition");
    if (p.kind == ir::ParamKind::VarArgs) {
      star(p.loc);
      bareStar_.reset();
    } else if (p.kind == ir::ParamKind::VarKeywords) {
      varKeywords_ = true;
    } else if (starred_) {
      p.kind = ir::ParamKind::KeywordOnly;
      bareStar_.reset();
    } else if (!p.defaultValue && defaulted_) {
      fail(p.loc, "non-default argument follows default argument");
    }
    defaulted_ = defaulted_ || (p.kind == ir::ParamKind::Positional && p.defaultValue);
    out_.push_back(std::move(p));
  }
  std::vector<Param> finish() {
    if (bareStar_) fail(*bareStar_, "named arguments must follow bare *");
    return std::move(out_);
  }

 private:
  std::vector<Param> out_;
  bool starred_ = false, varKeywords_ = false, defaulted_ = false;
  std::optional<SourceLoc> bareStar_;  // a `*` no keyword-only parameter follows yet
};
}  // namespace

// parameter : NAME (COLON test)? (ASSIGN test)? | STAR NAME? | POWER NAME
std::vector<Param> AstBuilder::parameters(NNParser::ParametersContext* ctx) {
  ParamListBuilder list;
  for (auto* p : ctx->parameter()) {
    if (p->STAR() && !p->NAME()) {
      list.star(loc(p));
      continue;
    }
    Param param;
    param.name = p->NAME()->getText();
    param.loc = loc(p->NAME());
    if (p->STAR()) param.kind = ir::ParamKind::VarArgs;
    if (p->POWER()) param.kind = ir::ParamKind::VarKeywords;
    size_t next = 0;
    for (size_t i = 0; i < p->children.size(); ++i) {
      auto* term = dynamic_cast<antlr4::tree::TerminalNode*>(p->children[i]);
      if (!term) continue;
      size_t type = term->getSymbol()->getType();
      if (type == NNParser::COLON) param.annotation = test(p->test(next++));
      if (type == NNParser::ASSIGN) param.defaultValue = test(p->test(next++));
    }
    list.add(std::move(param));
  }
  return list.finish();
}

// lambda_param : NAME (ASSIGN test)? | STAR NAME? | POWER NAME
std::vector<Param> AstBuilder::lambdaParams(NNParser::Lambda_paramsContext* ctx) {
  ParamListBuilder list;
  if (!ctx) return list.finish();
  for (auto* p : ctx->lambda_param()) {
    if (p->STAR() && !p->NAME()) {
      list.star(loc(p));
      continue;
    }
    Param param;
    param.name = p->NAME()->getText();
    param.loc = loc(p->NAME());
    if (p->STAR()) param.kind = ir::ParamKind::VarArgs;
    if (p->POWER()) param.kind = ir::ParamKind::VarKeywords;
    if (p->test()) param.defaultValue = test(p->test());
    list.add(std::move(param));
  }
  return list.finish();
}

}  // namespace nn::frontend
