// UTF-8 by code point and Python's character classes (see unicode.h).
#include "runtime/unicode.h"

#include <exception>

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

// The C.UTF-8 locale's character tables, read-only once made (the facet is
// looked up once: use_facet is a search).
const std::ctype<wchar_t>& tables() {
  static const std::locale locale = [] {
    try {
      return std::locale("C.UTF-8");
    } catch (const std::exception&) {
      return std::locale::classic();
    }
  }();
  static const std::ctype<wchar_t>& facet = std::use_facet<std::ctype<wchar_t>>(locale);
  return facet;
}

// Category Cf (format characters), which the locale counts as printable.
bool isFormat(char32_t c) {
  return c == 0xAD || (c >= 0x600 && c <= 0x605) || c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x8E2 ||
         c == 0x180E || (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2064) ||
         (c >= 0x2066 && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) || c == 0x110BD ||
         (c >= 0x1D173 && c <= 0x1D17A) || c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F);
}

// Category Co (private use).
bool isPrivateUse(char32_t c) {
  return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0xFFFFD) || (c >= 0x100000 && c <= 0x10FFFD);
}

}  // namespace

bool isPrintable(char32_t c) {
  if (c == ' ') return true;
  if (c < 0x7F) return c > 0x20;
  if (isPythonSpace(c) || isFormat(c) || isPrivateUse(c)) return false;
  return hasClass(std::ctype_base::print, c);
}

bool hasClass(std::ctype_base::mask m, char32_t c) { return tables().is(m, static_cast<wchar_t>(c)); }
// ASCII, the common case, without the tables.
char32_t toUpper(char32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
  return static_cast<char32_t>(tables().toupper(static_cast<wchar_t>(c)));
}
char32_t toLower(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  return static_cast<char32_t>(tables().tolower(static_cast<wchar_t>(c)));
}

}  // namespace nn::rt
