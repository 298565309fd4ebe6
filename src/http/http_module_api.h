// The C interface between gpuwatch and its HTTP module (libgpuwatch-http.so),
// which alone links cpp-httplib and, through Debian's build of it, OpenSSL,
// zlib and brotli: 3.8 MiB of resident memory that `record`, `top` and the
// status line would otherwise carry for nothing. Plain C types only, so no
// C++ exception or type crosses the dlopen boundary.
#pragma once

#include <cstddef>
#include <string_view>

extern "C" {

struct GpuwatchHttpServer;

struct GpuwatchHttpApi {
  int abi_version;
  // Binds; null on failure, with the reason in `error`.
  GpuwatchHttpServer* (*create)(const char* host, int port, char* error, std::size_t error_size);
  int (*port)(const GpuwatchHttpServer* server);
  void (*publish)(GpuwatchHttpServer* server, const char* body, std::size_t size);
  void (*run)(GpuwatchHttpServer* server);
  void (*stop)(GpuwatchHttpServer* server);
  void (*destroy)(GpuwatchHttpServer* server);
};

// The module's one exported symbol.
const GpuwatchHttpApi* gpuwatch_http_api();
}

namespace gpuwatch {
inline constexpr int kHttpModuleAbi = 1;
inline constexpr const char* kHttpModuleFile = "libgpuwatch-http.so";
inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";
}  // namespace gpuwatch
