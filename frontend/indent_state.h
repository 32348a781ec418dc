// Python-style INDENT/DEDENT synthesis for the generated ANTLR lexer. The
// lexer's NEWLINE token carries the next line's leading whitespace; this class
// compares it with a stack of indentation strings and queues NEWLINE, INDENT
// and DEDENT tokens. Blank and comment-only lines and newlines inside brackets
// produce nothing. Indentation errors (unexpected indent, a dedent to no
// enclosing level, tabs and spaces mixed inconsistently) are recorded with
// their position; the front end reports the first one.
#pragma once

#include <antlr4-runtime.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace nn::frontend {

struct LexError {
  size_t line = 0;
  size_t col = 0;  // 0-based
  std::string message;
};

class IndentState {
 public:
  void openBracket() { ++bracketDepth_; }
  void closeBracket() {
    if (bracketDepth_ > 0) --bracketDepth_;
  }

  const std::vector<LexError>& errors() const { return errors_; }

  template <class BaseNext>
  std::unique_ptr<antlr4::Token> next(antlr4::Lexer& lexer, BaseNext baseNext) {
    while (pending_.empty()) produce(lexer, baseNext);
    auto tok = std::move(pending_.front());
    pending_.pop_front();
    return tok;
  }

 private:
  template <class BaseNext>
  void produce(antlr4::Lexer& lexer, BaseNext baseNext);

  std::unique_ptr<antlr4::Token> synth(size_t type, const std::string& text, size_t line,
                                       size_t col) {
    auto tok = std::make_unique<antlr4::CommonToken>(type, text);
    tok->setLine(line);
    tok->setCharPositionInLine(col);
    return tok;
  }

  std::deque<std::unique_ptr<antlr4::Token>> pending_;
  std::vector<std::string> stack_{std::string()};
  int bracketDepth_ = 0;
  bool emittedAny_ = false;
  bool lastWasNewline_ = true;
  std::vector<LexError> errors_;
};

template <class BaseNext>
void IndentState::produce(antlr4::Lexer& lexer, BaseNext baseNext) {
  // Token types are looked up by name so this header does not depend on the
  // generated lexer it is included into.
  const auto& vocab = lexer.getVocabulary();
  auto typeOf = [&](const char* name) {
    for (size_t t = 0; t <= vocab.getMaxTokenType(); ++t)
      if (vocab.getSymbolicName(t) == name) return t;
    return size_t(0);
  };
  static thread_local size_t kNewline = 0, kIndent = 0, kDedent = 0;
  if (kNewline == 0) {
    kNewline = typeOf("NEWLINE");
    kIndent = typeOf("INDENT");
    kDedent = typeOf("DEDENT");
  }

  std::unique_ptr<antlr4::Token> tok = baseNext();
  if (tok->getType() == antlr4::Token::EOF) {
    size_t line = tok->getLine(), col = tok->getCharPositionInLine();
    if (emittedAny_ && !lastWasNewline_) pending_.push_back(synth(kNewline, "\n", line, col));
    while (stack_.size() > 1) {
      stack_.pop_back();
      pending_.push_back(synth(kDedent, "", line, col));
    }
    pending_.push_back(std::move(tok));
    return;
  }
  if (tok->getType() != kNewline) {
    if (!emittedAny_ && tok->getCharPositionInLine() > 0)
      errors_.push_back({tok->getLine(), 0, "unexpected indent"});
    emittedAny_ = true;
    lastWasNewline_ = false;
    pending_.push_back(std::move(tok));
    return;
  }
  // A NEWLINE: drop it inside brackets and before the first statement. It
  // ends the logical line where it stands; indentation is decided by the
  // next line that is not blank or a comment.
  if (bracketDepth_ > 0 || !emittedAny_) return;
  size_t next = lexer.getInputStream()->LA(1);
  if (next == '\n' || next == '\r' || next == '#' || next == static_cast<size_t>(antlr4::IntStream::EOF)) {
    if (!lastWasNewline_) {
      pending_.push_back(synth(kNewline, "\n", tok->getLine(), tok->getCharPositionInLine()));
      lastWasNewline_ = true;
    }
    return;
  }

  const std::string text = tok->getText();
  size_t pos = text.find_first_not_of("\r\n");
  std::string indent = pos == std::string::npos ? std::string() : text.substr(pos);
  size_t nextLine = tok->getLine() + 1;
  if (!lastWasNewline_) {
    pending_.push_back(synth(kNewline, "\n", tok->getLine(), tok->getCharPositionInLine()));
    lastWasNewline_ = true;
  }
  const std::string& top = stack_.back();
  if (indent == top) return;
  if (indent.size() > top.size() && indent.compare(0, top.size(), top) == 0) {
    stack_.push_back(indent);
    pending_.push_back(synth(kIndent, indent, nextLine, indent.size()));
    return;
  }
  if (indent.size() < top.size() && top.compare(0, indent.size(), indent) == 0) {
    while (stack_.size() > 1 && stack_.back().size() > indent.size()) {
      stack_.pop_back();
      pending_.push_back(synth(kDedent, "", nextLine, indent.size()));
    }
    if (stack_.back() != indent)
      errors_.push_back({nextLine, 0, "unindent does not match any outer indentation level"});
    return;
  }
  errors_.push_back({nextLine, 0, "inconsistent use of tabs and spaces in indentation"});
}

}  // namespace nn::frontend
