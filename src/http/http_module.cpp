// libgpuwatch-http.so: the HTTP server behind http_module_api.h, on
// libmicrohttpd (event-driven: one thread reads and writes every connection
// through epoll). Around it: the gate that accepts and holds connections to
// their deadlines (connection_gate.h), the workers that make answers
// (work_queue.h), the threads that pump streams (stream_pump.h).
//
// A request's life: libmicrohttpd reads its head into the connection's
// memory pool, which caps it (431 past it, before any of our code runs);
// access() checks the method, the header count and size, and that there is
// no body; once the request is whole it suspends the connection and queues
// the handler's call on a worker; the worker builds the response and resumes
// the connection; access() is called again and queues it.
#include "http/http_module_api.h"

#include <microhttpd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "http/connection_gate.h"
#include "http/stream_pump.h"
#include "http/work_queue.h"

namespace {

using gpuwatch::http_module::ConnectionGate;
using gpuwatch::http_module::GateLimits;
using gpuwatch::http_module::StreamPump;
using gpuwatch::http_module::StreamSource;
using gpuwatch::http_module::WorkQueue;

struct Server {
  Server(const char* host, int port, const GpuwatchHttpLimits& l)
      : limits(l),
        gate(host, port,
             GateLimits{l.max_connections, std::chrono::seconds(l.request_deadline_s),
                        std::chrono::seconds(l.write_deadline_s)}),
        workers(l.worker_threads, l.max_queued),
        streams(l.max_streams, l.stream_buffer_bytes, std::chrono::seconds(l.write_deadline_s)) {}

  GpuwatchHttpLimits limits;
  GpuwatchHttpHandler handler = nullptr;
  void* context = nullptr;
  ConnectionGate gate;
  WorkQueue workers;
  StreamPump streams;
  MHD_Daemon* daemon = nullptr;
  std::atomic<bool> stopping = false;
};

// One request, from its request line (uri_logged) to its end (completed).
struct Request {
  Request(Server* s, MHD_Connection* c) : server(s), connection(c) {}
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  Server* server;
  MHD_Connection* connection;
  std::string target;  // as sent: path and query, undecoded
  std::string authorization;  // copied on libmicrohttpd's thread, which owns the header list
  std::string host;
  std::string accept_encoding;
  // Made by a worker before it resumes the connection; queued by access().
  MHD_Response* response = nullptr;
  unsigned status = 0;
  bool stream = false;
  bool head_checked = false;

  ~Request() {
    if (response != nullptr) MHD_destroy_response(response);
  }
};

int socket_of(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info != nullptr ? info->connect_fd : -1;
}

// {"schema_version": 1, "error": MESSAGE}: the module's own refusals read as
// the dashboard's do. `message` holds no character JSON would escape.
MHD_Response* error_response(std::string_view message, const char* extra_header = nullptr,
                             const char* extra_value = nullptr) {
  std::string body = R"({"schema_version": 1, "error": ")";
  body.append(message);
  body += "\"}";
  MHD_Response* r = MHD_create_response_from_buffer(body.size(), body.data(), MHD_RESPMEM_MUST_COPY);
  if (r == nullptr) return nullptr;
  MHD_add_response_header(r, "Content-Type", "application/json");
  if (extra_header != nullptr) MHD_add_response_header(r, extra_header, extra_value);
  return r;
}

// Queues `response` (null: out of memory, the connection is closed) and
// gives up this function's reference to it.
MHD_Result send(Request& request, unsigned status, MHD_Response* response) {
  if (response == nullptr) return MHD_NO;
  if (request.stream) {
    request.server->gate.streaming(socket_of(request.connection));
  } else {
    request.server->gate.writing(socket_of(request.connection));
  }
  const MHD_Result queued = MHD_queue_response(request.connection, status, response);
  MHD_destroy_response(response);
  return queued;
}

// ---- the worker's side -------------------------------------------------

// "Name: value" lines ending in '\n'; a malformed line is skipped (and
// libmicrohttpd refuses names or values holding line breaks).
void add_headers(MHD_Response* response, std::string_view lines) {
  while (!lines.empty()) {
    const std::size_t end = lines.find('\n');
    const std::string_view line = lines.substr(0, end);
    lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 1);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    MHD_add_response_header(response, std::string(line.substr(0, colon)).c_str(), std::string(value).c_str());
  }
}

// GpuwatchHttpRespond: the handler's answer, made into a response.
void respond(void* respond_context, const GpuwatchHttpReply* reply) {
  auto& request = *static_cast<Request*>(respond_context);
  if (request.response != nullptr) return;  // answered once already
  MHD_Response* response = nullptr;
  if (reply->next != nullptr) {
    response = request.server->streams.open(request.connection, StreamSource{reply->next, reply->stream, reply->release});
    if (response == nullptr) {
      request.status = MHD_HTTP_SERVICE_UNAVAILABLE;
      request.response = error_response("too many streams open; close a page and try again");
      return;
    }
    request.stream = true;
  } else {
    response = MHD_create_response_from_buffer(reply->body_size, const_cast<char*>(reply->body), MHD_RESPMEM_MUST_COPY);
    if (response == nullptr) return;
  }
  MHD_add_response_header(response, "Content-Type", reply->content_type);
  if (reply->headers != nullptr) add_headers(response, reply->headers);
  request.status = static_cast<unsigned>(reply->status);
  request.response = response;
}

void answer(Request& request, bool stopping) {
  Server& server = *request.server;
  if (stopping || server.stopping) {
    request.status = MHD_HTTP_SERVICE_UNAVAILABLE;
    request.response = error_response("the server is stopping");
  } else {
    const GpuwatchHttpRequest c_request{request.target.c_str(), request.authorization.c_str(), request.host.c_str(),
                                        request.accept_encoding.c_str()};
    server.handler(server.context, &c_request, respond, &request);
  }
  if (request.response == nullptr) {
    request.status = MHD_HTTP_INTERNAL_SERVER_ERROR;
    request.response = error_response("no answer was made");
  }
  MHD_resume_connection(request.connection);  // last: access() may free the request at once
}

// ---- libmicrohttpd's callbacks, on its thread ----------------------------

struct HeadSize {
  std::size_t lines = 0;
  std::size_t bytes = 0;
};

MHD_Result count_header(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto& size = *static_cast<HeadSize*>(cls);
  ++size.lines;
  size.bytes += std::strlen(key) + (value != nullptr ? std::strlen(value) : 0) + 4;  // ": ", CRLF
  return MHD_YES;
}

// A refusal for a request this server never answers, or none.
std::optional<std::pair<unsigned, MHD_Response*>> refusal(const Request& request, MHD_Connection* connection,
                                                         const char* method) {
  const GpuwatchHttpLimits& limits = request.server->limits;
  if (std::strcmp(method, MHD_HTTP_METHOD_GET) != 0 && std::strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
    return std::pair{MHD_HTTP_METHOD_NOT_ALLOWED, error_response("only GET is answered here", "Allow", "GET, HEAD")};
  }
  HeadSize head;
  MHD_get_connection_values(connection, MHD_HEADER_KIND, count_header, &head);
  head.bytes += request.target.size() + std::strlen(method) + 12;  // the request line
  if (head.lines > static_cast<std::size_t>(limits.max_headers) || head.bytes > limits.max_header_bytes) {
    return std::pair{MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
                     error_response("the request's headers are too large or too many")};
  }
  if (MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length") != nullptr ||
      MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Transfer-Encoding") != nullptr) {
    return std::pair{MHD_HTTP_CONTENT_TOO_LARGE, error_response("a GET request has no body")};
  }
  if (request.server->stopping) {
    return std::pair{MHD_HTTP_SERVICE_UNAVAILABLE, error_response("the server is stopping")};
  }
  return std::nullopt;
}

// Called when the head has come (first call: refusals, which close the
// connection), again once the request is whole (dispatch), and again when a
// worker has resumed the connection (its answer is queued). An answer queued
// at the first call ends the connection; one queued later lets it live on.
MHD_Result access(void* cls, MHD_Connection* connection, const char*, const char* method, const char*, const char*,
                  std::size_t* upload_size, void** request_cls) {
  auto* server = static_cast<Server*>(cls);
  auto* request = static_cast<Request*>(*request_cls);
  if (request == nullptr) {  // no request line was logged: should not happen
    request = new Request{server, connection};
    *request_cls = request;
  }
  if (request->response != nullptr) {  // resumed: the worker's answer is here
    MHD_Response* response = request->response;
    request->response = nullptr;
    return send(*request, request->status, response);
  }
  if (!request->head_checked) {
    request->head_checked = true;
    server->gate.handling(socket_of(connection));
    if (auto refused = refusal(*request, connection, method)) return send(*request, refused->first, refused->second);
    return MHD_YES;
  }
  if (*upload_size != 0) {  // a body the head did not announce: not read, not answered
    *upload_size = 0;
    return MHD_YES;
  }
  const auto header = [connection](const char* name) {
    const char* value = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
    return std::string(value != nullptr ? value : "");
  };
  request->authorization = header("Authorization");
  request->host = header("Host");
  request->accept_encoding = header("Accept-Encoding");
  // Suspended before the worker may resume it; a job the queue does not take
  // is answered here, the connection resumed by us.
  MHD_suspend_connection(connection);
  if (!server->workers.submit([request](bool stopping) { answer(*request, stopping); })) {
    request->status = MHD_HTTP_SERVICE_UNAVAILABLE;
    request->response = error_response("too many requests waiting; try again in a moment", "Retry-After", "1");
    MHD_resume_connection(connection);
  }
  return MHD_YES;
}

void* uri_logged(void* cls, const char* uri, MHD_Connection* connection) {
  auto* request = new Request{static_cast<Server*>(cls), connection};
  request->target = uri != nullptr ? uri : "";
  return request;
}

void completed(void* cls, MHD_Connection* connection, void** request_cls, MHD_RequestTerminationCode) {
  delete static_cast<Request*>(*request_cls);
  *request_cls = nullptr;
  static_cast<Server*>(cls)->gate.idle(socket_of(connection));
}

void connection_event(void* cls, MHD_Connection* connection, void**, MHD_ConnectionNotificationCode code) {
  auto* server = static_cast<Server*>(cls);
  const int fd = socket_of(connection);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) server->gate.started(fd);
  if (code == MHD_CONNECTION_NOTIFY_CLOSED) server->gate.closed(fd);
}

// ---- the C interface ----------------------------------------------------

// libmicrohttpd's memory pool per connection holds the request's head, the
// header list and the answer's head: the limit, a header's bookkeeping, and
// room for our answer's headers. Past it libmicrohttpd answers 431 itself.
std::size_t pool_bytes(const GpuwatchHttpLimits& limits) {
  return limits.max_header_bytes * 2 + static_cast<std::size_t>(limits.max_headers) * 64 + 8192;
}

bool start_daemon(Server& s) {
  const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                         MHD_USE_NO_LISTEN_SOCKET;
  const int timeout_s = std::max(s.limits.request_deadline_s, s.limits.write_deadline_s);
  // The gate keeps the count under max_connections; libmicrohttpd's own cap
  // only guards against a gate bug, with room for connections being closed.
  const unsigned connection_cap = static_cast<unsigned>(s.limits.max_connections) * 2 + 16;
  s.daemon = MHD_start_daemon(
      flags, 0, nullptr, nullptr, &access, &s, MHD_OPTION_CONNECTION_LIMIT, connection_cap,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, pool_bytes(s.limits), MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned>(timeout_s), MHD_OPTION_URI_LOG_CALLBACK, &uri_logged, &s, MHD_OPTION_NOTIFY_COMPLETED,
      &completed, &s, MHD_OPTION_NOTIFY_CONNECTION, &connection_event, &s, MHD_OPTION_END);
  return s.daemon != nullptr;
}

Server* as_server(GpuwatchHttpServer* p) { return reinterpret_cast<Server*>(p); }

GpuwatchHttpServer* create(const char* host, int port, const GpuwatchHttpLimits* limits, GpuwatchHttpHandler handler,
                           void* context, char* error, std::size_t error_size) {
  auto server = std::make_unique<Server>(host, port, *limits);
  server->handler = handler;
  server->context = context;
  if (!server->gate.listening()) {
    std::snprintf(error, error_size, "%s", server->gate.error().c_str());
    return nullptr;
  }
  if (!start_daemon(*server)) {
    std::snprintf(error, error_size, "libmicrohttpd did not start (out of memory or threads)");
    return nullptr;
  }
  return reinterpret_cast<GpuwatchHttpServer*>(server.release());
}

int bound_port(const GpuwatchHttpServer* p) { return reinterpret_cast<const Server*>(p)->gate.port(); }

void run(GpuwatchHttpServer* p) {
  Server& s = *as_server(p);
  s.gate.run([&s](int fd, const sockaddr* address, socklen_t length) {
    return MHD_add_connection(s.daemon, fd, address, length) == MHD_YES;
  });
}

void stop(GpuwatchHttpServer* p) { as_server(p)->gate.stop(); }

// No connection may stay suspended when libmicrohttpd stops: the workers
// answer what is queued (503) and resume theirs, the streams end and resume
// theirs, and only then does the daemon go.
void destroy(GpuwatchHttpServer* p) {
  Server* s = as_server(p);
  s->gate.stop();
  s->stopping = true;
  s->workers.stop();
  s->streams.stop();
  MHD_stop_daemon(s->daemon);
  delete s;
}

constexpr GpuwatchHttpApi kApi{gpuwatch::kHttpModuleAbi, create, bound_port, run, stop, destroy};

}  // namespace

extern "C" __attribute__((visibility("default"))) const GpuwatchHttpApi* gpuwatch_http_api() { return &kApi; }
