// `gpuwatch top`: the live view in a terminal, or one snapshot (--once).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_status.h"
#include "backends/backend.h"
#include "render/output_format.h"

namespace gpuwatch {

struct TopOptions {
  double interval_s = 1.0;
  std::vector<int> gpus;  // empty: every GPU
  bool once = false;
  OutputFormat format = OutputFormat::text;  // --once: text or json
  std::size_t width = 0;        // --once text: 0 = $COLUMNS or 100
  std::size_t height = 0;       // --once text: 0 = as many lines as it needs
  bool by_owner = false;        // --group-by owner: one row per owner, not per process
  // The run shown beside the GPUs (none: nothing recording), read on a
  // thread of its own every few seconds; unset: no run section.
  std::function<std::optional<RunStatusReport>()> watched_run;
  // From the environment (cli/ reads it): $COLUMNS for --once text, $TERM
  // for the message when ncurses cannot drive the terminal, and whether
  // NO_COLOR asks for no colour.
  std::optional<std::string> columns_variable;
  std::string term;
  bool no_colour = false;
};

// Returns the exit code. Throws WatchError on bad options.
int run_top(const SystemPaths& paths, const TopOptions& options);

}  // namespace gpuwatch
