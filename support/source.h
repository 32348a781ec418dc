// Source files and positions. Every AST node, IR node and runtime error
// carries a SourceLoc; the SourceManager owns the text so a diagnostic can
// show the offending line with a caret underline long after parsing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nn {

// 1-based line and column; end is exclusive. file 0 means "no location".
struct SourceLoc {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t endLine = 0;
  uint32_t endCol = 0;

  bool valid() const { return file != 0 && line != 0; }
  bool operator==(const SourceLoc& o) const {
    return file == o.file && line == o.line && col == o.col && endLine == o.endLine && endCol == o.endCol;
  }
  static SourceLoc span(const SourceLoc& a, const SourceLoc& b) {
    SourceLoc r = a;
    r.endLine = b.endLine;
    r.endCol = b.endCol;
    return r;
  }
};

class SourceManager {
 public:
  // Registers a text under a display path; returns its file id (>= 1).
  uint32_t add(std::string path, std::string text);
  const std::string& path(uint32_t file) const;
  const std::string& text(uint32_t file) const;
  // The text of one line without its newline ("" when out of range).
  std::string_view line(uint32_t file, uint32_t line) const;

 private:
  struct File {
    std::string path;
    std::string text;
    std::vector<size_t> lineStarts;
  };
  std::vector<std::unique_ptr<File>> files_;
};

}  // namespace nn
