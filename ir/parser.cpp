// Parser for the IR text written by printer.cpp (see the format there).
// Values are resolved by name within a function; a use before definition is
// an error, as is an unknown op or a malformed attribute.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "ir/text.h"

namespace nn::ir {
namespace {

class Parser {
 public:
  Parser(const std::string& text, uint32_t file) : s_(text), file_(file) {}

  std::unique_ptr<Graph> graph() {
    auto g = std::make_unique<Graph>();
    skipSpace();
    if (peekWord() == "module") {
      word();
      g->setSourceName(string());
    }
    skipSpace();
    while (!atEnd()) {
      function(*g);
      skipSpace();
    }
    return g;
  }

 private:
  [[noreturn]] void error(const std::string& msg) {
    fail(SourceLoc{file_, line_, col(), line_, col() + 1}, "IR parse error: " + msg);
  }
  uint32_t col() const { return static_cast<uint32_t>(pos_ - lineStart_ + 1); }
  bool atEnd() const { return pos_ >= s_.size(); }
  char peek() const { return atEnd() ? '\0' : s_[pos_]; }
  void advance() {
    if (s_[pos_] == '\n') {
      ++line_;
      lineStart_ = pos_ + 1;
    }
    ++pos_;
  }
  void skipSpace() {
    while (!atEnd()) {
      if (std::isspace(static_cast<unsigned char>(peek()))) {
        advance();
      } else if (peek() == '#' || (peek() == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/')) {
        while (!atEnd() && peek() != '\n') advance();
      } else {
        break;
      }
    }
  }
  bool accept(char c) {
    skipSpace();
    if (peek() != c) return false;
    advance();
    return true;
  }
  void expect(char c) {
    if (!accept(c)) error(std::string("expected '") + c + "'");
  }
  static bool wordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }
  std::string peekWord() {
    skipSpace();
    size_t p = pos_;
    while (p < s_.size() && wordChar(s_[p])) ++p;
    return s_.substr(pos_, p - pos_);
  }
  std::string word() {
    skipSpace();
    std::string w;
    while (!atEnd() && wordChar(peek())) {
      w += peek();
      advance();
    }
    if (w.empty()) error("expected a name");
    return w;
  }
  std::string string() {
    skipSpace();
    if (peek() != '"') error("expected a string");
    advance();
    std::string out;
    while (!atEnd() && peek() != '"') {
      char c = peek();
      advance();
      if (c != '\\') {
        out += c;
        continue;
      }
      char e = peek();
      advance();
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'x': {
          std::string hex = s_.substr(pos_, 2);
          advance();
          advance();
          out += static_cast<char>(std::strtol(hex.c_str(), nullptr, 16));
          break;
        }
        default: out += e;
      }
    }
    if (atEnd()) error("unterminated string");
    advance();
    return out;
  }
  uint32_t number() {
    skipSpace();
    size_t p = pos_;
    while (!atEnd() && std::isdigit(static_cast<unsigned char>(peek()))) advance();
    if (p == pos_) error("expected a number");
    uint32_t n = 0;
    for (size_t k = p; k < pos_; ++k)
      if (__builtin_mul_overflow(n, 10u, &n) || __builtin_add_overflow(n, static_cast<uint32_t>(s_[k] - '0'), &n))
        error("number too large");
    return n;
  }
  std::string valueName() {
    skipSpace();
    if (peek() != '%') error("expected a value name");
    advance();
    return word();
  }
  Type type() {
    std::string w = word();
    // A tensor shape: everything up to the closing bracket.
    if (!atEnd() && peek() == '[') {
      while (!atEnd() && peek() != ']' && peek() != '\n') {
        w += peek();
        advance();
      }
      if (peek() != ']') error("unterminated tensor shape");
      w += peek();
      advance();
    }
    auto t = Type::parse(w);
    if (!t) error("unknown type '" + w + "'");
    return *t;
  }
  // A return annotation: its text runs to the function's `loc(` or `{`
  // (neither occurs in an annotation).
  Annotation annotation() {
    skipSpace();
    size_t start = pos_;
    while (!atEnd() && peek() != '{' && peek() != '\n' && s_.compare(pos_, 4, "loc(") != 0) advance();
    std::string text = s_.substr(start, pos_ - start);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    std::optional<Annotation> a = Annotation::parse(text);
    if (!a) error("unknown annotation '" + text + "'");
    return *a;
  }
  Value* lookup(const std::string& name) {
    auto it = values_.find(name);
    if (it == values_.end()) error("use of undefined value %" + name);
    return it->second;
  }
  void define(const std::string& name, Value* v) {
    if (!values_.emplace(name, v).second) error("value %" + name + " defined twice");
  }

  SourceLoc optionalLoc(const char* keyword = "loc") {
    if (peekWord() != keyword) return {};
    word();
    expect('(');
    SourceLoc l;
    l.file = file_;
    l.line = number();
    expect(':');
    l.col = number();
    expect('-');
    l.endLine = number();
    expect(':');
    l.endCol = number();
    expect(')');
    return l;
  }

  Attr attrValue() {
    skipSpace();
    char c = peek();
    if (c == '"') return string();
    if (c == '[') {
      advance();
      std::vector<std::string> list;
      if (!accept(']')) {
        do list.push_back(string());
        while (accept(','));
        expect(']');
      }
      return list;
    }
    if (c == '(') {
      advance();
      Ints ints;
      if (!accept(')')) {
        do {
          Attr a = attrValue();
          if (!std::holds_alternative<int64_t>(a)) error("expected an integer in an int list");
          ints.push_back(std::get<int64_t>(a));
        } while (accept(','));
        expect(')');
      }
      return ints;
    }
    size_t p = pos_;
    while (!atEnd() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '-' ||
                        peek() == '+' || peek() == '.'))
      advance();
    std::string tok = s_.substr(p, pos_ - p);
    if (tok == "true") return true;
    if (tok == "false") return false;
    if (tok == "none") return NoneAttr{};
    if (tok == "inf") return HUGE_VAL;
    if (tok == "-inf") return -HUGE_VAL;
    if (tok == "nan") return std::nan("");
    if (tok.empty()) error("expected an attribute value");
    bool isFloat = tok.find_first_of(".eE") != std::string::npos;
    char* end = nullptr;
    if (isFloat) {
      double d = std::strtod(tok.c_str(), &end);
      if (*end) error("bad number '" + tok + "'");
      return d;
    }
    long long i = std::strtoll(tok.c_str(), &end, 10);
    if (*end) error("bad number '" + tok + "'");
    return static_cast<int64_t>(i);
  }

  void function(Graph& g) {
    if (word() != "func") error("expected 'func'");
    expect('@');
    std::string name = word();
    values_.clear();
    std::vector<std::tuple<std::string, Type, ParamKind>> params;
    expect('(');
    if (!accept(')')) {
      bool starred = false;
      while (true) {
        ParamKind kind = starred ? ParamKind::KeywordOnly : ParamKind::Positional;
        if (accept('*')) {
          if (accept('*')) {
            kind = ParamKind::VarKeywords;
          } else {
            starred = true;
            kind = ParamKind::VarArgs;
            if (accept(',')) continue;  // a bare `*`
          }
        }
        std::string p = valueName();
        // %N names a node's result: a parameter so named would collide with
        // the value the printer numbers N.
        if (p.empty() || std::isdigit(static_cast<unsigned char>(p[0])))
          error("a parameter's name starts with a letter or '_' (%" + p + " would name a node's result)");
        expect(':');
        params.emplace_back(p, type(), kind);
        if (!accept(',')) break;
      }
      expect(')');
    }
    std::vector<std::tuple<std::string, Type, std::string>> captures;
    if (peekWord() == "captures") {
      word();
      expect('(');
      do {
        std::string v = valueName();
        expect(':');
        Type t = type();
        captures.emplace_back(v, t, string());
      } while (accept(','));
      expect(')');
    }
    std::optional<Annotation> returns;
    skipSpace();
    if (peek() == '-') {
      expect('-');
      expect('>');
      returns = annotation();
    }
    SourceLoc l = optionalLoc();
    Function* f = g.addFunction(name, l);
    if (returns) {
      returns->loc = l;
      f->setReturnAnnotation(std::move(*returns));
    }
    for (auto& [p, t, kind] : params) define(p, f->addParam(p, t, kind));
    for (auto& [v, t, n] : captures) define(v, f->addCapture(n, t));
    expect('{');
    nodes(f->body());
    f->number();
  }

  // Parses nodes until a closing '}' (consumed; returns true) or a '^'
  // block label (left in place; returns false).
  bool nodes(Block* b) {
    while (true) {
      skipSpace();
      if (atEnd()) error("unexpected end of input");
      if (peek() == '}') {
        advance();
        return true;
      }
      if (peek() == '^') return false;
      node(b);
    }
  }

  void node(Block* b) {
    std::vector<std::string> results;
    skipSpace();
    if (peek() == '%') {
      do results.push_back(valueName());
      while (accept(','));
      expect('=');
    }
    std::string opName = word();
    Op op;
    if (!opFromName(opName, op)) error("unknown op '" + opName + "'");
    auto owned = std::make_unique<Node>(op, SourceLoc{});
    Node* n = b->append(std::move(owned));
    skipSpace();
    if (peek() == '%') {
      do n->addOperand(lookup(valueName()));
      while (accept(','));
    }
    if (accept('{')) {
      do {
        std::string key = word();
        expect('=');
        n->setAttr(key, attrValue());
      } while (accept(','));
      expect('}');
    }
    std::vector<Type> types;
    if (accept(':')) {
      do types.push_back(type());
      while (accept(','));
    }
    if (types.size() != results.size()) error("result count does not match the type list");
    n->setLoc(optionalLoc());
    std::vector<SourceLoc> sites;
    while (peekWord() == "inlined") sites.push_back(optionalLoc("inlined"));
    n->setInlinedAt(std::move(sites));
    std::string tokenName;
    if (peekWord() == "order") {
      word();
      expect('(');
      std::vector<Value*> after;
      skipSpace();
      while (peek() == '%') {
        after.push_back(lookup(valueName()));
        if (!accept(',')) break;
        skipSpace();
      }
      expect('-');
      expect('>');
      tokenName = valueName();
      expect(')');
      n->setOrder(std::move(after));
    }
    for (size_t i = 0; i < results.size(); ++i) define(results[i], n->addResult(types[i]));
    if (!tokenName.empty()) define(tokenName, n->token());
    skipSpace();
    if (n->info().numBlocks > 0 && accept('{')) {
      skipSpace();
      while (peek() == '^') {
        advance();
        word();  // the block label is implied by its position
        Block* inner = n->addBlock();
        expect('(');
        if (!accept(')')) {
          do {
            std::string a = valueName();
            expect(':');
            define(a, inner->addArg(type()));
          } while (accept(','));
          expect(')');
        }
        expect(':');
        if (nodes(inner)) break;
        skipSpace();
      }
    }
  }

  const std::string& s_;
  uint32_t file_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t lineStart_ = 0;
  std::unordered_map<std::string, Value*> values_;
};

}  // namespace

std::unique_ptr<Graph> parse(SourceManager& sm, uint32_t file) {
  Parser p(sm.text(file), file);
  auto g = p.graph();
  g->setFile(file);
  return g;
}

}  // namespace nn::ir
