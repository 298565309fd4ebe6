// --annotate-regex: annotations taken from the lines a command prints.
// Named groups say what a match means, as in Python's re:
//   'Epoch (?<epoch>\d+).*loss[:=] *(?<loss>[0-9.e+-]+)'
// Groups named step or epoch give counts, phase a phase name, mark a mark's
// text, and any other name a logged scalar. A pattern without named groups
// makes every matching line a mark. (?P<name>...) is accepted too.
#pragma once

#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "annotate/annotation.h"

namespace gpuwatch {

class PatternError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputPattern {
 public:
  // Throws PatternError for a bad expression or a bad group name.
  explicit OutputPattern(std::string_view expression);

  // The annotations of one line (without its newline); none if it does not match.
  [[nodiscard]] std::vector<Annotation> match(std::string_view line) const;

 private:
  std::regex regex_;
  std::vector<std::pair<std::size_t, std::string>> named_groups_;  // group number -> name
};

// Only the start of a very long line is searched: std::regex recurses per
// character and a progress bar redrawn for hours is one "line".
inline constexpr std::size_t kMaxScannedLineBytes = 2048;

}  // namespace gpuwatch
