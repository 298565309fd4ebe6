#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/metrics_feed_options.h"
#include "cli/run_status_source.h"
#include "cli/options.h"
#include "core/lines.h"
#include "http/host_check.h"
#include "serve/access_token.h"
#include "serve/serve.h"

namespace gpuwatch::cli {

namespace {

constexpr const char* kTokenVariable = "GPUWATCH_TOKEN";

// The token's first line, without the line break and blanks around it.
std::string read_token_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CLI::ValidationError("--token-file", path + ": " + std::strerror(errno));
  std::string line;
  std::getline(in, line);
  return std::string(trimmed(line, kWhiteSpace));
}

// The token from --token, --token-file or $GPUWATCH_TOKEN, in that order
// (the first two exclude each other), checked; empty for none. `source`
// names where it came from, for the startup line (never the token itself).
std::string given_token(const std::string& flag, const std::string& file, std::string& source) {
  std::string token = flag;
  source = "--token";
  if (!file.empty()) {
    token = read_token_file(file);
    source = "--token-file";
    if (token.empty()) throw CLI::ValidationError("--token-file", file + " holds no token on its first line");
  } else if (const char* env = std::getenv(kTokenVariable); token.empty() && env != nullptr && *env != '\0') {
    token = env;
    source = kTokenVariable;
  }
  if (!token.empty() && !is_token_text(token)) {
    throw CLI::ValidationError(source, "use letters, digits and . _ ~ - only (it goes into a URL as it is)");
  }
  return token;
}

}  // namespace

void add_serve(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("serve", "Dashboard of the stored runs in a browser: timelines, live runs, compare");
  struct Flags {
    std::string listen{kDefaultServeListen};
    std::string token;
    std::string token_file;
    int max_connections = 1024;
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
  auto* token = cmd->add_option("--token", flags->token,
                                "The token every request must carry (?token= or Authorization: Bearer); other "
                                "users can read a command line: prefer --token-file or $GPUWATCH_TOKEN");
  cmd->add_option("--token-file", flags->token_file, "Read the token from the first line of this file")
      ->excludes(token);
  add_max_connections_option(*cmd, flags->max_connections);
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
    const AdvisorChoice advisor = advisor_choice(flags->advisor);
    options.advisor = advisor.config;
    options.advisor_given = advisor.given;
    options.max_connections = flags->max_connections;
    std::string token_source;
    options.token = given_token(flags->token, flags->token_file, token_source);
    if (options.token.empty() && !is_loopback_host(options.listen.host)) {
      options.token = generate_access_token();
      options.token_generated = true;
    }
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
    const bool token_given = !options.token.empty() && !options.token_generated;
    options.on_listening = [token_given, token_source](const std::string& url) {
      if (token_given) {
        std::printf("gpuwatch serve: open %s?token=<the token of %s> (Ctrl-C stops)\n", url.c_str(),
                    token_source.c_str());
      } else {
        std::printf("gpuwatch serve: open %s (Ctrl-C stops)\n", url.c_str());
      }
      std::fflush(stdout);
    };
    exit_code = run_serve(SystemPaths::from_environment(), options);
  });
}

}  // namespace gpuwatch::cli
