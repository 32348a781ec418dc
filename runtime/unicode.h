// What strs need of Unicode, with Python 3's meaning (UTF-8 by code point
// is support/utf8.h's): whitespace and line breaks as Python defines them,
// and character classes and letter case from Unicode's data through ICU
// (libicuuc): general categories, the Numeric_Type, Cased and
// Case_Ignorable properties, and the full case mappings, SpecialCasing's
// one-to-many ones included (ß to SS) and no language's rules applied, as
// in Python. ASCII takes no table.
#pragma once

#include <string>

#include "support/utf8.h"

namespace nn::rt {

// Python's str.isspace: bidirectional class WS, B or S, or category Zs.
bool isPythonSpace(char32_t c);
// Python's line boundaries (str.splitlines).
bool isLineBreak(char32_t c);
// Python's str.isprintable for one code point: not a control, format,
// surrogate, private-use, unassigned or separator character (the space
// excepted).
bool isPrintable(char32_t c);

// The classes of Python's str.isalpha (category L), isdecimal (Nd),
// isdigit (Numeric_Type Decimal or Digit) and isnumeric (any
// Numeric_Type).
bool isAlpha(char32_t c);
bool isDecimal(char32_t c);
bool isDigit(char32_t c);
bool isNumeric(char32_t c);
// Letter case: the Uppercase, Lowercase, Cased and Case_Ignorable
// properties, and category Lt (ǅ).
bool isUppercase(char32_t c);
bool isLowercase(char32_t c);
bool isTitlecase(char32_t c);
bool isCased(char32_t c);
bool isCaseIgnorable(char32_t c);
// str.isidentifier: XID_Start or '_' first, XID_Continue after.
bool isIdentifierStart(char32_t c);
bool isIdentifierContinue(char32_t c);

// s with each decimal digit of any script as its ASCII digit and each
// whitespace character as a space, other non-ASCII characters as '?'
// (Python's reading of a number's text).
std::string asciiDigitsAndSpaces(const std::string& s);

enum class CaseMapping { Upper, Lower, Title, Fold };
// Appends the full mapping of the UTF-8 text [s, s + n) (Title: of one
// code point; Lower: the final-sigma rule sees only this text).
void appendCaseMapped(const char* s, size_t n, CaseMapping m, std::string& out);
// s upper-cased, lower-cased (Σ to ς at the end of a word) or folded (not
// Title). A malformed byte is kept as it is.
std::string caseMapped(const std::string& s, CaseMapping m);

}  // namespace nn::rt
