// The advisor's flags, shared by `record --advise` and `status`.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "analysis/advisor/config.h"

namespace gpuwatch::cli {

struct AdvisorFlags {
  std::string config_file;  // --advisor-config; else the user's config file if there is one
  std::string model_size;   // --model-size small|large|auto
};

void add_advisor_options(CLI::App& cmd, AdvisorFlags& flags);

// The thresholds: defaults, then $XDG_CONFIG_HOME/gpuwatch/advisor.conf (or
// ~/.config/...) when it exists or the --advisor-config file, then
// --model-size. Throws std::runtime_error naming the file and line.
AdvisorConfig advisor_config(const AdvisorFlags& flags);

// What a reader of a stored run judges it with: the config the run was
// recorded with (analysis/run_verdict.h) unless the user named one here
// (`given`: --advisor-config or --model-size); `config` (advisor_config())
// for runs recorded without one. window_s: status --window, applied last.
struct AdvisorChoice {
  AdvisorConfig config;
  bool given = false;
  std::optional<double> window_s;
};
AdvisorChoice advisor_choice(const AdvisorFlags& flags);

}  // namespace gpuwatch::cli
