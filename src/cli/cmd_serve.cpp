#include <cstdio>
#include <stdexcept>

#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/metrics_feed_options.h"
#include "cli/run_status_source.h"
#include "cli/options.h"
#include "serve/access_token.h"
#include "serve/serve.h"

namespace gpuwatch::cli {

void add_serve(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("serve", "Dashboard of the stored runs in a browser: timelines, live runs, compare");
  struct Flags {
    std::string listen{kDefaultServeListen};
    std::string token;
    std::vector<std::string> store;
    AdvisorFlags advisor;
    bool metrics = false;
    MetricsFeedFlags feed;
    std::vector<std::string> links;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--listen", flags->listen,
                  "ADDR:PORT to serve on; any address but loopback needs a token (one is made and printed)")
      ->capture_default_str();
  cmd->add_option("--token", flags->token, "The token every request must carry (?token= or Authorization: Bearer)");
  add_stores_option(*cmd, flags->store);
  add_advisor_options(*cmd, flags->advisor);
  cmd->add_option("--link", flags->links,
                  "NAME=URL shown in every page's header, e.g. Grafana=http://grafana:3000/d/gpuwatch. Repeatable");
  auto* metrics = cmd->add_flag("--metrics", flags->metrics,
                                "Serve the exporter's /metrics too, sampled by this process (docs/exporter.md)");
  for (CLI::Option* option : add_metrics_feed_options(*cmd, flags->feed)) option->needs(metrics);
  cmd->callback([flags, &exit_code] {
    ServeOptions options;
    try {
      options.listen = parse_listen_address(flags->listen);
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--listen", e.what());
    }
    options.stores = StoreList(flags->store).paths();
    options.advisor = advisor_config(flags->advisor);
    options.token = flags->token;
    if (!options.token.empty() && !is_token_text(options.token)) {
      throw CLI::ValidationError("--token", "use letters, digits and . _ ~ - only (it goes into a URL as it is)");
    }
    if (options.token.empty() && !is_loopback_host(options.listen.host)) options.token = generate_access_token();
    for (const std::string& text : flags->links) {
      std::string why;
      const auto link = parse_serve_link(text, why);
      if (!link) throw CLI::ValidationError("--link", text + ": " + why);
      options.links.push_back(*link);
    }
    if (flags->metrics) {
      options.metrics = metrics_feed_options(flags->feed);
      options.metrics->log_prefix = "gpuwatch serve";
      // The store's recording run, as `exporter` shows it; with several
      // stores (other nodes' files) none: a node's /metrics is its own.
      WatchedRunFlags run;
      run.no_run = options.stores.size() != 1;
      if (!run.no_run) run.store = options.stores.front().string();
      run.advisor = flags->advisor;
      options.metrics->watched_run = watched_run_reader(run);
    }
    options.on_listening = [](const std::string& url) {
      std::printf("gpuwatch serve: open %s (Ctrl-C stops)\n", url.c_str());
      std::fflush(stdout);
    };
    exit_code = run_serve(SystemPaths::from_environment(), options);
  });
}

}  // namespace gpuwatch::cli
