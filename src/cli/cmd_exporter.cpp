#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/metrics_feed_options.h"
#include "cli/options.h"
#include "cli/run_status_source.h"
#include "exporter/exporter.h"

namespace gpuwatch::cli {

void add_exporter(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("exporter", "Serve every GPU's and the host's metrics to Prometheus (GET /metrics)");
  struct Flags {
    std::string listen{kDefaultExporterListen};
    std::vector<std::string> allowed_hosts;
    int max_connections = 1024;
    MetricsFeedFlags feed;
    WatchedRunFlags run;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--listen", flags->listen,
                  "ADDR:PORT to serve on; 0.0.0.0:9400 for every interface, [::1]:9400 for IPv6, port 0 for any "
                  "free one")
      ->capture_default_str();
  cmd->add_option("--allow-host", flags->allowed_hosts,
                  "A host name scrapers use for this machine, answered besides its own name and any address "
                  "(other Host headers get 403: DNS rebinding). Repeatable");
  add_max_connections_option(*cmd, flags->max_connections);
  add_metrics_feed_options(*cmd, flags->feed);
  add_watched_run_options(*cmd, flags->run,
                          "exported as gpuwatch_run_* series: name, progress, advisories, its GPUs");
  cmd->callback([flags, &exit_code] {
    ExporterOptions options;
    try {
      options.listen = parse_listen_address(flags->listen);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--listen", e.what());
    }
    options.allowed_hosts = flags->allowed_hosts;
    options.max_connections = flags->max_connections;
    options.feed = metrics_feed_options(flags->feed);
    options.feed.watched_run = watched_run_reader(flags->run);
    options.on_listening = [](const std::string& url) {
      std::printf("gpuwatch exporter: serving %s (Ctrl-C stops)\n", url.c_str());
      std::fflush(stdout);
    };
    exit_code = run_exporter(SystemPaths::from_environment(), options);
  });
}

}  // namespace gpuwatch::cli
