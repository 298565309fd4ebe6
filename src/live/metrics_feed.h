// Every GPU's and the host's latest values as Prometheus text, sampled on a
// schedule of its own: what `gpuwatch exporter` serves at /metrics, and
// `gpuwatch serve --metrics` beside the dashboard. A scrape reads the last
// published body and never calls the driver.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run_status.h"
#include "backends/backend.h"

namespace gpuwatch {

struct MetricsFeedOptions {
  double interval_s = 1.0;
  std::vector<int> gpus;  // empty: every GPU
  bool dcgm_compat = false;
  bool processes = false;  // per-process series (a process list each slow tick)
  // Reads the run being recorded on this machine (none: no run series).
  // Called on a thread of its own every few seconds, never by a scrape.
  std::function<std::optional<RunStatusReport>()> watched_run;
  std::string log_prefix = "gpuwatch exporter";  // of what it says on stderr
};

class MetricsFeed {
 public:
  // Opens the drivers and the host reader; throws WatchError on bad options.
  // Finding no GPU is no error: the host's series and gpuwatch_up are still
  // served, for the alert that notices the GPUs are gone.
  MetricsFeed(const SystemPaths& paths, MetricsFeedOptions options);
  ~MetricsFeed();
  MetricsFeed(const MetricsFeed&) = delete;
  MetricsFeed& operator=(const MetricsFeed&) = delete;

  // Hands `publish` a body at once and again after every tick, sampling on
  // a thread of its own, until `stop_fd` (a signalfd, an eventfd) becomes
  // readable; then stops sampling and returns.
  void run_until(int stop_fd, const std::function<void(std::string body)>& publish);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpuwatch
