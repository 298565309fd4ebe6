// `gpuwatch serve`: the dashboard over the run store (docs/serve.md).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "analysis/advisor/config.h"
#include "http/http_server.h"
#include "http/listen_address.h"
#include "serve/live_stream.h"
#include "serve/store_pool.h"

namespace gpuwatch {

inline constexpr std::string_view kDefaultServeListen = "127.0.0.1:9410";

struct ServeOptions {
  ListenAddress listen;
  std::vector<std::filesystem::path> stores;  // one or more (a file per node of a job)
  std::string token;  // empty: none asked for (loopback only)
  AdvisorConfig advisor;  // the thresholds of a run's status
  // Told the URL to open once the port is bound (the CLI prints it).
  std::function<void(const std::string& url)> on_listening;
};

// Answers the dashboard's requests: pages, the JSON API, live streams.
// Thread-safe; read-only.
class Dashboard {
 public:
  Dashboard(const std::vector<std::filesystem::path>& stores, std::string token, AdvisorConfig advisor)
      : stores_(stores), token_(std::move(token)), advisor_(std::move(advisor)) {}
  HttpReply answer(const HttpRequest& request);
  // Ends the live streams (the server's stop waits for them).
  void stop() { streams_.stop(); }

 private:
  HttpReply route(const HttpRequest& request);

  StorePools stores_;
  std::string token_;
  AdvisorConfig advisor_;
  LiveStreams streams_;
};

// Serves until SIGINT or SIGTERM; returns the exit code (0 then). Throws
// HttpError when it cannot listen.
int run_serve(const ServeOptions& options);

}  // namespace gpuwatch
