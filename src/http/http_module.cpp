#include "http/http_module_api.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include <sys/socket.h>

#include <httplib.h>

namespace {

struct Server {
  httplib::Server server;
  int port = 0;
  GpuwatchHttpHandler handler = nullptr;
  void* context = nullptr;
  // httplib's stop() does nothing before its listen loop has started: these
  // let a stop() that comes first still end run().
  std::atomic<bool> stop_requested = false;
  std::atomic<bool> run_entered = false;
  std::atomic<bool> run_returned = false;
};

int write_to_sink(void* sink, const char* data, std::size_t size) {
  return static_cast<httplib::DataSink*>(sink)->write(data, size) ? 1 : 0;
}

void add_headers(httplib::Response& res, std::string_view lines) {
  while (!lines.empty()) {
    const std::size_t end = lines.find('\n');
    const std::string_view line = lines.substr(0, end);
    lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 1);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    res.set_header(std::string(line.substr(0, colon)), std::string(value));
  }
}

void respond(void* respond_context, const GpuwatchHttpReply* reply) {
  // Owned first, so that nothing below can leak it: shared by httplib's
  // copies of the provider, released with the last.
  std::shared_ptr<void> stream;
  if (reply->next != nullptr) stream = std::shared_ptr<void>(reply->stream, reply->release);
  auto& res = *static_cast<httplib::Response*>(respond_context);
  res.status = reply->status;
  if (reply->headers != nullptr) add_headers(res, reply->headers);
  if (reply->next == nullptr) {
    res.set_content(reply->body, reply->body_size, reply->content_type);
    return;
  }
  auto* next = reply->next;
  res.set_chunked_content_provider(reply->content_type, [stream, next](std::size_t, httplib::DataSink& sink) {
    if (next(stream.get(), write_to_sink, &sink) == 0) sink.done();
    return true;
  });
}

// False when the address cannot be bound.
bool setup(Server& impl, const char* host, int port, const GpuwatchHttpLimits& limits) {
  httplib::Server& s = impl.server;
  const auto threads = static_cast<std::size_t>(limits.threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_read_timeout(std::chrono::seconds(limits.read_timeout_s));
  s.set_write_timeout(std::chrono::seconds(limits.write_timeout_s));
  s.set_keep_alive_timeout(limits.read_timeout_s);
  s.set_keep_alive_max_count(static_cast<std::size_t>(limits.keep_alive_max_count));
  s.set_payload_max_length(limits.max_payload_bytes);
  // httplib writes the headers and the body apart: with Nagle on, the body
  // waits for the client's delayed ACK of the headers, 40 ms per scrape on a
  // reused connection (bench/exporter_cost.py measured p50 43 ms).
  s.set_tcp_nodelay(true);
  // httplib's default adds SO_REUSEPORT, which lets a second server bind the
  // same port and take half the requests; SO_REUSEADDR alone still allows a
  // restart while old connections linger in TIME_WAIT.
  s.set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  Server* self = &impl;
  s.Get(".*", [self](const httplib::Request& req, httplib::Response& res) {
    const std::string authorization = req.get_header_value("Authorization");
    const std::string host_header = req.get_header_value("Host");
    const GpuwatchHttpRequest request{req.target.c_str(), authorization.c_str(), host_header.c_str()};
    self->handler(self->context, &request, respond, &res);
  });
  if (port == 0) {
    impl.port = s.bind_to_any_port(host);
  } else {
    impl.port = s.bind_to_port(host, port) ? port : -1;
  }
  return impl.port > 0;
}

Server* as_server(GpuwatchHttpServer* p) { return reinterpret_cast<Server*>(p); }

GpuwatchHttpServer* create(const char* host, int port, const GpuwatchHttpLimits* limits, GpuwatchHttpHandler handler,
                           void* context, char* error, std::size_t error_size) {
  auto server = std::make_unique<Server>();
  server->handler = handler;
  server->context = context;
  if (!setup(*server, host, port, *limits)) {
    std::snprintf(error, error_size, "the port is taken, or the address is not one of this machine's");
    return nullptr;
  }
  return reinterpret_cast<GpuwatchHttpServer*>(server.release());
}

int bound_port(const GpuwatchHttpServer* p) { return reinterpret_cast<const Server*>(p)->port; }

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

constexpr GpuwatchHttpApi kApi{gpuwatch::kHttpModuleAbi, create, bound_port, run, stop, destroy};

}  // namespace

extern "C" __attribute__((visibility("default"))) const GpuwatchHttpApi* gpuwatch_http_api() { return &kApi; }
