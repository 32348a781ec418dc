// Storage of source texts with a line index for diagnostics.
#include "support/source.h"

namespace nn {

uint32_t SourceManager::add(std::string path, std::string text) {
  auto f = std::make_unique<File>();
  f->path = std::move(path);
  f->text = std::move(text);
  f->lineStarts.push_back(0);
  for (size_t i = 0; i < f->text.size(); ++i)
    if (f->text[i] == '\n') f->lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

const std::string& SourceManager::path(uint32_t file) const {
  static const std::string unknown = "<unknown>";
  return file >= 1 && file <= files_.size() ? files_[file - 1]->path : unknown;
}

const std::string& SourceManager::text(uint32_t file) const {
  static const std::string empty;
  return file >= 1 && file <= files_.size() ? files_[file - 1]->text : empty;
}

std::string_view SourceManager::line(uint32_t file, uint32_t line) const {
  if (file < 1 || file > files_.size()) return {};
  const File& f = *files_[file - 1];
  if (line < 1 || line > f.lineStarts.size()) return {};
  size_t begin = f.lineStarts[line - 1];
  size_t end = f.text.find('\n', begin);
  if (end == std::string::npos) end = f.text.size();
  if (end > begin && f.text[end - 1] == '\r') --end;
  return std::string_view(f.text).substr(begin, end - begin);
}

}  // namespace nn
