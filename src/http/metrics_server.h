// The exporter's HTTP side: GET /metrics answers with the last body handed
// to publish(), so a scrape costs a string copy and never waits on the
// driver; GET / points there; anything else is 404.
#pragma once

#include <string>
#include <utility>

#include "http/http_server.h"
#include "http/published_text.h"

namespace gpuwatch {

class MetricsServer {
 public:
  // Binds at once; throws HttpError when it cannot.
  explicit MetricsServer(const ListenAddress& listen);

  [[nodiscard]] int port() const { return server_.port(); }
  // The body of the next scrapes. Thread-safe.
  void publish(std::string metrics_body) { body_.publish(std::move(metrics_body)); }
  void run() { server_.run(); }
  void stop() { server_.stop(); }

 private:
  HttpReply answer(const HttpRequest& request) const;

  PublishedText body_;
  HttpServer server_;  // last: its threads call answer() until it is gone
};

}  // namespace gpuwatch
