// A small GET-only HTTP server: the exporter's /metrics and serve's pages and
// API. Read-only by construction (the module refuses every other method).
// Event-driven (libmicrohttpd on epoll): a connection costs a socket and a
// few KiB, not a thread, so slow or silent clients hold nothing others need;
// every phase of a connection has a deadline, every buffer a bound
// (HttpLimits). The server itself lives in a module loaded on first use
// (http/http_module_api.h says why).
#pragma once

#include <filesystem>
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
  std::string_view accept_encoding;  // empty without the header
};

// A streamed body (server-sent events): next() writes what it has through
// `write` (false once the client is gone or too slow) and returns false at
// the end. It runs on a thread of its own, may wait for data, but briefly:
// the server's stop waits for it. `write` may wait while the client is
// behind (the bytes not yet sent are bounded), up to the write deadline.
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

// What the server holds for its clients, at most (GpuwatchHttpLimits says
// what each means). Past a limit a client gets an answer that says so (431,
// 503) or its connection is closed; the process never grows with a request.
struct HttpLimits {
  int worker_threads = 2;
  int max_queued = 32;
  int max_connections = 64;
  int max_streams = 1;
  std::size_t max_header_bytes = 8192;
  int max_headers = 64;
  int request_deadline_s = 10;
  int write_deadline_s = 10;
  std::size_t stream_buffer_bytes = std::size_t{1} << 20;
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

// The HTTP module to load (GPUWATCH_HTTP_MODULE, as cli/ read it); empty:
// beside the executable, else where the install puts it. cli/ sets it once
// at start.
void set_http_module_path(std::filesystem::path path);

}  // namespace gpuwatch
