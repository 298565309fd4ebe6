// The advisor's flags, shared by `record --advise` and `status`.
#pragma once

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

}  // namespace gpuwatch::cli
