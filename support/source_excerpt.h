// The source line a diagnostic quotes and the carets under the code it
// points at, laid out as a terminal shows them: a wide character (CJK, most
// emoji) takes two columns and a combining mark none, so the carets are
// counted in columns, not in code points; a tab stays a tab under itself; a
// line too long to read (generated code, a minified literal) is cut to a
// window around the carets, with "..." where it was cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nn {

struct SourceExcerpt {
  std::string line;       // the (part of the) line to show
  std::string underline;  // spaces and tabs up to the carets, then the carets
};

// `text` is one line of UTF-8 source; the carets go under its code points
// [start, end) (0-based; one caret at least, also past the line's end, where
// a missing token is reported).
SourceExcerpt sourceExcerpt(std::string_view text, size_t start, size_t end);

}  // namespace nn
