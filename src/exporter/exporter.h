// `gpuwatch exporter`: samples on its own schedule through the Watcher and
// serves the latest values in Prometheus text format.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "live/metrics_feed.h"
#include "http/listen_address.h"

namespace gpuwatch {

// dcgm-exporter's port: a scrape config written for it needs no change.
inline constexpr std::string_view kDefaultExporterListen = "127.0.0.1:9400";

struct ExporterOptions {
  ListenAddress listen;
  // Host names scrapers send besides this machine's own and addresses
  // (--allow-host); any other Host is refused (DNS rebinding, host_check.h).
  std::vector<std::string> allowed_hosts;
  int max_connections = 0;  // 0: the server's default (1024)
  MetricsFeedOptions feed;
  // Told the URL once the port is bound (the CLI prints it).
  std::function<void(const std::string& url)> on_listening;
};

// Serves until SIGINT or SIGTERM; returns the exit code (0 then). Throws
// WatchError on bad options, HttpError when it cannot listen.
int run_exporter(const SystemPaths& paths, const ExporterOptions& options);

}  // namespace gpuwatch
