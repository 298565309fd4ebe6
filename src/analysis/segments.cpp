#include "analysis/segments.h"

#include <algorithm>

namespace gpuwatch {

namespace {

std::optional<SegmentKind> kind_of(const Event& e) {
  if (e.kind == "phase") return SegmentKind::Phase;
  if (e.kind == "epoch") return SegmentKind::Epoch;
  return std::nullopt;
}

// Samples of `column` inside any of the segments, with their times.
std::optional<Summary> summarize_within(const DeviceSeries& s, DeviceMetric metric,
                                        const std::vector<const Segment*>& segments) {
  const auto m = static_cast<std::size_t>(metric);
  if (m >= s.values.size()) return std::nullopt;
  std::vector<std::int64_t> times;
  std::vector<double> values;
  for (const Segment* seg : segments) {
    const auto begin = std::lower_bound(s.mono_ns.begin(), s.mono_ns.end(), seg->start_mono_ns) - s.mono_ns.begin();
    const auto end = std::lower_bound(s.mono_ns.begin(), s.mono_ns.end(), seg->end_mono_ns) - s.mono_ns.begin();
    for (auto i = begin; i < end; ++i) {
      times.push_back(s.mono_ns[static_cast<std::size_t>(i)]);
      values.push_back(s.values[m][static_cast<std::size_t>(i)]);
    }
  }
  return summarize(times, values);
}

}  // namespace

std::vector<Segment> segments_from_events(std::span<const Event> events, std::int64_t run_end_mono_ns) {
  std::vector<Segment> out;
  std::optional<std::size_t> open[2];
  for (const Event& e : events) {
    const auto kind = kind_of(e);
    if (!kind) continue;
    auto& slot = open[static_cast<std::size_t>(*kind)];
    if (slot) out[*slot].end_mono_ns = e.time.mono_ns;
    slot = out.size();
    out.push_back({*kind, e.message, e.time.mono_ns, run_end_mono_ns});
  }
  std::erase_if(out, [](const Segment& s) { return s.end_mono_ns <= s.start_mono_ns; });
  return out;
}

std::vector<SegmentStats> summarize_segments(const RunData& data, std::span<const Segment> segments, SegmentKind kind) {
  std::vector<std::string> labels;
  for (const Segment& s : segments) {
    if (s.kind == kind && std::find(labels.begin(), labels.end(), s.label) == labels.end()) labels.push_back(s.label);
  }
  std::vector<SegmentStats> out;
  for (const std::string& label : labels) {
    SegmentStats stats;
    stats.kind = kind;
    stats.label = label;
    std::vector<const Segment*> mine;
    for (const Segment& s : segments) {
      if (s.kind != kind || s.label != label) continue;
      mine.push_back(&s);
      stats.duration_s += static_cast<double>(s.end_mono_ns - s.start_mono_ns) / 1e9;
    }
    stats.occurrences = mine.size();
    for (const DeviceSeries& d : data.devices) {
      stats.devices.push_back({d.info.index, summarize_within(d, DeviceMetric::GpuUtilPercent, mine),
                               summarize_within(d, DeviceMetric::MemUsedBytes, mine),
                               summarize_within(d, DeviceMetric::PowerWatts, mine)});
    }
    out.push_back(std::move(stats));
  }
  return out;
}

}  // namespace gpuwatch
