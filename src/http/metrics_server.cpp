#include "http/metrics_server.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include <sys/socket.h>

#include <httplib.h>

namespace gpuwatch {

namespace {

// A keep-alive connection holds its thread until it idles out: four serve
// an HA pair of Prometheus servers plus a curl or two, and cost nothing idle.
constexpr std::size_t kThreads = 4;
// A scrape is a bare GET: anything with a body is not one.
constexpr std::size_t kMaxPayloadBytes = 1024;
constexpr auto kReadTimeout = std::chrono::seconds(5);
constexpr auto kWriteTimeout = std::chrono::seconds(5);
constexpr time_t kKeepAliveSeconds = 5;

constexpr std::string_view kIndexPage =
    "<html><body>gpuwatch exporter: metrics at <a href=\"/metrics\">/metrics</a></body></html>\n";

}  // namespace

struct MetricsServer::Impl {
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

MetricsServer::MetricsServer(const ListenAddress& listen) : impl_(std::make_unique<Impl>()) {
  httplib::Server& s = impl_->server;
  s.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  s.set_read_timeout(kReadTimeout);
  s.set_write_timeout(kWriteTimeout);
  s.set_keep_alive_timeout(kKeepAliveSeconds);
  s.set_payload_max_length(kMaxPayloadBytes);
  // httplib's default adds SO_REUSEPORT, which lets a second exporter bind
  // the same port and take half the scrapes; SO_REUSEADDR alone still
  // allows a restart while old connections linger in TIME_WAIT.
  s.set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  Impl* impl = impl_.get();
  s.Get("/metrics", [impl](const httplib::Request&, httplib::Response& res) {
    std::shared_ptr<const std::string> body;
    {
      std::lock_guard lock(impl->mutex);
      body = impl->body;
    }
    res.set_content(*body, std::string(kPrometheusContentType));
  });
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(kIndexPage), "text/html; charset=utf-8");
  });
  if (listen.port == 0) {
    impl_->port = s.bind_to_any_port(listen.host);
  } else if (s.bind_to_port(listen.host, listen.port)) {
    impl_->port = listen.port;
  } else {
    impl_->port = -1;
  }
  if (impl_->port <= 0) {
    throw HttpError("cannot listen on " + listen.text() +
                    ": the port is taken, or the address is not one of this machine's");
  }
}

MetricsServer::~MetricsServer() { stop(); }

int MetricsServer::port() const { return impl_->port; }

void MetricsServer::publish(std::string metrics_body) {
  auto body = std::make_shared<const std::string>(std::move(metrics_body));
  std::lock_guard lock(impl_->mutex);
  impl_->body = std::move(body);
}

void MetricsServer::run() {
  impl_->run_entered = true;
  if (!impl_->stop_requested) impl_->server.listen_after_bind();
  impl_->run_returned = true;
}

void MetricsServer::stop() {
  impl_->stop_requested = true;
  if (!impl_->run_entered) return;  // run() will see stop_requested
  while (!impl_->run_returned && !impl_->server.is_running()) std::this_thread::yield();
  impl_->server.stop();
}

}  // namespace gpuwatch
