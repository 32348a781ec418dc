// Turns ANTLR parse-tree contexts into the project's AST. This header is
// private to frontend/ (it names generated ANTLR types); everything else sees
// only ast.h. Statements are built in ast_builder_stmt.cpp, expressions in
// ast_builder_expr.cpp, string and f-string literals in string_literal.cpp.
#pragma once

#include <antlr4-runtime.h>

#include "NNParser.h"
#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace nn::frontend {

// Rejects token streams that would nest deeper than the native stack allows
// (brackets, indentation, chains of nesting operators), at the offending
// token or, for a sub-expression parsed on its own (an f-string field), at
// `at` (parse.cpp).
void checkNesting(uint32_t file, antlr4::CommonTokenStream& tokens, const SourceLoc* at = nullptr);

class AstBuilder {
 public:
  AstBuilder(SourceManager& sm, uint32_t file, uint32_t lineOffset = 0, uint32_t colOffset = 0)
      : sm_(sm), file_(file), lineOffset_(lineOffset), colOffset_(colOffset) {}

  std::unique_ptr<ast::Module> buildModule(NNParser::File_inputContext* ctx);
  ast::ExprPtr buildEvalInput(NNParser::Eval_inputContext* ctx);

 private:
  // statements (ast_builder_stmt.cpp)
  void stmt(NNParser::StmtContext* ctx, ast::Body& out);
  void simpleStmt(NNParser::Simple_stmtContext* ctx, ast::Body& out);
  ast::StmtPtr exprStmt(NNParser::Expr_stmtContext* ctx);
  ast::StmtPtr importStmt(NNParser::Import_stmtContext* ctx);
  ast::StmtPtr compoundStmt(NNParser::Compound_stmtContext* ctx);
  ast::StmtPtr ifStmt(NNParser::If_stmtContext* ctx);
  ast::StmtPtr funcDef(NNParser::FuncdefContext* ctx);
  ast::Body block(NNParser::BlockContext* ctx);
  std::vector<ast::Param> parameters(NNParser::ParametersContext* ctx);
  std::vector<ast::Param> lambdaParams(NNParser::Lambda_paramsContext* ctx);

  // expressions (ast_builder_expr.cpp); expr() and test() check depth
  ast::ExprPtr expr(antlr4::ParserRuleContext* ctx) { return bounded(exprRule(ctx)); }
  ast::ExprPtr test(NNParser::TestContext* ctx) { return bounded(testRule(ctx)); }
  ast::ExprPtr exprRule(antlr4::ParserRuleContext* ctx);
  ast::ExprPtr testRule(NNParser::TestContext* ctx);
  // Sets e->depth from its children; fails past kMaxExprDepth.
  ast::ExprPtr bounded(ast::ExprPtr e);
  ast::ExprPtr lambda(antlr4::ParserRuleContext* ctx, NNParser::Lambda_paramsContext* params,
                      antlr4::ParserRuleContext* body);
  ast::ExprPtr comparison(NNParser::ComparisonContext* ctx);
  ast::ExprPtr binaryChain(antlr4::ParserRuleContext* ctx);
  ast::ExprPtr factor(NNParser::FactorContext* ctx);
  ast::ExprPtr power(NNParser::PowerContext* ctx);
  ast::ExprPtr atomExpr(NNParser::Atom_exprContext* ctx);
  ast::ExprPtr atom(NNParser::AtomContext* ctx);
  ast::ExprPtr number(NNParser::NumberContext* ctx);
  ast::ExprPtr trailer(ast::ExprPtr base, NNParser::TrailerContext* ctx, SourceLoc start);
  ast::ExprPtr subscripts(NNParser::SubscriptlistContext* ctx);
  ast::ExprPtr subscript(NNParser::SubscriptContext* ctx);
  ast::ExprPtr sequence(antlr4::ParserRuleContext* ctx, bool isList);
  ast::ExprPtr tupleOf(antlr4::ParserRuleContext* ctx, bool forceTuple);
  ast::ExprPtr dictMaker(NNParser::AtomContext* atom, NNParser::DictorsetmakerContext* ctx);
  void callArgs(ast::CallExpr& call, NNParser::ArglistContext* ctx);
  void comprehension(NNParser::Comp_forContext* ctx, std::vector<ast::Comprehension>& out);

  // literals (string_literal.cpp)
  ast::ExprPtr strings(NNParser::AtomContext* ctx);
  ast::ExprPtr parseFieldExpr(const std::string& text, uint32_t line, uint32_t col);
  // After an f-string field's expression (b[j] is '!', ':' or '}'): its
  // conversion and format spec into `part`, the spec's own fields parsed
  // too unless this is one (inSpec); returns where its '}' is.
  size_t fieldTail(const std::string& b, size_t j, SourceLoc tl, size_t bodyStart, bool inSpec, ast::FStrPart& part);

  [[noreturn]] void unsupported(antlr4::ParserRuleContext* ctx, const std::string& what);

  SourceLoc loc(antlr4::ParserRuleContext* ctx) const;
  SourceLoc loc(antlr4::Token* tok) const;
  SourceLoc loc(antlr4::tree::TerminalNode* node) const { return loc(node->getSymbol()); }

  SourceManager& sm_;
  uint32_t file_;
  uint32_t lineOffset_, colOffset_;  // for f-string fields parsed on their own
};

}  // namespace nn::frontend
