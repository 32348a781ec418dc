// Source excerpts (support/source_excerpt.h): the carets of a diagnostic
// under the code they point at, as a terminal lays the line out.
#include "support/source_excerpt.h"

#include <gtest/gtest.h>

namespace nn {
namespace {

TEST(SourceExcerpt, AsciiLineIsShownWholeWithCaretsUnderTheSpan) {
  SourceExcerpt e = sourceExcerpt("x = a + 1", 4, 5);
  EXPECT_EQ(e.line, "x = a + 1");
  EXPECT_EQ(e.underline, "    ^");
}

// 日 and 本 take two columns each, é (e and a combining acute) one.
TEST(SourceExcerpt, WideAndCombiningCharactersCountTheirColumns) {
  SourceExcerpt e = sourceExcerpt("y = \"日本\" + undefined", 11, 20);
  EXPECT_EQ(e.underline, std::string(13, ' ') + std::string(9, '^'));
  SourceExcerpt wide = sourceExcerpt("s = \"日本\"", 4, 8);
  EXPECT_EQ(wide.underline, "    ^^^^^^");
  SourceExcerpt combining = sourceExcerpt("e\u0301 = z", 4, 5);
  EXPECT_EQ(combining.underline, "   ^");
}

TEST(SourceExcerpt, TabsStayTabs) { EXPECT_EQ(sourceExcerpt("\tx = $", 5, 6).underline, "\t    ^"); }

// One caret past the line's end (a missing token); a span over several
// lines (end past the line) is underlined to the end of its first.
TEST(SourceExcerpt, SpansPastTheLineEnd) {
  EXPECT_EQ(sourceExcerpt("f(1", 3, 4).underline, "   ^");
  EXPECT_EQ(sourceExcerpt("x = [1,", 4, SIZE_MAX).underline, "    ^^^");
}

TEST(SourceExcerpt, ALongLineIsCutToAWindowAroundTheCarets) {
  std::string line = "x = " + std::string(300, '(') + "1" + std::string(300, ')');
  SourceExcerpt e = sourceExcerpt(line, 100, 101);
  // 40 columns before the caret, 120 in all, cut at both ends.
  EXPECT_EQ(e.line, "..." + std::string(120, '(') + "...");
  EXPECT_EQ(e.underline, std::string(3 + 40, ' ') + "^");
  // Near the start, only the end is cut.
  SourceExcerpt start = sourceExcerpt(line, 0, 1);
  EXPECT_EQ(start.line, line.substr(0, 120) + "...");
  EXPECT_EQ(start.underline, "^");
  // A wide character is never split: the window holds whole characters.
  std::string wide = std::string(100, 'a') + std::string(100, ' ') + "日本語日本語" + std::string(50, 'b');
  SourceExcerpt w = sourceExcerpt(wide, 200, 201);
  EXPECT_EQ(w.underline, std::string(3 + 40, ' ') + "^^");
}

}  // namespace
}  // namespace nn
