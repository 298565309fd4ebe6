#include "live/metrics_feed.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "base/host_name.h"
#include "live/live_window.h"
#include "live/periodic_read.h"
#include "live/watcher.h"
#include "render/prometheus/prometheus_text.h"

namespace gpuwatch {

// Not in the anonymous namespace: MetricsFeed::State holds one, and a member
// of a type with internal linkage in a class with external linkage is an
// error in unity builds (-Wsubobject-linkage).
namespace metrics_feed_detail {

// Wakes the publishing loop once a tick has reached the window (or sampling
// has stopped), through an eventfd that the loop polls beside the stop fd:
// an idle feed then wakes once per tick. The exporter used to wait on a
// condition variable with a 100 ms timeout to look for signals, and those 10
// wake-ups a second were two thirds of its idle CPU with 8 fake GPUs at 1 s
// (~46 us each on a 2-core VM; bench/exporter_cost.py, docs/performance.md).
// It also counts each GPU's XIDs and double-bit ECC errors, which the
// sampler delivers (on its thread) just before the tick that publishes them.
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
  void on_device_event(const Event& event) override {
    if (!event.device_index) return;
    std::lock_guard lock(mutex_);
    errors_[*event.device_index].add(event);
  }
  std::map<int, DeviceErrorCounts> error_counts() const {
    std::lock_guard lock(mutex_);
    return errors_;
  }

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
  mutable std::mutex mutex_;  // errors_ is written by the sampler's thread, read by the publishing loop
  std::map<int, DeviceErrorCounts> errors_;
};

}  // namespace metrics_feed_detail

namespace {

// The recording run is read again this often, as top does: a read of a
// long run's store costs more than a tick, and a scrape every 15 s or more
// sees the run's latest state anyway.
constexpr std::chrono::seconds kRunReadPeriod{2};

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

struct MetricsFeed::State {
  explicit State(const SystemPaths& paths) : watcher(paths) {}
  MetricsFeedOptions options;
  Watcher watcher;
  LiveWindow window{1};  // the latest values are all a scrape shows
  metrics_feed_detail::TickSignal ticks;
  PrometheusInput input;
};

MetricsFeed::MetricsFeed(const SystemPaths& paths, MetricsFeedOptions options)
    : state_(std::make_unique<State>(paths)) {
  State& s = *state_;
  s.options = std::move(options);
  WatchOptions watch;
  watch.interval_s = s.options.interval_s;
  watch.gpus = s.options.gpus;
  watch.processes = s.options.processes;
  s.watcher.prepare(watch);
  s.watcher.bus().subscribe(s.window);
  s.watcher.bus().subscribe(s.ticks);
  s.input.devices = s.watcher.devices(s.watcher.watched_gpus());
  if (s.input.devices.empty()) {
    const char* prefix = s.options.log_prefix.c_str();
    for (const std::string& note : s.watcher.backends().notes) std::fprintf(stderr, "%s: %s\n", prefix, note.c_str());
    std::fprintf(stderr, "%s: no GPU found; serving the host's metrics only\n", prefix);
  }
  s.input.hostname = host_name();
  s.input.version = GPUWATCH_VERSION;
  s.input.processes = s.options.processes;
}

MetricsFeed::~MetricsFeed() = default;

void MetricsFeed::run_until(int stop_fd, const std::function<void(std::string body)>& publish) {
  State& s = *state_;
  const char* prefix = s.options.log_prefix.c_str();
  const PrometheusNames names = s.options.dcgm_compat ? PrometheusNames::DcgmCompat : PrometheusNames::Native;
  std::atomic<bool> sampling_failed = false;
  // Its thread inherits the caller's signal mask.
  const PeriodicRead<RunStatusReport> run_watch(s.options.watched_run, kRunReadPeriod);
  std::string run_error;
  const auto publish_latest = [&] {
    s.input.live = s.window.snapshot(0);
    s.input.collectors = collectors(s.input.devices, s.input.live, sampling_failed);
    s.input.errors = s.ticks.error_counts();
    auto run = run_watch.latest();
    s.input.run = std::move(run.value);
    // Said once per new error: a store that cannot be read is no failed scrape.
    if (run.error != run_error && !run.error.empty()) {
      std::fprintf(stderr, "%s: cannot read the recording run: %s\n", prefix, run.error.c_str());
    }
    run_error = std::move(run.error);
    publish(render_prometheus(s.input, names));
  };
  publish_latest();

  std::thread sampling([&] {
    try {
      s.watcher.run();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: sampling stopped: %s\n", prefix, e.what());
      sampling_failed = true;
      s.ticks.notify();  // the collectors now say 0; the last values stay
    }
  });
  pollfd wake[2] = {{stop_fd, POLLIN, 0}, {s.ticks.fd(), POLLIN, 0}};
  while (true) {
    if (::poll(wake, 2, -1) < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "%s: poll: %s; stopping\n", prefix, std::strerror(errno));
      break;
    }
    if (wake[0].revents != 0) break;
    if (wake[1].revents != 0) {
      s.ticks.drain();
      publish_latest();
    }
  }
  s.watcher.stop();
  sampling.join();
}

}  // namespace gpuwatch
