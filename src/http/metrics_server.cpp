#include "http/metrics_server.h"

#include <string_view>

namespace gpuwatch {

namespace {

// Four serve an HA pair of Prometheus servers plus a curl or two, and cost
// nothing idle. One request per connection: httplib waits for a keep-alive
// connection's next request by polling it every ~11 ms, which cost 0.56 % of
// a core for the 5 s each connection idles (bench/exporter_cost.py; 0.06 %
// is the whole exporter's idle cost with 8 GPUs). Prometheus scrapes every
// 15 s or so, later than any keep-alive timeout, so it reconnects anyway. A
// scrape is a bare GET: anything with a body is not one.
constexpr HttpLimits kScrapeLimits{4, 1024, 5, 5, 1};

constexpr std::string_view kIndexPage =
    "<html><body>gpuwatch exporter: metrics at <a href=\"/metrics\">/metrics</a></body></html>\n";

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

}  // namespace

MetricsServer::MetricsServer(const ListenAddress& listen)
    : server_(listen, kScrapeLimits, [this](const HttpRequest& request) { return answer(request); }) {}

HttpReply MetricsServer::answer(const HttpRequest& request) const {
  HttpReply reply;
  const std::string_view path = path_of(request.target);
  if (path == "/metrics") {
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
