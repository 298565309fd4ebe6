// `gpuwatch exporter`: samples on its own schedule through the Watcher and
// serves the latest values in Prometheus text format.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_status.h"
#include "backends/backend.h"
#include "http/listen_address.h"

namespace gpuwatch {

// dcgm-exporter's port: a scrape config written for it needs no change.
inline constexpr std::string_view kDefaultExporterListen = "127.0.0.1:9400";

struct ExporterOptions {
  ListenAddress listen;
  double interval_s = 1.0;
  std::vector<int> gpus;  // empty: every GPU
  bool dcgm_compat = false;
  bool processes = false;  // per-process series (a process list each slow tick)
  // Reads the run being recorded on this machine (none: no run series).
  // Called on a thread of its own every few seconds, never by a scrape.
  std::function<std::optional<RunStatusReport>()> watched_run;
  // Told the URL once the port is bound (the CLI prints it).
  std::function<void(const std::string& url)> on_listening;
};

// Serves until SIGINT or SIGTERM; returns the exit code (0 then). Throws
// WatchError on bad options, HttpError when it cannot listen.
int run_exporter(const SystemPaths& paths, const ExporterOptions& options);

}  // namespace gpuwatch
