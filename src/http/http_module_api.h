// The C interface between gpuwatch and its HTTP module (libgpuwatch-http.so),
// which alone links libmicrohttpd and, through Debian's build of it, GnuTLS:
// 3 MiB of resident memory that `record`, `top` and the status line would
// otherwise carry for nothing. Plain C types only, so no C++ exception or
// type crosses the dlopen boundary.
#pragma once

#include <cstddef>
#include <string_view>

extern "C" {

struct GpuwatchHttpServer;

// A GET request as it came: the target undecoded, so that the caller alone
// decides what a path means (percent-encoded dots and slashes included).
struct GpuwatchHttpRequest {
  const char* target;         // path and query, as sent
  const char* authorization;  // the Authorization header's value, "" without one
  const char* host;           // the Host header's value, "" without one
  const char* accept_encoding;  // the Accept-Encoding header's value, "" without one
};

// Writes a piece of a streamed body; 0 when the client has gone, or has not
// taken what was sent before within the write deadline. It may wait for the
// client (a bounded buffer lies between), never longer than that.
typedef int (*GpuwatchHttpWrite)(void* sink, const char* data, std::size_t size);

struct GpuwatchHttpReply {
  int status;
  const char* content_type;
  const char* body;
  std::size_t body_size;
  const char* headers;  // more headers, "Name: value" lines ending in '\n'; null: none
  // A streamed body instead (server-sent events): next() is called until it
  // returns 0, and may block a while for data; release() frees `stream`,
  // which the module owns from here on.
  int (*next)(void* stream, GpuwatchHttpWrite write, void* sink);
  void* stream;
  void (*release)(void* stream);
};

// The handler answers through respond(), once, before it returns.
typedef void (*GpuwatchHttpRespond)(void* respond_context, const GpuwatchHttpReply* reply);
typedef void (*GpuwatchHttpHandler)(void* context, const GpuwatchHttpRequest* request, GpuwatchHttpRespond respond,
                                    void* respond_context);

// What one client may hold (docs/serve.md, "Limits"). Every count is > 0.
struct GpuwatchHttpLimits {
  int worker_threads;        // run the handler; a slow answer holds one
  int max_queued;            // requests waiting for a worker; past them 503
  int max_connections;       // open at once; past them the oldest one still
                             // sending its request is closed, else 503
  int max_streams;           // streamed answers at once (a thread each); past them 503
  std::size_t max_header_bytes;  // request line and headers; past them 431
  int max_headers;               // header lines; past them 431
  int request_deadline_s;    // a whole request, from the connection's start
                             // or the previous answer; then it is closed
  int write_deadline_s;      // a whole answer, or a stream's next piece
  std::size_t stream_buffer_bytes;  // a stream's bytes not yet sent
};

struct GpuwatchHttpApi {
  int abi_version;
  // Binds; null on failure, with the reason in `error`. Every GET goes to
  // `handler`; other methods are refused by the module.
  GpuwatchHttpServer* (*create)(const char* host, int port, const GpuwatchHttpLimits* limits,
                                GpuwatchHttpHandler handler, void* context, char* error, std::size_t error_size);
  int (*port)(const GpuwatchHttpServer* server);
  void (*run)(GpuwatchHttpServer* server);
  void (*stop)(GpuwatchHttpServer* server);
  void (*destroy)(GpuwatchHttpServer* server);
};

// The module's one exported symbol.
const GpuwatchHttpApi* gpuwatch_http_api();
}

namespace gpuwatch {
inline constexpr int kHttpModuleAbi = 4;
inline constexpr const char* kHttpModuleFile = "libgpuwatch-http.so";
inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";
}  // namespace gpuwatch
