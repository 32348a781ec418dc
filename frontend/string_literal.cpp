// String literals: prefixes, escape sequences, implicit concatenation of
// adjacent literals, and f-strings, whose replacement fields are parsed as
// expressions with positions inside the original line.
#include <antlr4-runtime.h>

#include "NNLexer.h"
#include "frontend/ast_builder.h"
#include "support/utf8.h"

namespace nn::frontend {

using namespace nn::ast;

namespace {

struct Literal {
  bool raw = false, fstr = false, bytes = false;
  size_t bodyStart = 0;  // offset of the body inside the token text
  std::string body;      // text between the quotes, undecoded
};

// Where the replacement field whose expression starts at b[start] ends its
// expression: the first '!', ':' or '}' outside brackets and quotes
// (b.size() when there is none).
size_t fieldEnd(const std::string& b, size_t start) {
  int depth = 0;
  char quote = 0;
  size_t j = start;
  for (; j < b.size(); ++j) {
    char d = b[j];
    if (quote) {
      if (d == quote) quote = 0;
      continue;
    }
    if (d == '\'' || d == '"') {
      quote = d;
      continue;
    }
    if (d == '(' || d == '[' || d == '{') ++depth;
    else if (d == ')' || d == ']' || (d == '}' && depth > 0)) --depth;
    else if (depth == 0 && (d == '}' || d == ':' || (d == '!' && j + 1 < b.size() && b[j + 1] != '='))) break;
  }
  return j;
}

Literal splitLiteral(const std::string& text) {
  Literal lit;
  size_t i = 0;
  while (i < text.size() && text[i] != '\'' && text[i] != '"') {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    if (c == 'r') lit.raw = true;
    if (c == 'f') lit.fstr = true;
    if (c == 'b') lit.bytes = true;
    ++i;
  }
  size_t q = (text.compare(i, 3, "'''") == 0 || text.compare(i, 3, "\"\"\"") == 0) ? 3 : 1;
  lit.bodyStart = i + q;
  lit.body = text.substr(i + q, text.size() - i - 2 * q);
  return lit;
}

// Decodes Python escape sequences; `err` receives the offset of a bad one.
std::string decode(const std::string& s, bool raw, size_t& errAt, std::string& err) {
  if (raw) return s;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      out += c;
      continue;
    }
    char e = s[++i];
    switch (e) {
      case '\n': break;  // line continuation inside a string
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'x': case 'u': case 'U': {
        size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (i + n >= s.size()) {
          errAt = i - 1;
          err = "truncated \\" + std::string(1, e) + " escape";
          return out;
        }
        std::string hex = s.substr(i + 1, n);
        if (hex.size() != n || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
          errAt = i - 1;
          err = "truncated \\" + std::string(1, e) + " escape";
          return out;
        }
        appendUtf8(static_cast<char32_t>(std::stoul(hex, nullptr, 16)), out);
        i += n;
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t v = 0;
          size_t k = 0;
          while (k < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7') v = v * 8 + (s[i++] - '0'), ++k;
          --i;
          appendUtf8(static_cast<char32_t>(v), out);
        } else {
          out += '\\';
          out += e;
        }
    }
  }
  return out;
}

}  // namespace

// Parses the text of one f-string replacement field as an expression whose
// locations point into the enclosing line.
ExprPtr AstBuilder::parseFieldExpr(const std::string& text, uint32_t line, uint32_t col) {
  antlr4::ANTLRInputStream input(text);
  NNLexer lexer(&input);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  SourceLoc l{file_, line, col, line, col + static_cast<uint32_t>(text.size())};
  checkNesting(file_, tokens, &l);
  NNParser parser(&tokens);
  parser.removeErrorListeners();
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  NNParser::Eval_inputContext* tree = nullptr;
  try {
    tree = parser.eval_input();
  } catch (const antlr4::ParseCancellationException&) {
    fail(l, "invalid expression in f-string");
  }
  AstBuilder sub(sm_, file_, line - 1, col - 1);
  return sub.buildEvalInput(tree);
}

size_t AstBuilder::fieldTail(const std::string& b, size_t j, SourceLoc tl, size_t bodyStart, bool inSpec,
                             FStrPart& part) {
  if (j < b.size() && b[j] == '!') {
    if (j + 1 >= b.size() || (b[j + 1] != 'r' && b[j + 1] != 's'))
      fail(tl, "f-string: invalid conversion character: expected 's' or 'r'");
    part.conversion = b[j + 1];
    j += 2;
  }
  if (j < b.size() && b[j] == ':') {
    // The spec, with its own replacement fields (f"{x:>{width}}"), whose
    // values are formatted into it before it formats x.
    size_t k = j + 1, text = k;
    while (k < b.size() && b[k] != '}') {
      if (b[k] != '{') {
        ++k;
        continue;
      }
      if (inSpec) fail(tl, "f-string: expressions nested too deeply");
      if (k > text) part.specFields.push_back(FStrPart{b.substr(text, k - text), nullptr, 0, {}, {}});
      size_t end = fieldEnd(b, k + 1);
      if (end >= b.size()) fail(tl, "f-string: expecting '}'");
      std::string inner = b.substr(k + 1, end - k - 1);
      if (inner.find_first_not_of(" \t") == std::string::npos) fail(tl, "f-string: empty expression not allowed");
      FStrPart field;
      field.expr = parseFieldExpr(inner, tl.line, tl.col + static_cast<uint32_t>(bodyStart + k + 1));
      end = fieldTail(b, end, tl, bodyStart, /*inSpec=*/true, field);
      part.specFields.push_back(std::move(field));
      k = text = end + 1;
    }
    if (part.specFields.empty())
      part.spec = b.substr(j + 1, k - j - 1);
    else if (k > text)
      part.specFields.push_back(FStrPart{b.substr(text, k - text), nullptr, 0, {}, {}});
    j = k;
  }
  if (j >= b.size() || b[j] != '}') fail(tl, "f-string: expecting '}'");
  return j;
}

ExprPtr AstBuilder::strings(NNParser::AtomContext* ctx) {
  SourceLoc whole = loc(ctx);
  std::vector<FStrPart> parts;
  bool anyF = false;
  for (auto* node : ctx->STRING()) {
    antlr4::Token* tok = node->getSymbol();
    SourceLoc tl = loc(tok);
    Literal lit = splitLiteral(tok->getText());
    if (lit.bytes) fail(tl, "bytes literals are not supported");
    size_t errAt = 0;
    std::string err;
    if (!lit.fstr) {
      std::string s = decode(lit.body, lit.raw, errAt, err);
      if (!err.empty()) fail(tl, err);
      if (!parts.empty() && !parts.back().expr) parts.back().literal += s;
      else parts.push_back(FStrPart{s, nullptr, 0, {}, {}});
      continue;
    }
    anyF = true;
    const std::string& b = lit.body;
    std::string pending;
    auto flush = [&] {
      std::string s = decode(pending, lit.raw, errAt, err);
      if (!err.empty()) fail(tl, err);
      if (!parts.empty() && !parts.back().expr) parts.back().literal += s;
      else if (!s.empty()) parts.push_back(FStrPart{s, nullptr, 0, {}, {}});
      pending.clear();
    };
    for (size_t i = 0; i < b.size(); ++i) {
      char c = b[i];
      if (c == '{' && i + 1 < b.size() && b[i + 1] == '{') { pending += '{'; ++i; continue; }
      if (c == '}' && i + 1 < b.size() && b[i + 1] == '}') { pending += '}'; ++i; continue; }
      if (c == '}') fail(tl, "f-string: single '}' is not allowed");
      if (c != '{') { pending += c; continue; }
      flush();
      size_t start = i + 1, j = fieldEnd(b, start);
      if (j >= b.size()) fail(tl, "f-string: expecting '}'");
      std::string exprText = b.substr(start, j - start);
      // f"{x=}" / f"{x = }": the text itself, then the value (its repr
      // unless a conversion or format spec is given).
      bool selfDocumenting = false;
      size_t lastChar = exprText.find_last_not_of(" \t");
      if (lastChar != std::string::npos && exprText[lastChar] == '=' &&
          (lastChar == 0 || std::string("=!<>").find(exprText[lastChar - 1]) == std::string::npos)) {
        selfDocumenting = true;
        pending += exprText;
        flush();
        exprText = exprText.substr(0, lastChar);
      }
      if (exprText.find_first_not_of(" \t") == std::string::npos)
        fail(tl, "f-string: empty expression not allowed");
      FStrPart part;
      uint32_t col = tl.col + static_cast<uint32_t>(lit.bodyStart + start);
      part.expr = parseFieldExpr(exprText, tl.line, col);
      j = fieldTail(b, j, tl, lit.bodyStart, /*inSpec=*/false, part);
      if (selfDocumenting && !part.conversion && part.spec.empty() && part.specFields.empty())
        part.conversion = 'r';
      parts.push_back(std::move(part));
      i = j;
    }
    flush();
  }
  if (!anyF) {
    auto s = std::make_unique<StrExpr>(whole);
    if (!parts.empty()) s->value = parts[0].literal;
    return s;
  }
  auto f = std::make_unique<FStrExpr>(whole);
  f->parts = std::move(parts);
  return f;
}

}  // namespace nn::frontend
