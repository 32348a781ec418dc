// UTF-8 by code point, for the front end (string literals' escapes) and the
// runtime (strs): writing a code point, and reading one back with a
// malformed byte read as one code point of its own.
#pragma once

#include <cstddef>
#include <string>

namespace nn {

// The code point at byte i of s and how many bytes it takes. A byte that
// does not start a well-formed sequence is one code point of its own
// (U+FFFD, `malformed` set), so a malformed str is still read to its end.
struct CodePoint {
  char32_t cp;
  size_t len;
  bool malformed = false;
};
CodePoint decodeUtf8(const std::string& s, size_t i);
void appendUtf8(char32_t cp, std::string& out);

}  // namespace nn
