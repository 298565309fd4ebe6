#include "exporter/exporter.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "core/host_name.h"
#include "http/metrics_server.h"
#include "live/live_window.h"
#include "live/periodic_read.h"
#include "live/watcher.h"
#include "render/prometheus/prometheus_text.h"

namespace gpuwatch {

namespace {

// The recording run is read again this often, as top does: a read of a
// long run's store costs more than a tick, and a scrape every 15 s or more
// sees the run's latest state anyway.
constexpr std::chrono::seconds kRunReadPeriod{2};

// Wakes the serving loop once a tick has reached the window (or sampling has
// stopped), through an eventfd that the loop polls beside the stop signals'
// signalfd: an idle exporter then wakes once per tick. It used to wait on a
// condition variable with a 100 ms timeout to look for signals, and those 10
// wake-ups a second were two thirds of its idle CPU with 8 fake GPUs at 1 s
// (~46 us each on a 2-core VM; bench/exporter_cost.py, docs/performance.md).
class TickSignal final : public SampleSink {
 public:
  TickSignal() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  }
  ~TickSignal() override { ::close(fd_); }
  TickSignal(const TickSignal&) = delete;
  TickSignal& operator=(const TickSignal&) = delete;

  void on_device_sample(const DeviceSample&) override {}
  void on_host_sample(const HostSample&) override {}
  void on_processes(const std::vector<GpuProcess>&, Timestamp) override {}
  void on_device_lost(int, Timestamp) override {}
  void on_tick(Timestamp) override { notify(); }

  void notify() {
    const std::uint64_t one = 1;
    // Fails only when the counter is full, and then the loop is woken anyway.
    [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
  }
  void drain() {
    std::uint64_t count = 0;
    [[maybe_unused]] const ssize_t n = ::read(fd_, &count, sizeof count);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// Closes the signalfd however run_exporter leaves.
struct Fd {
  int fd;
  ~Fd() { ::close(fd); }
};

// A backend succeeds while sampling runs and each of its watched GPUs has
// values and is not lost; the host reader while it has values.
std::vector<CollectorStatus> collectors(const std::vector<DeviceInfo>& devices, const LiveSnapshot& live,
                                        bool sampling_failed) {
  std::vector<CollectorStatus> out;
  for (const DeviceInfo& d : devices) {
    auto it = std::find_if(out.begin(), out.end(), [&](const CollectorStatus& c) { return c.backend == d.backend; });
    if (it == out.end()) it = out.insert(out.end(), CollectorStatus{d.backend, !sampling_failed});
    const LiveDevice* sampled = live.device(d.index);
    if (sampled == nullptr || sampled->lost || sampled->latest.values.empty()) it->success = false;
  }
  out.push_back({"host", !sampling_failed && !live.host.latest.values.empty()});
  return out;
}

}  // namespace

int run_exporter(const SystemPaths& paths, const ExporterOptions& options) {
  // The signals wait for the loop below; every thread started from here on
  // (httplib's, the sampler's) inherits the mask.
  const sigset_t signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // Before any driver is opened: a taken port fails at once.
  MetricsServer server(options.listen);
  Watcher watcher(paths);
  WatchOptions watch;
  watch.interval_s = options.interval_s;
  watch.gpus = options.gpus;
  watch.processes = options.processes;
  watcher.prepare(watch);
  LiveWindow window(1);  // the latest values are all a scrape shows
  TickSignal ticks;
  const Fd stop{::signalfd(-1, &signals, SFD_CLOEXEC)};
  if (stop.fd < 0) throw std::system_error(errno, std::generic_category(), "signalfd");
  watcher.bus().subscribe(window);
  watcher.bus().subscribe(ticks);

  PrometheusInput input;
  input.devices = watcher.devices(watcher.watched_gpus());
  // Still served: the host's series, and gpuwatch_up for the alert that
  // notices the GPUs are gone.
  if (input.devices.empty()) {
    for (const std::string& note : watcher.backends().notes) std::fprintf(stderr, "gpuwatch exporter: %s\n", note.c_str());
    std::fprintf(stderr, "gpuwatch exporter: no GPU found; serving the host's metrics only\n");
  }
  input.hostname = host_name();
  input.version = GPUWATCH_VERSION;
  input.processes = options.processes;
  const PrometheusNames names = options.dcgm_compat ? PrometheusNames::DcgmCompat : PrometheusNames::Native;
  std::atomic<bool> sampling_failed = false;
  // Started after the signal mask, which its thread inherits.
  const PeriodicRead<RunStatusReport> run_watch(options.watched_run, kRunReadPeriod);
  std::string run_error;
  const auto publish = [&] {
    input.live = window.snapshot(0);
    input.collectors = collectors(input.devices, input.live, sampling_failed);
    auto run = run_watch.latest();
    input.run = std::move(run.value);
    // Said once per new error: a store that cannot be read is no failed scrape.
    if (run.error != run_error && !run.error.empty()) {
      std::fprintf(stderr, "gpuwatch exporter: cannot read the recording run: %s\n", run.error.c_str());
    }
    run_error = std::move(run.error);
    server.publish(render_prometheus(input, names));
  };
  publish();

  std::thread sampling([&] {
    try {
      watcher.run();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpuwatch exporter: sampling stopped: %s\n", e.what());
      sampling_failed = true;
      ticks.notify();  // the collectors now say 0; the last values stay
    }
  });
  std::thread serving([&] { server.run(); });
  if (options.on_listening) {
    const ListenAddress bound{options.listen.host, static_cast<std::uint16_t>(server.port())};
    options.on_listening(fmt::format("http://{}/metrics", bound.text()));
  }
  pollfd wake[2] = {{stop.fd, POLLIN, 0}, {ticks.fd(), POLLIN, 0}};
  while (true) {
    if (::poll(wake, 2, -1) < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "gpuwatch exporter: poll: %s; stopping\n", std::strerror(errno));
      break;
    }
    if (wake[0].revents != 0) break;  // SIGINT or SIGTERM
    if (wake[1].revents != 0) {
      ticks.drain();
      publish();
    }
  }
  server.stop();
  watcher.stop();
  serving.join();
  sampling.join();
  return 0;
}

}  // namespace gpuwatch
