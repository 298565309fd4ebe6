// The sampling options of a /metrics endpoint, shared by `exporter` and
// `serve --metrics`.
#pragma once

#include <string>
#include <vector>

#include "cli/commands.h"
#include "live/metrics_feed.h"

namespace gpuwatch::cli {

struct MetricsFeedFlags {
  double interval_s = 1.0;
  std::string gpus;
  bool dcgm_compat = false;
  bool processes = false;
};
// --interval, --gpus, --dcgm-compat, --processes; returns them so that a
// command can make them need another flag.
std::vector<CLI::Option*> add_metrics_feed_options(CLI::App& cmd, MetricsFeedFlags& flags);
// The options; the watched run and the log prefix are the caller's.
MetricsFeedOptions metrics_feed_options(const MetricsFeedFlags& flags);

// --max-connections N (1 to 100000) of the HTTP servers, `exporter` and
// `serve`; `max_connections` holds the command's default.
CLI::Option* add_max_connections_option(CLI::App& cmd, int& max_connections);

}  // namespace gpuwatch::cli
