#include "record/peak_history.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/segments.h"
#include "core/durations.h"

namespace gpuwatch {

namespace {

constexpr auto kMemUsed = static_cast<std::size_t>(DeviceMetric::MemUsedBytes);

DeviceSeries* series_of(RunData& data, int device_index) {
  for (DeviceSeries& s : data.devices) {
    if (s.info.index == device_index) return &s;
  }
  return nullptr;
}

template <typename T>
void erase_range(std::vector<T>& column, std::size_t from, std::size_t to) {
  column.erase(column.begin() + static_cast<std::ptrdiff_t>(from), column.begin() + static_cast<std::ptrdiff_t>(to));
}

// Folds s's points [0, end) that fall between the same two boundaries into
// one: their peak, at the time of the latest (so that the run's last sample,
// which closes the open epoch, does not move).
void fold_points(DeviceSeries& s, std::size_t end, const std::vector<std::int64_t>& boundaries) {
  std::vector<double>& memory = s.values[kMemUsed];
  const auto stretch = [&](std::int64_t t) { return std::upper_bound(boundaries.begin(), boundaries.end(), t); };
  std::size_t kept = 0;  // points [0, kept) are folded
  for (std::size_t i = 0; i < end; ++i) {
    const bool same_stretch = kept > 0 && stretch(s.mono_ns[kept - 1]) == stretch(s.mono_ns[i]);
    const std::size_t to = same_stretch ? kept - 1 : kept++;
    memory[to] = same_stretch ? std::fmax(memory[to], memory[i]) : memory[i];  // fmax: NaN is no peak
    s.mono_ns[to] = s.mono_ns[i];
    s.wall_ns[to] = s.wall_ns[i];
  }
  erase_range(s.mono_ns, kept, end);
  erase_range(s.wall_ns, kept, end);
  erase_range(memory, kept, end);
}

}  // namespace

PeakHistory::PeakHistory(const RunInfo& run, const std::vector<DeviceInfo>& devices)
    : history_(run_without_samples(run, devices)) {}

// One point per second holding that second's peak: enough to find the peak
// of every epoch.
void PeakHistory::add_sample(const DeviceSample& sample) {
  const auto used = sample.values.get(DeviceMetric::MemUsedBytes);
  DeviceSeries* h = series_of(history_, sample.device_index);
  if (!used || !h) return;
  if (h->values[kMemUsed].size() != h->mono_ns.size()) return;  // cannot happen: kept in step below
  if (!h->mono_ns.empty() && sample.time.mono_ns - h->mono_ns.back() < kSecondNs) {
    h->values[kMemUsed].back() = std::max(h->values[kMemUsed].back(), *used);
    return;
  }
  h->mono_ns.push_back(sample.time.mono_ns);
  h->wall_ns.push_back(sample.time.wall_ns);
  h->values[kMemUsed].push_back(*used);
}

void PeakHistory::add_epoch(const Event& event) {
  // A training that prints its epoch on every line sends it thousands of
  // times; only a change of label moves a boundary.
  if (!history_.events.empty() && history_.events.back().message == event.message) return;
  history_.events.push_back(event);
}

// Every time an epoch starts or ends, in order.
std::vector<std::int64_t> PeakHistory::epoch_boundaries_ns() const {
  std::vector<std::int64_t> out;
  for (const Segment& s : segments_from_events(history_.events, std::numeric_limits<std::int64_t>::max())) {
    out.push_back(s.start_mono_ns);
    out.push_back(s.end_mono_ns);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void PeakHistory::fold_before(std::int64_t before_mono_ns) {
  const std::vector<std::int64_t> boundaries = epoch_boundaries_ns();
  for (DeviceSeries& s : history_.devices) {
    const auto end = std::lower_bound(s.mono_ns.begin(), s.mono_ns.end(), before_mono_ns) - s.mono_ns.begin();
    fold_points(s, static_cast<std::size_t>(end), boundaries);
  }
}

std::size_t PeakHistory::point_count() const {
  std::size_t n = 0;
  for (const DeviceSeries& s : history_.devices) n += s.mono_ns.size();
  return n;
}

}  // namespace gpuwatch
