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
#include "analysis/job_gpus.h"

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

// The advisories among `current` that may stop the job, utilization ones
// first (they are what the GPUs waste; a small batch is one cause). Empty
// when none may act.
//
// When the command was seen on its GPUs (or a visible-devices variable
// named them), every acting advisory on those GPUs counts. When it was not
// (CommandNotSeen, Unknown: containers, `record -- docker run`, launchers
// whose workers are not descendants), a GPU is only a candidate: another
// tenant's light load on one of them must not stop a busy job (issue 22:
// a job at 95 % was killed for a neighbour's 10 %). Then the advisories act
// only when every candidate GPU is under-used, or one of them speaks for
// the whole job (no device). `recorded_gpus` stand in for the candidates
// when `job` names none.
std::vector<const Advisory*> acting_underuse(const std::vector<Advisory>& current, const UnderuseRules& rules,
                                             const JobGpus& job, const std::vector<int>& recorded_gpus);

}  // namespace gpuwatch
