// "Did you mean": the name closest to a misspelt one among the names that
// would have been accepted (in scope, attributes, keywords), by edit
// distance, so an error can end with a suggestion.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nn {

// The candidate nearest `name` when it is near enough to be a plausible
// typo (an edit distance of at most a third of the name's length, at
// least 1), else "". Ties go to the earlier candidate.
std::string closestName(std::string_view name, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" for closestName's answer, or "" when there is none.
std::string didYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace nn
