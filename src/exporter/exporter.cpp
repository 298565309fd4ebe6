#include "exporter/exporter.h"

#include <cstdint>
#include <thread>

#include <fmt/format.h>

#include "live/metrics_feed.h"
#include "base/stop_signals.h"
#include "http/metrics_server.h"

namespace gpuwatch {

int run_exporter(const SystemPaths& paths, const ExporterOptions& options) {
  StopSignals stop;
  // Before any driver is opened: a taken port fails at once.
  MetricsServer server(options.listen, options.allowed_hosts, options.max_connections);
  MetricsFeed feed(paths, options.feed);
  std::thread serving([&] { server.run(); });
  if (options.on_listening) {
    const ListenAddress bound{options.listen.host, static_cast<std::uint16_t>(server.port())};
    options.on_listening(fmt::format("http://{}/metrics", bound.text()));
  }
  feed.run_until(stop.fd(), [&](std::string body) { server.publish(std::move(body)); });
  server.stop();
  serving.join();
  return 0;
}

}  // namespace gpuwatch
