// Drives the generated ANTLR lexer and parser: reports the first lexical or
// syntax error through the diagnostics engine (no cascades) and hands the
// parse tree to the AST builder.
#include "frontend/parse.h"

#include <antlr4-runtime.h>

#include <cstdio>

#include "NNLexer.h"
#include "NNParser.h"
#include "frontend/ast_builder.h"
#include "support/utf8.h"

namespace nn::frontend {
namespace {

SourceLoc tokenLoc(uint32_t file, const antlr4::Token* t) {
  SourceLoc loc;
  loc.file = file;
  loc.line = static_cast<uint32_t>(t->getLine());
  loc.col = static_cast<uint32_t>(t->getCharPositionInLine()) + 1;
  loc.endLine = loc.line;
  size_t len = t->getType() == antlr4::Token::EOF ? 1 : t->getText().size();
  if (len == 0 || t->getText().find('\n') != std::string::npos) len = 1;
  loc.endCol = loc.col + static_cast<uint32_t>(len);
  return loc;
}

std::string describe(const antlr4::Token* t) {
  switch (t->getType()) {
    case antlr4::Token::EOF: return "end of file";
    case NNLexer::NEWLINE: return "end of line";
    case NNLexer::INDENT: return "indent";
    case NNLexer::DEDENT: return "dedent";
    default: {
      std::string quoted = "'";  // appended: GCC 12's -O3 warns falsely (-Wrestrict) on "'" + ...
      quoted += t->getText();
      return quoted + "'";
    }
  }
}

class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  explicit SyntaxErrorListener(uint32_t file) : file_(file) {}

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line,
                   size_t col, const std::string& msg, std::exception_ptr) override {
    SourceLoc loc;
    std::string text;
    if (offending) {
      loc = tokenLoc(file_, offending);
      auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
      antlr4::misc::IntervalSet expected;
      if (parser) expected = parser->getExpectedTokens();
      const auto& vocab = recognizer->getVocabulary();
      if (offending->getType() == NNLexer::INDENT) {
        text = "unexpected indent";
      } else if (expected.contains(size_t(NNLexer::COLON)) && expected.size() <= 3 &&
                 offending->getType() != NNLexer::COLON) {
        text = "expected ':'";
      } else if (offending->getType() == NNLexer::YIELD) {
        text = "'yield' is not supported";
      } else if (expected.size() == 1 && expected.getSingleElement() != ssize_t(antlr4::Token::EOF)) {
        std::string name = vocab.getLiteralName(expected.getSingleElement());
        if (name.empty()) name = vocab.getSymbolicName(expected.getSingleElement());
        if (expected.getSingleElement() == NNLexer::INDENT)
          text = "expected an indented block";
        else
          text = "expected " + name + " before " + describe(offending);
      } else if (expected.contains(size_t(NNLexer::INDENT))) {
        text = "expected an indented block";
      } else {
        text = "invalid syntax: unexpected " + describe(offending);
      }
    } else {
      loc = SourceLoc{file_, uint32_t(line), uint32_t(col + 1), uint32_t(line), uint32_t(col + 2)};
      text = "invalid syntax: " + msg;
    }
    fail(loc, text);
  }

 private:
  uint32_t file_;
};

// The generated parser recurses once per nested bracket level (through
// about twenty rules), once per prefix operator, once per nested `if`
// expression or lambda and once per `**` of a chain, and the lowering once
// per `and`/`or` operand and comparison of a chain, so such nesting is
// bounded before parsing to keep the native stack safe. The limits are CPython's where it has one.
constexpr int kMaxBracketDepth = 200;       // CPython: "too many nested parentheses"
constexpr int kMaxIndentDepth = 100;        // CPython: "too many levels of indentation"
constexpr int kMaxLineNestingTokens = 1000;  // prefix ops in a row; nesting operators per logical line

}  // namespace

void checkNesting(uint32_t file, antlr4::CommonTokenStream& tokens, const SourceLoc* at) {
  int brackets = 0, indents = 0, prefixRun = 0, nestedExprs = 0;
  size_t prev = NNLexer::NEWLINE;
  auto where = [&](const antlr4::Token* t) { return at ? *at : tokenLoc(file, t); };
  for (antlr4::Token* t : tokens.getTokens()) {
    size_t type = t->getType();
    bool prefix = false;
    switch (type) {
      case NNLexer::LPAREN: case NNLexer::LBRACK: case NNLexer::LBRACE:
        if (++brackets > kMaxBracketDepth) fail(where(t), "too many nested parentheses");
        break;
      case NNLexer::RPAREN: case NNLexer::RBRACK: case NNLexer::RBRACE: --brackets; break;
      case NNLexer::INDENT:
        if (++indents > kMaxIndentDepth) fail(where(t), "too many levels of indentation");
        break;
      case NNLexer::DEDENT: --indents; break;
      case NNLexer::NEWLINE: nestedExprs = 0; break;
      case NNLexer::PLUS: case NNLexer::MINUS: case NNLexer::TILDE:
        // Unary only when no operand ends right before it.
        prefix = prev != NNLexer::NAME && prev != NNLexer::INT_NUMBER && prev != NNLexer::FLOAT_NUMBER &&
                 prev != NNLexer::HEX_NUMBER && prev != NNLexer::BIN_NUMBER && prev != NNLexer::OCT_NUMBER &&
                 prev != NNLexer::STRING && prev != NNLexer::RPAREN && prev != NNLexer::RBRACK &&
                 prev != NNLexer::RBRACE && prev != NNLexer::NONE && prev != NNLexer::TRUE &&
                 prev != NNLexer::FALSE && prev != NNLexer::ELLIPSIS;
        break;
      case NNLexer::NOT: prefix = true; break;
      // Each of these nests what follows it one level deeper, in the parser
      // (`**` is right-associative) or in the lowering (`and`/`or` and
      // comparison chains short-circuit through nested conditions).
      case NNLexer::IF: case NNLexer::LAMBDA: case NNLexer::AND: case NNLexer::OR: case NNLexer::POWER:
      case NNLexer::LT: case NNLexer::GT: case NNLexer::EQ: case NNLexer::GE: case NNLexer::LE: case NNLexer::NE:
      case NNLexer::IN: case NNLexer::IS:
        if (++nestedExprs > kMaxLineNestingTokens)
          fail(where(t), "statement is too complex (more than 1000 nesting operators: 'if', 'lambda', 'and', 'or', "
                         "'**' or comparisons)");
        break;
      default: break;
    }
    prefixRun = prefix ? prefixRun + 1 : 0;
    if (prefixRun > kMaxLineNestingTokens) fail(where(t), "too many unary operators in a row");
    prev = type;
  }
}

namespace {

// The lexer's message for a character no token starts with: a control
// character (a NUL, an escape) is named by its code point, as CPython
// does, since quoting it would print it raw.
std::string invalidCharacter(const std::string& text) {
  char32_t cp = text.empty() ? 0 : decodeUtf8(text, 0).cp;
  if (cp >= 0x20 && (cp < 0x7F || cp >= 0xA0)) return "invalid character '" + text + "'";
  char name[16];
  std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(cp));
  return std::string("invalid non-printable character ") + name;
}

// Lexes the whole file and throws on the first lexical error.
void lexAll(uint32_t file, NNLexer& lexer, antlr4::CommonTokenStream& tokens) {
  lexer.removeErrorListeners();
  tokens.fill();
  SourceLoc best;
  std::string message;
  for (antlr4::Token* t : tokens.getTokens()) {
    if (t->getType() == NNLexer::ERROR_CHAR) {
      best = tokenLoc(file, t);
      message = invalidCharacter(t->getText());
      break;
    }
    if (t->getType() == NNLexer::UNTERMINATED_STRING) {
      best = tokenLoc(file, t);
      message = "unterminated string literal";
      break;
    }
  }
  for (const LexError& e : lexer.indent.errors()) {
    if (!best.valid() || e.line < best.line) {
      best = SourceLoc{file, uint32_t(e.line), uint32_t(e.col + 1), uint32_t(e.line), 0};
      message = e.message;
    }
    break;
  }
  if (best.valid()) fail(best, message);
  // A bracket still open at the end of the file is reported where it opened.
  std::vector<antlr4::Token*> open;
  for (antlr4::Token* t : tokens.getTokens()) {
    size_t type = t->getType();
    if (type == NNLexer::LPAREN || type == NNLexer::LBRACK || type == NNLexer::LBRACE) open.push_back(t);
    if ((type == NNLexer::RPAREN || type == NNLexer::RBRACK || type == NNLexer::RBRACE) && !open.empty())
      open.pop_back();
  }
  if (!open.empty()) fail(tokenLoc(file, open.front()), "'" + open.front()->getText() + "' was never closed");
  checkNesting(file, tokens);
}

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), 0 if malformed.
size_t utf8Length(const std::string& s, size_t i) {
  auto byte = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  unsigned b0 = byte(i);
  if (b0 < 0x80) return 1;
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return byte(k) >= lo && byte(k) <= hi; };
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    unsigned lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

// Source text must be UTF-8 (language.md §1); the first malformed byte is
// reported where it stands (the column counts characters, as tokens do).
void checkUtf8(const std::string& text, uint32_t file) {
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8Length(text, i);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(text[i]));
      fail(SourceLoc{file, line, col, line, col}, std::string("invalid UTF-8 in the source (byte ") + hex + ")");
    }
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += n;
  }
}

bool validUtf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8Length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace

std::unique_ptr<ast::Module> parseModule(SourceManager& sm, uint32_t file) {
  checkUtf8(sm.text(file), file);
  antlr4::ANTLRInputStream input(sm.text(file));
  NNLexer lexer(&input);
  antlr4::CommonTokenStream tokens(&lexer);
  lexAll(file, lexer, tokens);
  NNParser parser(&tokens);
  SyntaxErrorListener listener(file);
  parser.removeErrorListeners();
  parser.addErrorListener(&listener);
  // SLL prediction is much faster and exact for this grammar in practice;
  // fall back to full LL only if SLL fails.
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::SLL);
  auto errorStrategy = std::make_shared<antlr4::BailErrorStrategy>();
  NNParser::File_inputContext* tree = nullptr;
  try {
    parser.setErrorHandler(errorStrategy);
    tree = parser.file_input();
  } catch (const antlr4::ParseCancellationException&) {
    tokens.seek(0);
    parser.reset();
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::LL);
    tree = parser.file_input();
  }
  AstBuilder builder(sm, file);
  return builder.buildModule(tree);
}

void dumpTokens(SourceManager& sm, uint32_t file, std::ostream& os) {
  checkUtf8(sm.text(file), file);
  antlr4::ANTLRInputStream input(sm.text(file));
  NNLexer lexer(&input);
  antlr4::CommonTokenStream tokens(&lexer);
  lexAll(file, lexer, tokens);
  const auto& vocab = lexer.getVocabulary();
  for (antlr4::Token* t : tokens.getTokens()) {
    os << t->getLine() << ":" << t->getCharPositionInLine() + 1 << " "
       << (t->getType() == antlr4::Token::EOF ? std::string("EOF")
                                              : std::string(vocab.getSymbolicName(t->getType())));
    int type = static_cast<int>(t->getType());
    if (type == NNLexer::NAME || type == NNLexer::STRING || type == NNLexer::INT_NUMBER ||
        type == NNLexer::FLOAT_NUMBER || type == NNLexer::HEX_NUMBER)
      os << " " << t->getText();
    os << "\n";
  }
}

bool needsMoreInput(const std::string& text) {
  if (!validUtf8(text)) return false;  // parsing it reports where
  antlr4::ANTLRInputStream input(text);
  NNLexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  int depth = 0;
  bool blockOpen = false;
  const antlr4::Token* last = nullptr;
  for (antlr4::Token* t : tokens.getTokens()) {
    switch (t->getType()) {
      case NNLexer::LPAREN: case NNLexer::LBRACK: case NNLexer::LBRACE: ++depth; break;
      case NNLexer::RPAREN: case NNLexer::RBRACK: case NNLexer::RBRACE: --depth; break;
      case NNLexer::INDENT: blockOpen = true; break;
      default: break;
    }
    if (t->getType() != antlr4::Token::EOF && t->getType() != NNLexer::NEWLINE &&
        t->getType() != NNLexer::DEDENT)
      last = t;
  }
  if (depth > 0) return true;
  if (last && last->getType() == NNLexer::COLON) return true;
  // Inside an indented block the REPL waits for a blank line.
  if (blockOpen) return !(text.size() >= 2 && text.substr(text.size() - 2) == "\n\n");
  size_t n = text.size();
  return n >= 2 && text[n - 2] == '\\' && text[n - 1] == '\n';
}

}  // namespace nn::frontend
