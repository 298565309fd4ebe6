// The recent past of every device and of the host, as live views need it:
// ring buffers of the last samples, and the latest value of every metric
// with the time it was read (a slow metric is carried forward between its
// reads, and shows its age). A SampleBus subscriber that is cheap enough for
// the sampling thread; every live view (status line, top, the dashboard, the
// exporter, the live advisor) reads snapshots of it from other threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "core/live_snapshot.h"
#include "core/metrics.h"
#include "core/sample.h"
#include "sampler/sampler.h"

namespace gpuwatch {

class LiveWindow final : public SampleSink {
 public:
  // Keeps the last `history` samples of each device and of the host.
  explicit LiveWindow(std::size_t history = 600, std::size_t recent_events = kRecentDeviceEvents);
  // Device events kept for live views by default: what fits under the GPUs.
  static constexpr std::size_t kRecentDeviceEvents = 8;

  void on_device_sample(const DeviceSample& sample) override;
  void on_host_sample(const HostSample& sample) override;
  void on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) override;
  void on_device_lost(int device_index, Timestamp when) override;
  void on_device_event(const Event& event) override;
  void on_tick(Timestamp tick_time) override;

  // A consistent copy, taken between two calls of the sampler's thread: at
  // most the last `history` samples of each series (0: none, only the latest
  // values). Thread-safe.
  [[nodiscard]] LiveSnapshot snapshot(std::size_t history) const;
  [[nodiscard]] LiveSnapshot snapshot() const { return snapshot(capacity_); }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }

 private:
  // A fixed-capacity ring: `next` is where the next sample goes once full.
  template <typename Values>
  struct Ring {
    std::vector<std::int64_t> mono_ns;
    std::vector<Values> values;
    std::size_t next = 0;

    void push(std::size_t capacity, std::int64_t t, const Values& v);
    // The last `n` entries, oldest first.
    void copy_last(std::size_t n, std::vector<std::int64_t>& t_out, std::vector<Values>& v_out) const;
  };
  struct Device {
    int index = 0;
    Ring<DeviceValues> ring;
    LatestValues<DeviceMetric, kDeviceMetricCount> latest;
    std::optional<Timestamp> lost;
  };

  Device& device_at(int index);  // mutex_ held

  const std::size_t capacity_;
  const std::size_t recent_events_;
  mutable std::mutex mutex_;
  std::vector<Device> devices_;
  Ring<HostValues> host_ring_;
  LatestValues<HostMetric, kHostMetricCount> host_latest_;
  std::vector<double> core_percent_;
  std::vector<GpuProcess> processes_;
  std::optional<Timestamp> processes_seen_;
  std::deque<Event> device_events_;  // at most recent_events_
  std::uint64_t ticks_ = 0;
  std::optional<Timestamp> last_tick_;
};

}  // namespace gpuwatch
