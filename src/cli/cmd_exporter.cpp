#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/run_status_source.h"
#include "exporter/exporter.h"

namespace gpuwatch::cli {

void add_exporter(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("exporter", "Serve every GPU's and the host's metrics to Prometheus (GET /metrics)");
  struct Flags {
    std::string listen{kDefaultExporterListen};
    double interval_s = 1.0;
    std::string gpus;
    bool dcgm_compat = false;
    bool processes = false;
    WatchedRunFlags run;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--listen", flags->listen,
                  "ADDR:PORT to serve on; 0.0.0.0:9400 for every interface, [::1]:9400 for IPv6, port 0 for any "
                  "free one")
      ->capture_default_str();
  cmd->add_option("--interval", flags->interval_s, "Seconds between samples (0.1 to 3600)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  add_gpus_option(*cmd, flags->gpus, "GPU indices to export, e.g. 0,2 or 0-3 (default: all)");
  cmd->add_flag("--dcgm-compat", flags->dcgm_compat,
                "dcgm-exporter's metric names, units and labels (NVIDIA GPUs only), for its dashboards");
  cmd->add_flag("--processes", flags->processes,
                "Per-process series too: GPU memory and GPU use per pid and command (at most 32 per GPU)");
  add_watched_run_options(*cmd, flags->run,
                          "exported as gpuwatch_run_* series: name, progress, advisories, its GPUs");
  cmd->callback([flags, &exit_code] {
    ExporterOptions options;
    try {
      options.listen = parse_listen_address(flags->listen);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--listen", e.what());
    }
    options.interval_s = flags->interval_s;
    if (!flags->gpus.empty()) options.gpus = parse_gpu_list(flags->gpus);
    options.dcgm_compat = flags->dcgm_compat;
    options.processes = flags->processes;
    options.watched_run = watched_run_reader(flags->run);
    options.on_listening = [](const std::string& url) {
      std::printf("gpuwatch exporter: serving %s (Ctrl-C stops)\n", url.c_str());
      std::fflush(stdout);
    };
    exit_code = run_exporter(SystemPaths::from_environment(), options);
  });
}

}  // namespace gpuwatch::cli
