#include "http/metrics_server.h"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

namespace gpuwatch {

namespace {

// GPUWATCH_HTTP_MODULE, else beside the executable (the build tree), else
// where the install puts it relative to the binary.
std::vector<std::filesystem::path> module_candidates() {
  std::vector<std::filesystem::path> out;
  if (const char* env = std::getenv("GPUWATCH_HTTP_MODULE"); env != nullptr && *env != '\0') {
    out.emplace_back(env);
    return out;
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

MetricsServer::MetricsServer(const ListenAddress& listen) : api_(load_module()) {
  std::array<char, 256> error{};
  server_ = api_->create(listen.host.c_str(), listen.port, error.data(), error.size());
  if (server_ == nullptr) throw HttpError("cannot listen on " + listen.text() + ": " + error.data());
}

MetricsServer::~MetricsServer() {
  api_->stop(server_);
  api_->destroy(server_);
}

int MetricsServer::port() const { return api_->port(server_); }

void MetricsServer::publish(std::string metrics_body) { api_->publish(server_, metrics_body.data(), metrics_body.size()); }

void MetricsServer::run() { api_->run(server_); }

void MetricsServer::stop() { api_->stop(server_); }

}  // namespace gpuwatch
