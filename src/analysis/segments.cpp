#include "analysis/segments.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace gpuwatch {

namespace {

std::optional<SegmentKind> kind_of(const Event& e) {
  if (e.kind == "phase") return SegmentKind::Phase;
  if (e.kind == "epoch") return SegmentKind::Epoch;
  return std::nullopt;
}

constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);

// Which row each segment of `kind` falls in (kNoRow for the other kind),
// with the labels in order of first appearance. A hash map: looking each
// label up among the rows made 200,000 epochs take minutes.
struct RowMap {
  std::vector<std::size_t> row_of_segment;
  std::vector<std::string_view> labels;  // every distinct label, first appearance first
  std::size_t rows = 0;
};

RowMap map_rows(std::span<const Segment> segments, SegmentKind kind) {
  RowMap map;
  map.row_of_segment.assign(segments.size(), kNoRow);
  std::unordered_map<std::string_view, std::size_t> label_index;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].kind != kind) continue;
    const auto [it, fresh] = label_index.try_emplace(segments[i].label, map.labels.size());
    if (fresh) map.labels.push_back(segments[i].label);
    map.row_of_segment[i] = it->second;
  }
  const std::size_t n = map.labels.size();
  map.rows = n;
  if (n > kMaxSegmentRows) {
    // Labels [edge, n - edge) share the row `edge`; the last ones follow it.
    const std::size_t edge = kSegmentEdgeRows;
    for (std::size_t& row : map.row_of_segment) {
      if (row == kNoRow || row < edge) continue;
      row = row < n - edge ? edge : row - (n - edge) + edge + 1;
    }
    map.rows = kMaxSegmentRows;
  }
  return map;
}

// Samples of one metric inside segments of one row, with their times: the
// segments of a kind do not overlap, so all rows together hold each sample
// at most once.
std::optional<Summary> summarize_rows_metric(const DeviceSeries& s, DeviceMetric metric,
                                             std::span<const std::vector<std::size_t>> row_segments,
                                             std::span<const Segment> segments, std::size_t row) {
  const auto m = static_cast<std::size_t>(metric);
  if (m >= s.values.size() || s.values[m].size() != s.mono_ns.size()) return std::nullopt;
  std::vector<std::int64_t> times;
  std::vector<double> values;
  for (const std::size_t k : row_segments[row]) {
    const Segment& seg = segments[k];
    const auto begin = std::lower_bound(s.mono_ns.begin(), s.mono_ns.end(), seg.start_mono_ns) - s.mono_ns.begin();
    const auto end = std::lower_bound(s.mono_ns.begin() + begin, s.mono_ns.end(), seg.end_mono_ns) - s.mono_ns.begin();
    times.insert(times.end(), s.mono_ns.begin() + begin, s.mono_ns.begin() + end);
    values.insert(values.end(), s.values[m].begin() + begin, s.values[m].begin() + end);
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
    if (slot && out[*slot].label == e.message) continue;  // the same epoch or phase, said again
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
  const RowMap map = map_rows(segments, kind);
  std::vector<SegmentStats> out(map.rows);
  const bool merged = map.rows < map.labels.size();
  for (std::size_t r = 0; r < map.rows; ++r) {
    out[r].kind = kind;
    if (merged && r == kSegmentEdgeRows) {
      out[r].merged_labels = map.labels.size() - 2 * kSegmentEdgeRows;
      out[r].label = std::string(map.labels[kSegmentEdgeRows]) + ".." +
                     std::string(map.labels[map.labels.size() - kSegmentEdgeRows - 1]);
    } else {
      const std::size_t label = merged && r > kSegmentEdgeRows ? map.labels.size() - (map.rows - r) : r;
      out[r].label = std::string(map.labels[label]);
    }
  }
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::size_t r = map.row_of_segment[i];
    if (r == kNoRow) continue;
    out[r].occurrences += 1;
    out[r].duration_s += static_cast<double>(segments[i].end_mono_ns - segments[i].start_mono_ns) / 1e9;
  }
  return out;
}

void add_segment_device(std::vector<SegmentStats>& rows, std::span<const Segment> segments, const DeviceSeries& device) {
  if (rows.empty()) return;
  const RowMap map = map_rows(segments, rows.front().kind);
  std::vector<std::vector<std::size_t>> row_segments(map.rows);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (map.row_of_segment[i] != kNoRow) row_segments[map.row_of_segment[i]].push_back(i);
  }
  for (std::size_t r = 0; r < rows.size() && r < map.rows; ++r) {
    const auto summary = [&](DeviceMetric m) { return summarize_rows_metric(device, m, row_segments, segments, r); };
    rows[r].devices.push_back({device.info.index, summary(DeviceMetric::GpuUtilPercent),
                               summary(DeviceMetric::MemUsedBytes), summary(DeviceMetric::PowerWatts)});
  }
}

void add_segment_step_timing(std::vector<SegmentStats>& rows, std::span<const Segment> segments,
                             std::span<const StepTimingMessage> messages) {
  if (rows.empty() || messages.empty()) return;
  const RowMap map = map_rows(segments, rows.front().kind);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::size_t r = map.row_of_segment[i];
    if (r == kNoRow || r >= rows.size()) continue;
    const auto t = sum_step_timing(messages, segments[i].start_mono_ns, segments[i].end_mono_ns);
    if (!t) continue;
    if (!rows[r].step_timing) rows[r].step_timing.emplace();
    rows[r].step_timing->add(*t);
  }
}

std::vector<SegmentStats> summarize_segments(const RunData& data, std::span<const Segment> segments, SegmentKind kind) {
  std::vector<SegmentStats> rows = segment_rows(segments, kind);
  for (const DeviceSeries& d : data.devices) add_segment_device(rows, segments, d);
  return rows;
}

}  // namespace gpuwatch
