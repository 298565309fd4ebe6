// `gpuwatch serve`: the dashboard over the run store (docs/serve.md).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/advisor/config.h"
#include "backends/backend.h"
#include "live/metrics_feed.h"
#include "http/host_check.h"
#include "http/http_server.h"
#include "http/listen_address.h"
#include "http/published_text.h"
#include "serve/answer_cache.h"
#include "serve/live_stream.h"
#include "serve/store_pool.h"

namespace gpuwatch {

inline constexpr std::string_view kDefaultServeListen = "127.0.0.1:9410";

struct ServeLink {
  std::string name;
  std::string url;
};

// NAME=URL as --link takes it; nullopt with `why` set when it is not one
// (no '=', an empty or over-long name, a URL that is not http(s) or holds
// spaces or controls).
std::optional<ServeLink> parse_serve_link(std::string_view text, std::string& why);

struct ServeOptions {
  ListenAddress listen;
  std::vector<std::filesystem::path> stores;  // one or more (a file per node of a job)
  std::string token;  // empty: none asked for (loopback only)
  bool token_generated = false;  // made by the CLI: the printed URL carries it
  int max_connections = 0;  // 0: the server's default (1024)
  AdvisorConfig advisor;  // the thresholds of a run's status
  // The user named them (--advisor-config, --model-size): they win over the
  // config each run was recorded with (analysis/run_verdict.h).
  bool advisor_given = false;
  // --metrics: the exporter's series at /metrics too (behind the token when
  // there is one), sampled by this process. None: /metrics is 404.
  std::optional<MetricsFeedOptions> metrics;
  // --link NAME=URL: shown in every page's header (the fleet's Grafana
  // dashboard, a W&B project). http and https only.
  std::vector<ServeLink> links;
  // Told the URL to open once the port is bound (the CLI prints it).
  std::function<void(const std::string& url)> on_listening;
};

// Answers the dashboard's requests: pages, the JSON API, live streams.
// Thread-safe; read-only.
class Dashboard {
 public:
  Dashboard(const std::vector<std::filesystem::path>& stores, std::string token, AllowedHosts hosts,
            AdvisorConfig advisor, bool metrics = false, std::vector<ServeLink> links = {})
      : stores_(stores),
        token_(std::move(token)),
        hosts_(std::move(hosts)),
        advisor_(std::move(advisor)),
        metrics_(metrics),
        links_(std::move(links)) {}
  HttpReply answer(const HttpRequest& request);
  // ServeOptions::advisor_given.
  void set_advisor_given(bool given) { advisor_given_ = given; }
  // The body of the next GET /metrics (with metrics on). Thread-safe.
  void publish_metrics(std::string body) { metrics_body_.publish(std::move(body)); }
  // Ends the live streams (the server's stop waits for them).
  void stop() { streams_.stop(); }

 private:
  HttpReply route(const HttpRequest& request);

  StorePools stores_;
  std::string token_;
  AllowedHosts hosts_;  // without a token
  AdvisorConfig advisor_;
  bool advisor_given_ = false;
  LiveStreams streams_;
  bool metrics_;
  std::vector<ServeLink> links_;
  PublishedText metrics_body_;
  // Finished runs' reports and compares: a few, up to 32 MiB in all.
  AnswerCache answers_{16, std::size_t{32} << 20};
};

// Serves until SIGINT or SIGTERM; returns the exit code (0 then). Throws
// HttpError when it cannot listen, WatchError for bad metrics options.
int run_serve(const SystemPaths& paths, const ServeOptions& options);

}  // namespace gpuwatch
