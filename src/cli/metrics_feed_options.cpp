#include "cli/metrics_feed_options.h"

#include <charconv>

#include "cli/number_flags.h"
#include "cli/options.h"

namespace gpuwatch::cli {

std::vector<CLI::Option*> add_metrics_feed_options(CLI::App& cmd, MetricsFeedFlags& flags) {
  return {
      cmd.add_option("--interval", flags.interval_s, "Seconds between samples of /metrics (0.1 to 3600)")
          ->check(seconds_check(0.1, 3600, "5"))
          ->capture_default_str(),
      add_gpus_option(cmd, flags.gpus, "GPU indices in /metrics, e.g. 0,2 or 0-3 (default: all)"),
      cmd.add_flag("--dcgm-compat", flags.dcgm_compat,
                   "dcgm-exporter's metric names, units and labels (NVIDIA GPUs only), for its dashboards"),
      cmd.add_flag("--processes", flags.processes,
                   "Per-process series too: GPU memory and GPU use per pid and command (at most 32 per GPU)"),
  };
}

MetricsFeedOptions metrics_feed_options(const MetricsFeedFlags& flags) {
  MetricsFeedOptions options;
  options.interval_s = flags.interval_s;
  if (!flags.gpus.empty()) options.gpus = parse_gpu_list(flags.gpus);
  options.dcgm_compat = flags.dcgm_compat;
  options.processes = flags.processes;
  return options;
}

CLI::Option* add_max_connections_option(CLI::App& cmd, int& max_connections) {
  const CLI::Validator whole_number(
      [](const std::string& text) {
        int n = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
        const bool ok = error == std::errc() && end == text.data() + text.size() && n >= 1 && n <= 100000;
        return ok ? std::string() : "'" + text + "' is not a number of connections from 1 to 100000";
      },
      "N");
  return cmd
      .add_option("--max-connections", max_connections,
                  "Connections open at once; past them the oldest one still sending its request is closed, "
                  "else a newcomer gets 503 at once")
      ->check(whole_number)
      ->capture_default_str();
}

}  // namespace gpuwatch::cli
