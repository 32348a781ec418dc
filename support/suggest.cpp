// Nearest-name suggestions (see suggest.h): Levenshtein distance with
// adjacent transpositions counted as one edit (optimal string alignment).
#include "support/suggest.h"

#include <algorithm>

namespace nn {
namespace {

size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closestName(std::string_view name, const std::vector<std::string>& candidates) {
  // Long names are not compared: the table is quadratic in their length.
  if (name.empty() || name.size() > 64) return "";
  size_t limit = std::max<size_t>(1, name.size() / 3), best = limit + 1;
  std::string out;
  for (const std::string& c : candidates) {
    if (c == name || c.size() > 64) continue;
    size_t d = distance(name, c);
    if (d < best) best = d, out = c;
  }
  return out;
}

std::string didYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  std::string c = closestName(name, candidates);
  return c.empty() ? "" : "; did you mean '" + c + "'?";
}

}  // namespace nn
