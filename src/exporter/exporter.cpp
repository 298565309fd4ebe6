#include "exporter/exporter.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/host_name.h"
#include "http/metrics_server.h"
#include "live/live_window.h"
#include "live/watcher.h"
#include "render/prometheus/prometheus_text.h"

namespace gpuwatch {

namespace {

// How often the serving loop looks for SIGINT/SIGTERM between ticks: the
// longest a stop waits when the interval is long.
constexpr auto kSignalPoll = std::chrono::milliseconds(100);

// Wakes the render loop once a tick has reached the window.
class TickSignal final : public SampleSink {
 public:
  void on_device_sample(const DeviceSample&) override {}
  void on_host_sample(const HostSample&) override {}
  void on_processes(const std::vector<GpuProcess>&, Timestamp) override {}
  void on_device_lost(int, Timestamp) override {}
  void on_tick(Timestamp) override {
    {
      std::lock_guard lock(mutex_);
      ticked_ = true;
    }
    wake_.notify_one();
  }
  // Whether a tick came within `timeout`.
  bool wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, timeout, [this] { return ticked_; });
    const bool ticked = ticked_;
    ticked_ = false;
    return ticked;
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool ticked_ = false;
};

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

bool stop_signal_pending(const sigset_t& set) {
  const timespec no_wait{0, 0};
  return sigtimedwait(&set, nullptr, &no_wait) > 0;
}

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
  watch.processes = false;  // no per-process series yet
  watcher.prepare(watch);
  LiveWindow window(1);  // the latest values are all a scrape shows
  TickSignal ticks;
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
  const PrometheusNames names = options.dcgm_compat ? PrometheusNames::DcgmCompat : PrometheusNames::Native;
  std::atomic<bool> sampling_failed = false;
  const auto publish = [&] {
    input.live = window.snapshot(0);
    input.collectors = collectors(input.devices, input.live, sampling_failed);
    server.publish(render_prometheus(input, names));
  };
  publish();

  std::thread sampling([&] {
    try {
      watcher.run();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpuwatch exporter: sampling stopped: %s\n", e.what());
      sampling_failed = true;
    }
  });
  std::thread serving([&] { server.run(); });
  if (options.on_listening) {
    const ListenAddress bound{options.listen.host, static_cast<std::uint16_t>(server.port())};
    options.on_listening(fmt::format("http://{}/metrics", bound.text()));
  }
  bool failure_published = false;
  while (!stop_signal_pending(signals)) {
    if (ticks.wait(std::chrono::duration_cast<std::chrono::milliseconds>(kSignalPoll))) {
      publish();
    } else if (sampling_failed && !failure_published) {
      publish();  // the collectors now say 0; the last values stay
      failure_published = true;
    }
  }
  server.stop();
  watcher.stop();
  serving.join();
  sampling.join();
  return 0;
}

}  // namespace gpuwatch
