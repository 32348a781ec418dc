// What strs need of Unicode, with Python's meaning (UTF-8 by code point is
// support/utf8.h's): Python's whitespace, line breaks and printable
// characters, and letter case and classes from the C.UTF-8 locale's tables
// (glibc's cover Unicode; ASCII where that locale is missing). Case maps one
// code point to one here; stdlib/str_methods.cpp adds the one-to-many
// mappings Latin text meets (ß to SS).
#pragma once

#include <locale>
#include <string>

#include "support/utf8.h"

namespace nn::rt {

// Python's str.isspace: bidirectional class WS, B or S, or category Zs.
bool isPythonSpace(char32_t c);
// Python's line boundaries (str.splitlines).
bool isLineBreak(char32_t c);
// Python's str.isprintable for one code point: not a control, format,
// private-use, unassigned or separator character (the space excepted).
bool isPrintable(char32_t c);

// The locale's classes (std::ctype_base::alpha, digit, alnum, ...) and case.
bool hasClass(std::ctype_base::mask m, char32_t c);
char32_t toUpper(char32_t c);
char32_t toLower(char32_t c);

}  // namespace nn::rt
