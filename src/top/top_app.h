// `gpuwatch top`: the live view in a terminal, or one snapshot (--once).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace gpuwatch {

struct TopOptions {
  double interval_s = 1.0;
  std::vector<int> gpus;  // empty: every GPU
  bool once = false;
  std::string format = "text";  // --once: text or json
  std::size_t width = 0;        // --once text: 0 = $COLUMNS or 100
  std::size_t height = 0;       // --once text: 0 = as many lines as it needs
};

// Returns the exit code. Throws WatchError on bad options.
int run_top(const SystemPaths& paths, const TopOptions& options);

}  // namespace gpuwatch
