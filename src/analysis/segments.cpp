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
  if (m >= s.values.size() || s.values[m].size() != s.mono_ns.size()) return std::nullopt;
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
    slot.reset();
    // An empty phase name ends the phase without starting another.
    if (e.message.empty()) continue;
    slot = out.size();
    out.push_back({*kind, e.message, e.time.mono_ns, run_end_mono_ns});
  }
  std::erase_if(out, [](const Segment& s) { return s.end_mono_ns <= s.start_mono_ns; });
  return out;
}

std::vector<SegmentStats> segment_rows(std::span<const Segment> segments, SegmentKind kind) {
  std::vector<SegmentStats> out;
  for (const Segment& s : segments) {
    if (s.kind != kind) continue;
    auto row = std::find_if(out.begin(), out.end(), [&](const SegmentStats& r) { return r.label == s.label; });
    if (row == out.end()) {
      out.push_back({kind, s.label, 0, 0, {}});
      row = out.end() - 1;
    }
    row->occurrences += 1;
    row->duration_s += static_cast<double>(s.end_mono_ns - s.start_mono_ns) / 1e9;
  }
  return out;
}

void add_segment_device(std::vector<SegmentStats>& rows, std::span<const Segment> segments, const DeviceSeries& device) {
  for (SegmentStats& row : rows) {
    std::vector<const Segment*> mine;
    for (const Segment& s : segments) {
      if (s.kind == row.kind && s.label == row.label) mine.push_back(&s);
    }
    row.devices.push_back({device.info.index, summarize_within(device, DeviceMetric::GpuUtilPercent, mine),
                           summarize_within(device, DeviceMetric::MemUsedBytes, mine),
                           summarize_within(device, DeviceMetric::PowerWatts, mine)});
  }
}

std::vector<SegmentStats> summarize_segments(const RunData& data, std::span<const Segment> segments, SegmentKind kind) {
  std::vector<SegmentStats> rows = segment_rows(segments, kind);
  for (const DeviceSeries& d : data.devices) add_segment_device(rows, segments, d);
  return rows;
}

}  // namespace gpuwatch
