#include "live/live_window.h"

#include <algorithm>
#include <cmath>

namespace gpuwatch {

namespace {

// When each of `values` was read: the sample's time, except for a slow
// metric, which the sampler hands over at the next tick after reading it
// and which is as old as the sample says.
template <typename Metric, std::size_t N>
void take_latest(LatestValues<Metric, N>& latest, const MetricValues<Metric, N>& values, std::int64_t mono_ns,
                 std::int64_t slow_read_mono_ns) {
  for (std::size_t i = 0; i < N; ++i) {
    const auto m = static_cast<Metric>(i);
    const auto v = values.get(m);
    if (!v) continue;
    latest.values.set(m, *v);
    latest.read_mono_ns[i] = info(m).cadence == Cadence::Fast ? mono_ns : slow_read_mono_ns;
  }
}

}  // namespace

template <typename Values>
void LiveWindow::Ring<Values>::push(std::size_t capacity, std::int64_t t, const Values& v) {
  if (mono_ns.size() < capacity) {
    mono_ns.push_back(t);
    values.push_back(v);
    return;
  }
  mono_ns[next] = t;
  values[next] = v;
  next = (next + 1) % capacity;
}

template <typename Values>
void LiveWindow::Ring<Values>::copy_last(std::size_t n, std::vector<std::int64_t>& t_out,
                                         std::vector<Values>& v_out) const {
  const std::size_t size = mono_ns.size();
  n = std::min(n, size);
  t_out.clear();
  v_out.clear();
  t_out.reserve(n);
  v_out.reserve(n);
  // Oldest first: the ring's oldest entry is at `next` once it is full.
  for (std::size_t k = size - n; k < size; ++k) {
    const std::size_t i = (next + k) % size;
    t_out.push_back(mono_ns[i]);
    v_out.push_back(values[i]);
  }
}

LiveWindow::LiveWindow(std::size_t history, std::size_t recent_events)
    : capacity_(std::max<std::size_t>(history, 1)), recent_events_(recent_events) {}

LiveWindow::Device& LiveWindow::device_at(int index) {
  for (Device& d : devices_) {
    if (d.index == index) return d;
  }
  devices_.push_back(Device{});
  devices_.back().index = index;
  return devices_.back();
}

void LiveWindow::on_device_sample(const DeviceSample& sample) {
  std::lock_guard lock(mutex_);
  Device& d = device_at(sample.device_index);
  d.ring.push(capacity_, sample.time.mono_ns, sample.values);
  std::int64_t slow_read = sample.time.mono_ns;
  if (const auto age = sample.values.get(DeviceMetric::SlowReadAgeSeconds); age && std::isfinite(*age)) {
    slow_read -= static_cast<std::int64_t>(std::llround(*age * 1e9));
  }
  take_latest(d.latest, sample.values, sample.time.mono_ns, slow_read);
}

void LiveWindow::on_host_sample(const HostSample& sample) {
  std::lock_guard lock(mutex_);
  host_ring_.push(capacity_, sample.time.mono_ns, sample.values);
  // The host is read on the slow thread, at the time the sample carries.
  take_latest(host_latest_, sample.values, sample.time.mono_ns, sample.time.mono_ns);
  if (!sample.core_percent.empty()) core_percent_ = sample.core_percent;
}

void LiveWindow::on_processes(const std::vector<GpuProcess>& processes, Timestamp seen) {
  std::lock_guard lock(mutex_);
  processes_ = processes;
  processes_seen_ = seen;
}

void LiveWindow::on_device_lost(int device_index, Timestamp when) {
  std::lock_guard lock(mutex_);
  Device& d = device_at(device_index);
  if (!d.lost) d.lost = when;
}

void LiveWindow::on_device_event(const Event& event) {
  std::lock_guard lock(mutex_);
  if (recent_events_ == 0) return;
  if (device_events_.size() == recent_events_) device_events_.pop_front();
  device_events_.push_back(event);
}

void LiveWindow::on_tick(Timestamp tick_time) {
  std::lock_guard lock(mutex_);
  ++ticks_;
  last_tick_ = tick_time;
}

LiveSnapshot LiveWindow::snapshot(std::size_t history) const {
  LiveSnapshot s;
  std::lock_guard lock(mutex_);
  s.ticks = ticks_;
  s.last_tick = last_tick_;
  s.devices.reserve(devices_.size());
  for (const Device& d : devices_) {
    LiveDevice& out = s.devices.emplace_back();
    out.index = d.index;
    d.ring.copy_last(history, out.mono_ns, out.values);
    out.latest = d.latest;
    out.lost = d.lost;
  }
  host_ring_.copy_last(history, s.host.mono_ns, s.host.values);
  s.host.latest = host_latest_;
  s.host.core_percent = core_percent_;
  s.processes = processes_;
  s.processes_seen = processes_seen_;
  s.device_events.assign(device_events_.begin(), device_events_.end());
  return s;
}

}  // namespace gpuwatch
