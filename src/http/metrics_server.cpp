#include "http/metrics_server.h"

#include <string_view>

#include "base/host_name.h"

namespace gpuwatch {

namespace {

// An answer is a copy of a published string: two workers serve an HA pair
// of Prometheus servers and a curl or two. Scrapers open a few connections;
// 1,024 are allowed because an idle one costs a socket and a few KiB, so
// that a thousand clients that say nothing leave room (past the cap the
// oldest one still sending its request makes room, else the newcomer gets
// 503 at once). A scrape is a bare GET: 8 KiB of headers is plenty, and a
// request must be whole within 10 s of its connection (or of the previous
// answer, on a kept-alive one).
constexpr HttpLimits kScrapeLimits{.worker_threads = 2,
                                   .max_queued = 32,
                                   .max_connections = 1024,
                                   .max_streams = 1,
                                   .max_header_bytes = 8192,
                                   .max_headers = 64,
                                   .request_deadline_s = 10,
                                   .write_deadline_s = 10,
                                   .stream_buffer_bytes = 64 * 1024};

constexpr std::string_view kIndexPage =
    "<html><body>gpuwatch exporter: metrics at <a href=\"/metrics\">/metrics</a></body></html>\n";

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

HttpLimits scrape_limits(int max_connections) {
  HttpLimits limits = kScrapeLimits;
  if (max_connections > 0) limits.max_connections = max_connections;
  return limits;
}

}  // namespace

MetricsServer::MetricsServer(const ListenAddress& listen, const std::vector<std::string>& allowed_names,
                             int max_connections)
    : hosts_(listen, host_name(), allowed_names),
      server_(listen, scrape_limits(max_connections), [this](const HttpRequest& request) { return answer(request); }) {}

HttpReply MetricsServer::answer(const HttpRequest& request) const {
  HttpReply reply;
  const std::string_view path = path_of(request.target);
  if (!hosts_.allows(request.host)) {
    reply.status = 403;
    reply.body = "gpuwatch exporter answers only to Host: " + hosts_.describe() +
                 " (a scraper that uses another name: --allow-host NAME)\n";
  } else if (path == "/metrics") {
    reply.content_type = std::string(kPrometheusContentType);
    reply.body = *body_.latest();
  } else if (path == "/") {
    reply.content_type = "text/html; charset=utf-8";
    reply.body = std::string(kIndexPage);
  } else {
    reply.status = 404;
    reply.body = "Not Found\n";
  }
  return reply;
}

}  // namespace gpuwatch
