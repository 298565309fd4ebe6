// The exporter's HTTP side: GET /metrics answers with the last body handed
// to publish(), so a scrape costs a string copy and never waits on the
// driver; GET / points there; anything else is 404. A Host header that names
// neither this machine nor an address is refused (403, host_check.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "http/host_check.h"
#include "http/http_server.h"
#include "http/published_text.h"

namespace gpuwatch {

class MetricsServer {
 public:
  // Binds at once; throws HttpError when it cannot. `allowed_names`: host
  // names scrapers may send besides this machine's (--allow-host);
  // `max_connections` (0: the default, 1024) as HttpLimits says.
  explicit MetricsServer(const ListenAddress& listen, const std::vector<std::string>& allowed_names = {},
                         int max_connections = 0);

  [[nodiscard]] int port() const { return server_.port(); }
  // The body of the next scrapes. Thread-safe.
  void publish(std::string metrics_body) { body_.publish(std::move(metrics_body)); }
  void run() { server_.run(); }
  void stop() { server_.stop(); }

 private:
  HttpReply answer(const HttpRequest& request) const;

  PublishedText body_;
  AllowedHosts hosts_;
  HttpServer server_;  // last: its threads call answer() until it is gone
};

}  // namespace gpuwatch
