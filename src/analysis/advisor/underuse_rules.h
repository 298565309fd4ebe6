// Which advisories `record --on-underuse kill` acts on (`--rules`). Only
// underuse advisories can act, and by default only the utilization ones:
// a memory share alone says the batch could be larger, not that the GPU
// idles (issue 9: a job at a steady 80 % utilization and 49 % memory was
// stopped for memory.batch_too_small).
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/advisor/advisory.h"

namespace gpuwatch {

// Every advisory id the rules mark `underuse` (docs/advisor.md): the ids
// `--rules` may name. A rule that gains the flag must be listed here too
// (advisor_test checks it).
inline constexpr std::array<std::string_view, 5> kUnderuseAdvisoryIds{
    "memory.batch_too_small", "util.host_bound", "util.input_bound", "util.launch_bound", "util.low"};

class UnderuseRulesError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class UnderuseRules {
 public:
  UnderuseRules();  // util.*
  // A comma list of ids or `prefix.*` patterns (`*` alone: every underuse
  // advisory), e.g. "memory.batch_too_small,util.*". Each must name at
  // least one underuse advisory. Throws UnderuseRulesError.
  static UnderuseRules parse(std::string_view list);

  [[nodiscard]] bool acts_on(const Advisory& a) const;
  [[nodiscard]] bool acts_on(std::string_view id) const;
  [[nodiscard]] std::string to_string() const;  // the patterns, comma-separated

 private:
  std::vector<std::string> patterns_;
};

}  // namespace gpuwatch
