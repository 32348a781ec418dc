// Python's whitespace and line breaks, and Unicode's classes and case
// mappings through ICU (see unicode.h).
#include "runtime/unicode.h"

#include <unicode/casemap.h>
#include <unicode/uchar.h>

#include <algorithm>
#include <climits>
#include <new>

#include "support/diagnostics.h"

namespace nn::rt {

bool isPythonSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool isLineBreak(char32_t c) {
  return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || (c >= 0x1C && c <= 0x1E) || c == 0x85 || c == 0x2028 ||
         c == 0x2029;
}

namespace {

bool isAsciiLetter(char32_t c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
bool isAsciiDigit(char32_t c) { return c >= '0' && c <= '9'; }
UChar32 icu(char32_t c) { return static_cast<UChar32>(c); }
int32_t numericType(char32_t c) { return u_getIntPropertyValue(icu(c), UCHAR_NUMERIC_TYPE); }

}  // namespace

bool isPrintable(char32_t c) {
  if (c < 0x80) return c >= 0x20 && c < 0x7F;
  switch (u_charType(icu(c))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR: return false;
    default: return true;
  }
}

bool isAlpha(char32_t c) { return c < 0x80 ? isAsciiLetter(c) : u_isalpha(icu(c)) != 0; }
bool isDecimal(char32_t c) { return c < 0x80 ? isAsciiDigit(c) : u_charType(icu(c)) == U_DECIMAL_DIGIT_NUMBER; }
bool isDigit(char32_t c) {
  if (c < 0x80) return isAsciiDigit(c);
  int32_t t = numericType(c);
  return t == U_NT_DECIMAL || t == U_NT_DIGIT;
}
bool isNumeric(char32_t c) { return c < 0x80 ? isAsciiDigit(c) : numericType(c) != U_NT_NONE; }
bool isUppercase(char32_t c) { return c < 0x80 ? c >= 'A' && c <= 'Z' : u_hasBinaryProperty(icu(c), UCHAR_UPPERCASE) != 0; }
bool isLowercase(char32_t c) { return c < 0x80 ? c >= 'a' && c <= 'z' : u_hasBinaryProperty(icu(c), UCHAR_LOWERCASE) != 0; }
bool isTitlecase(char32_t c) { return c >= 0x80 && u_charType(icu(c)) == U_TITLECASE_LETTER; }
bool isCased(char32_t c) { return c < 0x80 ? isAsciiLetter(c) : u_hasBinaryProperty(icu(c), UCHAR_CASED) != 0; }
bool isCaseIgnorable(char32_t c) { return u_hasBinaryProperty(icu(c), UCHAR_CASE_IGNORABLE) != 0; }
bool isIdentifierStart(char32_t c) {
  return c < 0x80 ? isAsciiLetter(c) || c == '_' : u_hasBinaryProperty(icu(c), UCHAR_XID_START) != 0;
}
bool isIdentifierContinue(char32_t c) {
  return c < 0x80 ? isAsciiLetter(c) || isAsciiDigit(c) || c == '_' : u_hasBinaryProperty(icu(c), UCHAR_XID_CONTINUE) != 0;
}

namespace {

// ICU's UTF-8 mapping of [src, src + n) in the root locale, appended: into
// the room a mapping usually needs, then, should that be short, into the
// size ICU asked for.
template <class Map>
void appendIcu(const char* src, size_t n, std::string& out, Map map) {
  // ICU counts in int32_t, and a mapping may triple a str.
  if (n > static_cast<size_t>(INT32_MAX) / 3) fail({}, "changing the case of a str of over 700 MB is not supported");
  size_t at = out.size();
  size_t room = n + n / 2 + 16;
  for (int attempt = 0; attempt < 2; ++attempt) {
    out.resize(at + room);
    UErrorCode err = U_ZERO_ERROR;
    int32_t made = map(src, static_cast<int32_t>(n), out.data() + at, static_cast<int32_t>(room), err);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
      room = static_cast<size_t>(made);
      continue;
    }
    // Only memory can fail a mapping of well-formed input to a buffer
    // large enough (an ill-formed byte is copied).
    if (U_FAILURE(err)) throw std::bad_alloc();
    out.resize(at + static_cast<size_t>(made));
    return;
  }
  throw std::bad_alloc();
}

void appendIcuMapped(const char* src, size_t n, CaseMapping m, std::string& out) {
  switch (m) {
    case CaseMapping::Upper:
      return appendIcu(src, n, out, [](const char* s, int32_t len, char* d, int32_t cap, UErrorCode& e) {
        return icu::CaseMap::utf8ToUpper("", 0, s, len, d, cap, nullptr, e);
      });
    case CaseMapping::Lower:
      return appendIcu(src, n, out, [](const char* s, int32_t len, char* d, int32_t cap, UErrorCode& e) {
        return icu::CaseMap::utf8ToLower("", 0, s, len, d, cap, nullptr, e);
      });
    case CaseMapping::Title:
      // One code point as a whole string: its full title case, the rest
      // of the "string" (none) not lowered.
      return appendIcu(src, n, out, [](const char* s, int32_t len, char* d, int32_t cap, UErrorCode& e) {
        return icu::CaseMap::utf8ToTitle(
            "", U_TITLECASE_WHOLE_STRING | U_TITLECASE_NO_LOWERCASE | U_TITLECASE_NO_BREAK_ADJUSTMENT, nullptr, s, len,
            d, cap, nullptr, e);
      });
    case CaseMapping::Fold:
      return appendIcu(src, n, out, [](const char* s, int32_t len, char* d, int32_t cap, UErrorCode& e) {
        return icu::CaseMap::utf8Fold(U_FOLD_CASE_DEFAULT, s, len, d, cap, nullptr, e);
      });
  }
}

char asciiMapped(char ch, CaseMapping m) {
  bool upper = ch >= 'A' && ch <= 'Z', lower = ch >= 'a' && ch <= 'z';
  if ((m == CaseMapping::Upper || m == CaseMapping::Title) && lower) return static_cast<char>(ch - 32);
  if ((m == CaseMapping::Lower || m == CaseMapping::Fold) && upper) return static_cast<char>(ch + 32);
  return ch;
}

}  // namespace

std::string asciiDigitsAndSpaces(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    CodePoint p = decodeUtf8(s, i);
    i += p.len;
    if (p.cp < 0x80 && !p.malformed) out += isPythonSpace(p.cp) ? ' ' : static_cast<char>(p.cp);
    else if (!p.malformed && isPythonSpace(p.cp)) out += ' ';
    else if (!p.malformed && isDecimal(p.cp)) out += static_cast<char>('0' + u_charDigitValue(icu(p.cp)));
    else out += '?';
  }
  return out;
}

void appendCaseMapped(const char* s, size_t n, CaseMapping m, std::string& out) {
  if (std::all_of(s, s + n, [](char ch) { return static_cast<unsigned char>(ch) < 0x80; })) {
    size_t at = out.size();
    out.resize(at + n);
    std::transform(s, s + n, out.begin() + static_cast<std::ptrdiff_t>(at), [m](char ch) { return asciiMapped(ch, m); });
    return;
  }
  appendIcuMapped(s, n, m, out);
}

std::string caseMapped(const std::string& s, CaseMapping m) {
  std::string out;
  appendCaseMapped(s.data(), s.size(), m, out);
  return out;
}

}  // namespace nn::rt
