#include "http/http_server.h"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "http/compression.h"

namespace gpuwatch {

namespace {

// GPUWATCH_HTTP_MODULE, else beside the executable (the build tree), else
// where the install puts it relative to the binary.
std::mutex module_path_mutex;
std::filesystem::path& chosen_module_path() {
  static std::filesystem::path path;
  return path;
}

std::vector<std::filesystem::path> module_candidates() {
  std::vector<std::filesystem::path> out;
  {
    const std::lock_guard lock(module_path_mutex);
    if (!chosen_module_path().empty()) {
      out.push_back(chosen_module_path());
      return out;
    }
  }
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    out.push_back(exe.parent_path() / kHttpModuleFile);
    out.push_back(exe.parent_path() / GPUWATCH_MODULE_DIR_FROM_BIN / kHttpModuleFile);
  }
  return out;
}

// Loaded once and kept: a module unloaded under a server's threads would
// pull their code away.
const GpuwatchHttpApi* load_module() {
  static std::mutex mutex;
  static const GpuwatchHttpApi* api = nullptr;
  std::lock_guard lock(mutex);
  if (api != nullptr) return api;
  std::string errors;
  for (const std::filesystem::path& path : module_candidates()) {
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      errors += "\n  ";
      errors += ::dlerror();
      continue;
    }
    using Entry = const GpuwatchHttpApi* (*)();
    const auto entry = reinterpret_cast<Entry>(::dlsym(handle, "gpuwatch_http_api"));
    const GpuwatchHttpApi* found = entry != nullptr ? entry() : nullptr;
    if (found == nullptr || found->abi_version != kHttpModuleAbi) {
      errors += "\n  " + path.string() + ": not gpuwatch's HTTP module of this version";
      ::dlclose(handle);
      continue;
    }
    api = found;
    return api;
  }
  throw HttpError("cannot load the HTTP module " + std::string(kHttpModuleFile) + ":" + errors);
}

}  // namespace

void set_http_module_path(std::filesystem::path path) {
  const std::lock_guard lock(module_path_mutex);
  chosen_module_path() = std::move(path);
}

namespace {

int stream_next(void* stream, GpuwatchHttpWrite write, void* sink) noexcept {
  try {
    const auto to_client = [write, sink](std::string_view data) { return write(sink, data.data(), data.size()) != 0; };
    return static_cast<HttpStream*>(stream)->next(to_client) ? 1 : 0;
  } catch (...) {
    return 0;  // nothing may cross into the module; the stream just ends
  }
}

void stream_release(void* stream) { delete static_cast<HttpStream*>(stream); }

}  // namespace

HttpServer::HttpServer(const ListenAddress& listen, const HttpLimits& limits, HttpHandler handler)
    : handler_(std::move(handler)), api_(load_module()) {
  const GpuwatchHttpLimits c_limits{limits.worker_threads,     limits.max_queued,         limits.max_connections,
                                    limits.max_streams,        limits.max_header_bytes,   limits.max_headers,
                                    limits.request_deadline_s, limits.write_deadline_s,   limits.stream_buffer_bytes};
  std::array<char, 256> error{};
  server_ = api_->create(listen.host.c_str(), listen.port, &c_limits, &HttpServer::handle, this, error.data(),
                         error.size());
  if (server_ == nullptr) throw HttpError("cannot listen on " + listen.text() + ": " + error.data());
}

HttpServer::~HttpServer() {
  api_->stop(server_);
  api_->destroy(server_);
}

int HttpServer::port() const { return api_->port(server_); }

void HttpServer::run() { api_->run(server_); }

void HttpServer::stop() { api_->stop(server_); }

namespace {

// The body gzipped when the client accepts it and it is worth it; a stream
// goes as it is (each event must reach the page when it is written).
void compress_if_accepted(HttpReply& reply, std::string_view accept_encoding) {
  if (reply.stream || reply.body.size() < kMinCompressedBytes || !accepts_gzip(accept_encoding)) return;
  std::optional<std::string> compressed = gzip_compress(reply.body);
  if (!compressed) return;
  reply.body = std::move(*compressed);
  reply.headers += "Content-Encoding: gzip\nVary: Accept-Encoding\n";
}

}  // namespace

void HttpServer::handle(void* context, const GpuwatchHttpRequest* request, GpuwatchHttpRespond respond,
                        void* respond_context) noexcept {
  static constexpr std::string_view kFailed = "internal error\n";
  const auto* self = static_cast<const HttpServer*>(context);
  try {
    HttpReply reply;
    try {
      reply = self->handler_(HttpRequest{request->target, request->authorization, request->host, request->accept_encoding});
    } catch (const std::exception& e) {
      reply = HttpReply{};
      reply.status = 500;
      reply.body = std::string("internal error: ") + e.what() + "\n";
    }
    compress_if_accepted(reply, request->accept_encoding);
    GpuwatchHttpReply c_reply{reply.status, reply.content_type.c_str(), reply.body.data(), reply.body.size(),
                              reply.headers.empty() ? nullptr : reply.headers.c_str(), nullptr, nullptr, nullptr};
    if (reply.stream) {
      c_reply.next = stream_next;
      c_reply.stream = reply.stream.release();  // the module owns it now
      c_reply.release = stream_release;
    }
    respond(respond_context, &c_reply);
  } catch (...) {
    // Out of memory building the reply: a fixed one, which allocates nothing here.
    const GpuwatchHttpReply failed{500, "text/plain", kFailed.data(), kFailed.size(), nullptr, nullptr, nullptr, nullptr};
    respond(respond_context, &failed);
  }
}

}  // namespace gpuwatch
