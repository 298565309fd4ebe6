// A small GET-only HTTP server: the exporter's /metrics and serve's pages and
// API. Read-only by construction (the module refuses every other method),
// with a bounded thread pool, short timeouts and a request size limit, so
// slow or hostile clients cannot hold it. The server itself lives in a module
// loaded on first use (http/http_module_api.h says why).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "http/http_module_api.h"
#include "http/listen_address.h"

namespace gpuwatch {

class HttpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HttpRequest {
  std::string_view target;         // path and query, undecoded
  std::string_view authorization;  // empty without the header
  std::string_view host;           // the Host header, empty without one
};

// A streamed body (server-sent events): next() writes what it has through
// `write` (false once the client is gone) and returns false at the end. It
// may wait for data, but briefly: the server's stop waits for it.
class HttpStream {
 public:
  virtual ~HttpStream() = default;
  virtual bool next(const std::function<bool(std::string_view)>& write) = 0;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::string headers;  // more headers, "Name: value\n" lines
  std::unique_ptr<HttpStream> stream;  // instead of body
};

using HttpHandler = std::function<HttpReply(const HttpRequest&)>;

struct HttpLimits {
  int threads = 4;
  std::size_t max_payload_bytes = 1024;
  int read_timeout_s = 5;
  int write_timeout_s = 5;
  int keep_alive_max_count = 1;  // one request per connection
};

class HttpServer {
 public:
  // Loads the module and binds at once; throws HttpError when either fails.
  // `handler` is called from the server's threads, concurrently.
  HttpServer(const ListenAddress& listen, const HttpLimits& limits, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port bound: the one asked for, or the one the kernel picked for 0.
  [[nodiscard]] int port() const;
  // Answers requests until stop(). Blocks.
  void run();
  // Thread-safe; run() returns soon after.
  void stop();

 private:
  static void handle(void* context, const GpuwatchHttpRequest* request, GpuwatchHttpRespond respond,
                     void* respond_context) noexcept;

  HttpHandler handler_;
  const GpuwatchHttpApi* api_ = nullptr;
  GpuwatchHttpServer* server_ = nullptr;
};

}  // namespace gpuwatch
