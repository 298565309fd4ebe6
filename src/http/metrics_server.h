// The exporter's HTTP side: GET /metrics answers with the last body handed
// to publish(), so a scrape costs a string copy and never waits on the
// driver; GET / points there; anything else is 404. Read-only, small thread
// pool, short timeouts and a tiny request limit, so slow or hostile clients
// cannot hold it (slowloris). The server itself lives in a module loaded on
// first use (http/http_module_api.h says why).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "http/http_module_api.h"
#include "http/listen_address.h"

namespace gpuwatch {

class HttpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MetricsServer {
 public:
  // Loads the module and binds at once; throws HttpError when either fails.
  explicit MetricsServer(const ListenAddress& listen);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The port bound: the one asked for, or the one the kernel picked for 0.
  [[nodiscard]] int port() const;
  // The body of the next scrapes. Thread-safe.
  void publish(std::string metrics_body);
  // Answers requests until stop(). Blocks.
  void run();
  // Thread-safe; run() returns soon after.
  void stop();

 private:
  const GpuwatchHttpApi* api_ = nullptr;
  GpuwatchHttpServer* server_ = nullptr;
};

}  // namespace gpuwatch
