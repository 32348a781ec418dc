// Lexer tests: INDENT/DEDENT synthesis and lexical errors, checked through
// the token dump that `nn --emit=tokens` prints.
#include <gtest/gtest.h>

#include <sstream>

#include "frontend/parse.h"

namespace {

// Token names only, space separated.
std::string kinds(const std::string& src) {
  nn::SourceManager sm;
  uint32_t f = sm.add("t.nn", src);
  std::ostringstream os;
  nn::frontend::dumpTokens(sm, f, os);
  std::istringstream in(os.str());
  std::string out, line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string pos, kind;
    ls >> pos >> kind;
    out += (out.empty() ? "" : " ") + kind;
  }
  return out;
}

std::string lexError(const std::string& src) {
  nn::SourceManager sm;
  uint32_t f = sm.add("t.nn", src);
  std::ostringstream os;
  try {
    nn::frontend::dumpTokens(sm, f, os);
  } catch (const nn::NnError& e) {
    return std::to_string(e.diag().loc.line) + ":" + std::to_string(e.diag().loc.col) + ": " + e.diag().message;
  }
  return "no error";
}

TEST(Lexer, SimpleBlock) {
  EXPECT_EQ(kinds("def f(x):\n    if x > 0:\n        return x\n    return -x\n"),
            "DEF NAME LPAREN NAME RPAREN COLON NEWLINE INDENT IF NAME GT INT_NUMBER COLON NEWLINE INDENT "
            "RETURN NAME NEWLINE DEDENT RETURN MINUS NAME NEWLINE DEDENT EOF");
}

TEST(Lexer, BlankLinesAndComments) {
  EXPECT_EQ(kinds("\n\n# c\nx = 1\n\n   \n  # indented comment\ny = 2\n"),
            "NAME ASSIGN INT_NUMBER NEWLINE NAME ASSIGN INT_NUMBER NEWLINE EOF");
}

TEST(Lexer, BracketsSpanLines) {
  EXPECT_EQ(kinds("x = (1,\n     2)\ny = [\n  3,\n]\n"),
            "NAME ASSIGN LPAREN INT_NUMBER COMMA INT_NUMBER RPAREN NEWLINE NAME ASSIGN LBRACK INT_NUMBER COMMA "
            "RBRACK NEWLINE EOF");
}

TEST(Lexer, BackslashContinuation) {
  EXPECT_EQ(kinds("x = 1 + \\\n    2\n"), "NAME ASSIGN INT_NUMBER PLUS INT_NUMBER NEWLINE EOF");
}

TEST(Lexer, MissingFinalNewline) {
  EXPECT_EQ(kinds("if a:\n    b"), "IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT EOF");
}

TEST(Lexer, SeveralDedentsAtOnce) {
  EXPECT_EQ(kinds("if a:\n  if b:\n    c\nd\n"),
            "IF NAME COLON NEWLINE INDENT IF NAME COLON NEWLINE INDENT NAME NEWLINE DEDENT DEDENT NAME NEWLINE EOF");
}

TEST(Lexer, TabsAreIndentation) {
  EXPECT_EQ(kinds("if a:\n\tb\n\tc\n"), "IF NAME COLON NEWLINE INDENT NAME NEWLINE NAME NEWLINE DEDENT EOF");
}

TEST(Lexer, MixedTabsAndSpacesIsAnError) {
  EXPECT_EQ(lexError("if a:\n\tb\n        c\n"), "3:1: inconsistent use of tabs and spaces in indentation");
}

TEST(Lexer, BadDedentIsAnError) {
  EXPECT_EQ(lexError("if a:\n    b\n  c\n"), "3:1: unindent does not match any outer indentation level");
}

TEST(Lexer, UnexpectedIndentAtStart) { EXPECT_EQ(lexError("  x = 1\n"), "1:1: unexpected indent"); }

TEST(Lexer, UnterminatedString) {
  EXPECT_EQ(lexError("x = 1\ns = \"abc\n"), "2:5: unterminated string literal");
}

TEST(Lexer, InvalidCharacter) { EXPECT_EQ(lexError("x = 1 $ 2\n"), "1:7: invalid character '$'"); }

// A control character is named by its code point, not printed raw.
TEST(Lexer, InvalidNonPrintableCharacter) {
  EXPECT_EQ(lexError(std::string("x = 1\n\x01y = 2\n")), "2:1: invalid non-printable character U+0001");
  EXPECT_EQ(lexError(std::string("x = \0\n", 6)), "1:5: invalid non-printable character U+0000");
  EXPECT_EQ(lexError("x = 1 \x1b[0m\n"), "1:7: invalid non-printable character U+001B");
}

TEST(Lexer, Numbers) {
  EXPECT_EQ(kinds("1_000 0x1f 1.5 .5 1e-3 3."), "INT_NUMBER HEX_NUMBER FLOAT_NUMBER FLOAT_NUMBER FLOAT_NUMBER FLOAT_NUMBER NEWLINE EOF");
}

TEST(Lexer, NeedsMoreInput) {
  using nn::frontend::needsMoreInput;
  EXPECT_TRUE(needsMoreInput("def f():\n"));
  EXPECT_TRUE(needsMoreInput("def f():\n    return 1\n"));
  EXPECT_FALSE(needsMoreInput("def f():\n    return 1\n\n"));
  EXPECT_TRUE(needsMoreInput("x = (1,\n"));
  EXPECT_FALSE(needsMoreInput("x = 1\n"));
}

}  // namespace
