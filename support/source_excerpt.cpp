// Source excerpts (source_excerpt.h): a character's width in columns is
// glibc's wcwidth under the C.UTF-8 locale, switched to on the calling
// thread only while the line is measured (a diagnostic may be rendered on
// any thread, and the process's own locale is the host's business).
#include "support/source_excerpt.h"

#include <locale.h>

#include <algorithm>
#include <cwchar>
#include <vector>

#include "support/utf8.h"

namespace nn {

namespace {

// A line longer than this many columns is shown as a window of that many,
// starting this many columns before the carets.
constexpr size_t kMaxColumns = 120;
constexpr size_t kContextColumns = 40;
constexpr std::string_view kCut = "...";

// wcwidth under C.UTF-8 for the object's lifetime (width 1 for every
// character where the locale is missing).
class Widths {
 public:
  Widths() : previous_(utf8() ? uselocale(utf8()) : locale_t(0)) {}
  ~Widths() {
    if (previous_) uselocale(previous_);
  }
  Widths(const Widths&) = delete;
  Widths& operator=(const Widths&) = delete;

  size_t of(char32_t cp) const {
    if (cp < 0x80 || !previous_) return 1;
    int w = wcwidth(static_cast<wchar_t>(cp));
    return w < 0 ? 1 : static_cast<size_t>(w);  // a control character is shown as one
  }

 private:
  // Made once and never changed: read-only state, as the locale tables are.
  static locale_t utf8() {
    static const locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(0));
    return locale;
  }
  locale_t previous_;
};

struct Cell {
  size_t byte, width;
  bool tab;
};

}  // namespace

SourceExcerpt sourceExcerpt(std::string_view text, size_t start, size_t end) {
  std::string line(text);
  std::vector<Cell> cells;
  {
    Widths widths;
    for (size_t i = 0; i < line.size();) {
      CodePoint p = decodeUtf8(line, i);
      cells.push_back({i, widths.of(p.cp), p.cp == '\t'});
      i += p.len;
    }
  }
  size_t n = cells.size();
  if (end <= start) end = start + 1;
  // The columns before each cell (a tab counts as one here: it is copied
  // under itself, so only the window's size depends on it).
  std::vector<size_t> column(n + 1, 0);
  for (size_t i = 0; i < n; ++i) column[i + 1] = column[i] + cells[i].width;

  size_t from = 0, to = n;
  if (column[n] > kMaxColumns) {
    size_t at = column[std::min(start, n)];
    size_t first = at > kContextColumns ? at - kContextColumns : 0;
    while (from < n && column[from] < first) ++from;
    to = from;
    while (to < n && column[to + 1] - column[from] <= kMaxColumns) ++to;
  }
  SourceExcerpt out;
  auto byteAt = [&](size_t i) { return i < n ? cells[i].byte : line.size(); };
  if (from > 0) {
    out.line = std::string(kCut);
    out.underline = std::string(kCut.size(), ' ');
  }
  out.line += line.substr(byteAt(from), byteAt(to) - byteAt(from));
  if (to < n) out.line += kCut;
  for (size_t i = from; i < start; ++i) {
    if (i < n && cells[i].tab) out.underline += '\t';
    else out.underline += std::string(i < n ? cells[i].width : 1, ' ');
  }
  size_t carets = 0;
  for (size_t i = start; i < end && i < to; ++i) carets += cells[i].width;
  out.underline += std::string(std::max<size_t>(carets, 1), '^');
  return out;
}

}  // namespace nn
