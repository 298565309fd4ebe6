#include "http/http_module_api.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include <sys/socket.h>

#include <httplib.h>

namespace {

// Four serve an HA pair of Prometheus servers plus a curl or two, and cost
// nothing idle.
constexpr std::size_t kThreads = 4;
// A scrape is a bare GET: anything with a body is not one.
constexpr std::size_t kMaxPayloadBytes = 1024;
constexpr auto kReadTimeout = std::chrono::seconds(5);
constexpr auto kWriteTimeout = std::chrono::seconds(5);
constexpr time_t kKeepAliveSeconds = 5;

constexpr std::string_view kIndexPage =
    "<html><body>gpuwatch exporter: metrics at <a href=\"/metrics\">/metrics</a></body></html>\n";

struct Server {
  httplib::Server server;
  int port = 0;
  std::mutex mutex;
  std::shared_ptr<const std::string> body = std::make_shared<const std::string>();
  // httplib's stop() does nothing before its listen loop has started: these
  // let a stop() that comes first still end run().
  std::atomic<bool> stop_requested = false;
  std::atomic<bool> run_entered = false;
  std::atomic<bool> run_returned = false;
};

// False when the address cannot be bound.
bool setup(Server& impl, const char* host, int port) {
  httplib::Server& s = impl.server;
  s.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  s.set_read_timeout(kReadTimeout);
  s.set_write_timeout(kWriteTimeout);
  s.set_keep_alive_timeout(kKeepAliveSeconds);
  // One request per connection. httplib waits for a keep-alive connection's
  // next request by polling it every ~11 ms, which cost 0.56 % of a core for
  // the 5 s each connection idles (bench/exporter_cost.py; 0.06 % is the
  // whole exporter's idle cost with 8 GPUs). Prometheus scrapes every 15 s
  // or so, later than any keep-alive timeout, so it reconnects anyway.
  s.set_keep_alive_max_count(1);
  s.set_payload_max_length(kMaxPayloadBytes);
  // httplib writes the headers and the body apart: with Nagle on, the body
  // waits for the client's delayed ACK of the headers, 40 ms per scrape on a
  // reused connection (bench/exporter_cost.py measured p50 43 ms).
  s.set_tcp_nodelay(true);
  // httplib's default adds SO_REUSEPORT, which lets a second exporter bind
  // the same port and take half the scrapes; SO_REUSEADDR alone still
  // allows a restart while old connections linger in TIME_WAIT.
  s.set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  Server* self = &impl;
  s.Get("/metrics", [self](const httplib::Request&, httplib::Response& res) {
    std::shared_ptr<const std::string> body;
    {
      std::lock_guard lock(self->mutex);
      body = self->body;
    }
    res.set_content(*body, std::string(gpuwatch::kPrometheusContentType));
  });
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(kIndexPage), "text/html; charset=utf-8");
  });
  if (port == 0) {
    impl.port = s.bind_to_any_port(host);
  } else {
    impl.port = s.bind_to_port(host, port) ? port : -1;
  }
  return impl.port > 0;
}

Server* as_server(GpuwatchHttpServer* p) { return reinterpret_cast<Server*>(p); }

GpuwatchHttpServer* create(const char* host, int port, char* error, std::size_t error_size) {
  auto server = std::make_unique<Server>();
  if (!setup(*server, host, port)) {
    std::snprintf(error, error_size, "the port is taken, or the address is not one of this machine's");
    return nullptr;
  }
  return reinterpret_cast<GpuwatchHttpServer*>(server.release());
}

int bound_port(const GpuwatchHttpServer* p) { return reinterpret_cast<const Server*>(p)->port; }

void publish(GpuwatchHttpServer* p, const char* data, std::size_t size) {
  auto body = std::make_shared<const std::string>(data, size);
  Server* s = as_server(p);
  std::lock_guard lock(s->mutex);
  s->body = std::move(body);
}

void run(GpuwatchHttpServer* p) {
  Server* s = as_server(p);
  s->run_entered = true;
  if (!s->stop_requested) s->server.listen_after_bind();
  s->run_returned = true;
}

void stop(GpuwatchHttpServer* p) {
  Server* s = as_server(p);
  s->stop_requested = true;
  if (!s->run_entered) return;  // run() will see stop_requested
  while (!s->run_returned && !s->server.is_running()) std::this_thread::yield();
  s->server.stop();
}

void destroy(GpuwatchHttpServer* p) { delete as_server(p); }

constexpr GpuwatchHttpApi kApi{gpuwatch::kHttpModuleAbi, create, bound_port, publish, run, stop, destroy};

}  // namespace

extern "C" __attribute__((visibility("default"))) const GpuwatchHttpApi* gpuwatch_http_api() { return &kApi; }
