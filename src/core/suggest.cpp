#include "core/suggest.h"

#include <algorithm>
#include <vector>

namespace gpuwatch {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: the one before last is needed for swaps.
  std::vector<std::size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates) {
  // Flags are compared without their dashes: "-name" is one edit from "--name", not two.
  const auto bare = [](std::string_view s) { return s.substr(std::min(s.find_first_not_of('-'), s.size())); };
  const std::string_view w = bare(word);
  if (w.empty()) return std::nullopt;
  const std::size_t allowed = w.size() <= 4 ? 1 : w.size() <= 8 ? 2 : 3;
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& c : candidates) {
    const std::string_view cb = bare(c);
    std::size_t d = edit_distance(w, cb);
    if (w.size() >= 3 && cb.starts_with(w)) d = std::min<std::size_t>(d, 1);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace gpuwatch
