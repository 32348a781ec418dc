// Rendering of diagnostics with the source line and a caret underline.
#include "support/diagnostics.h"

#include <cstdint>

#include "support/source_excerpt.h"

namespace nn {

void fail(SourceLoc loc, std::string message) { throw NnError(std::move(message), loc); }
void fail(SourceLoc loc, std::string message, ErrorClass errorClass) {
  NnError e(std::move(message), loc);
  e.diag().errorClass = errorClass;
  throw e;
}
void fail(SourceLoc loc, std::string message, ErrorClass errorClass, std::string exceptionText) {
  NnError e(std::move(message), loc);
  e.diag().errorClass = errorClass;
  e.diag().exceptionText = std::move(exceptionText);
  throw e;
}

std::string formatLoc(const SourceManager& sm, const SourceLoc& loc) {
  return sm.path(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

std::string positionalCountMessage(const std::string& callee, const std::string& takes, size_t given) {
  return callee + "() takes " + takes + " positional argument" + (takes == "1" ? "" : "s") + " but " +
         std::to_string(given) + (given == 1 ? " was" : " were") + " given";
}

void renderDiagnostic(const SourceManager& sm, const Diagnostic& d, std::ostream& os) {
  static const char* const kSeverity[] = {"error", "warning", "note"};
  os << kSeverity[static_cast<int>(d.severity)] << ": " << d.message << "\n";
  if (d.loc.valid()) {
    std::string lineNo = std::to_string(d.loc.line);
    std::string pad(lineNo.size(), ' ');
    std::string_view text = sm.line(d.loc.file, d.loc.line);
    os << pad << "--> " << formatLoc(sm, d.loc) << "\n";
    os << pad << " |\n";
    // Columns count code points; a span over several lines is underlined
    // to the end of its first.
    size_t start = d.loc.col > 0 ? d.loc.col - 1 : 0;
    size_t end = d.loc.endLine == d.loc.line && d.loc.endCol > d.loc.col ? d.loc.endCol - 1 : SIZE_MAX;
    SourceExcerpt shown = sourceExcerpt(text, start, end);
    os << lineNo << " | " << shown.line << "\n";
    os << pad << " | " << shown.underline << "\n";
  }
  for (const auto& note : d.notes) {
    os << "  note: " << note.second;
    if (note.first.valid()) os << " at " << formatLoc(sm, note.first);
    os << "\n";
  }
  // Deep recursion repeats one call site: print it once with a count.
  for (size_t i = 0; i < d.callers.size();) {
    size_t j = i + 1;
    std::string at = formatLoc(sm, d.callers[i]);
    while (j < d.callers.size() && formatLoc(sm, d.callers[j]) == at) ++j;
    os << "  called from " << at;
    if (j - i > 1) os << " (" << (j - i - 1) << " more times)";
    os << "\n";
    i = j;
  }
}

}  // namespace nn
