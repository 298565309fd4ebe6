#include "cli/metrics_feed_options.h"

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
  return cmd
      .add_option("--max-connections", max_connections,
                  "Connections open at once; past them the oldest one still sending its request is closed, "
                  "else a newcomer gets 503 at once")
      ->check(whole_check("connections", 1, 100000, "1024"))
      ->capture_default_str();
}

}  // namespace gpuwatch::cli
