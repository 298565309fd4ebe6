// --annotate-regex: annotations taken from the lines a command prints.
// Patterns are PCRE2, which reads Python's re syntax as users write it:
// named groups (?P<name>...) and (?<name>...), inline flags such as (?i),
// look-behind, \d \w \s, lazy quantifiers. Named groups say what a match means:
//   'Epoch (?P<epoch_end>\d+).*loss[:=] *(?P<loss>[0-9.e+-]+)'
// Groups named step or epoch give counts (epoch_end: the epoch that ends on
// this line, annotate/epoch_ends.h), phase a phase name, mark a mark's
// text, and any other name a logged scalar. A pattern without named groups
// makes every matching line a mark.
#pragma once

#include <memory>
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
  // Throws PatternError for a bad expression (saying at which offset) or a
  // bad group name.
  explicit OutputPattern(std::string_view expression);
  ~OutputPattern();
  OutputPattern(OutputPattern&&) noexcept;
  OutputPattern& operator=(OutputPattern&&) noexcept;

  // The annotations of one line (without its newline); none if it does not
  // match. Not thread-safe: the pattern keeps its match buffers, and one
  // thread scans the output.
  [[nodiscard]] std::vector<Annotation> match(std::string_view line) const;

  // Whether PCRE2 compiled the pattern to machine code (not on every CPU).
  [[nodiscard]] bool jit() const;

 private:
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
  std::vector<std::pair<std::size_t, std::string>> named_groups_;  // group number -> name
};

// Only the start of a very long line is searched: a progress bar redrawn for
// hours without a newline is one "line", and each line costs at most this.
inline constexpr std::size_t kMaxScannedLineBytes = 2048;

}  // namespace gpuwatch
