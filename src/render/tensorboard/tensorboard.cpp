#include "render/tensorboard/tensorboard.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "analysis/training.h"
#include "core/metrics.h"
#include "render/tensorboard/tfrecord.h"

namespace gpuwatch {

namespace {

// A double as the float an event holds; past float's range, infinity (a
// plain cast of such a value is undefined).
float as_float(double v) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<float>::max());
  if (v > kMax) return std::numeric_limits<float>::infinity();
  if (v < -kMax) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(v);
}

// The annotated steps in time order: (monotonic time, step).
std::vector<std::pair<std::int64_t, std::int64_t>> annotated_steps(const std::vector<Event>& events) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const Event& e : events) {
    if (e.kind != "step") continue;
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(e.message.data(), e.message.data() + e.message.size(), n);
    if (ec == std::errc{} && end == e.message.data() + e.message.size()) out.emplace_back(e.time.mono_ns, n);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

// One tag's points as its rows come: runs of `per_point` consecutive values
// (NaN: no value, skipped), each kept as its mean at its last row. A tag
// holds at most kMaxTensorboardPointsPerTag points, so a GPU's tags stay a
// few MiB whatever the run's length.
class TagPoints {
 public:
  struct Point {
    std::int64_t mono_ns;
    std::int64_t wall_ns;
    double mean;
  };
  void count(double v) { valid_ += std::isnan(v) ? 0 : 1; }
  // After the counting pass: how many values each point stands for.
  void start() { per_point_ = std::max<std::size_t>((valid_ + kMaxTensorboardPointsPerTag - 1) / kMaxTensorboardPointsPerTag, 1); }
  void add(double v, std::int64_t mono_ns, std::int64_t wall_ns) {
    if (std::isnan(v)) return;
    sum_ += v;
    last_ = {mono_ns, wall_ns, 0};
    if (++in_point_ == per_point_) close();
  }
  const std::vector<Point>& finish() {
    if (in_point_ > 0) close();
    return points_;
  }

 private:
  void close() {
    last_.mean = sum_ / static_cast<double>(in_point_);
    points_.push_back(last_);
    sum_ = 0;
    in_point_ = 0;
  }
  std::size_t valid_ = 0;
  std::size_t per_point_ = 1;
  double sum_ = 0;
  std::size_t in_point_ = 0;
  Point last_{};
  std::vector<Point> points_;
};

class EventWriter {
 public:
  EventWriter(const RunData& base, const TextSink& emit)
      : run_(base.run), steps_(annotated_steps(base.events)), emit_(emit) {}

  // The tags of one series (a GPU: `device` its index; the host: nullopt),
  // read in two passes: one counts each tag's values, the next makes its
  // points.
  void series(const OpenRows& open, std::optional<int> device) {
    const std::size_t metrics = device ? kDeviceMetricCount : kHostMetricCount;
    std::vector<TagPoints> tags(metrics);
    for (const bool counting : {true, false}) {
      for (TagPoints& t : tags) {
        if (!counting) t.start();
      }
      const auto rows = open(RowSelection{device, device.has_value(), !device});
      for (RunRow row; rows->next(row);) {
        if (row.kind == RunRow::Kind::Event) continue;
        const Timestamp time = device ? row.device_sample.time : row.host_sample.time;
        for (std::size_t m = 0; m < metrics; ++m) {
          const double v = device ? row.device_sample.values.value_or_nan(static_cast<DeviceMetric>(m))
                                  : row.host_sample.values.value_or_nan(static_cast<HostMetric>(m));
          if (counting) {
            tags[m].count(v);
          } else {
            tags[m].add(v, time.mono_ns, time.wall_ns);
          }
        }
      }
    }
    for (std::size_t m = 0; m < metrics; ++m) {
      const std::string tag = device ? fmt::format("gpu{}/{}", *device, kDeviceMetrics[m].name)
                                     : fmt::format("host/{}", kHostMetrics[m].name);
      std::string out;
      std::int64_t n = 0;
      for (const TagPoints::Point& p : tags[m].finish()) append_point(out, tag, p.mono_ns, p.wall_ns, n++, p.mean);
      emit_(out);
    }
  }

  void logged_scalars(const std::vector<Event>& events) {
    std::string out;
    std::int64_t n = 0;
    for (const Event& e : events) {
      if (e.kind != "log") continue;
      const std::int64_t wall = e.time.wall_ns != 0 ? e.time.wall_ns : run_.start_wall_ns + (e.time.mono_ns - run_.start_mono_ns);
      for (const auto& [name, value] : parse_log_message(e.message)) {
        append_point(out, fmt::format("log/{}", name), e.time.mono_ns, wall, n, value);
      }
      ++n;
    }
    emit_(out);
  }

 private:
  void append_point(std::string& out, const std::string& tag, std::int64_t mono_ns, std::int64_t wall_ns,
                    std::int64_t index, double value) {
    tensorboard::append_record(
        out, tensorboard::scalar_event(static_cast<double>(wall_ns) / 1e9, step_at(mono_ns).value_or(index), tag,
                                       as_float(value)));
  }

  [[nodiscard]] std::optional<std::int64_t> step_at(std::int64_t mono_ns) const {
    const auto after = std::upper_bound(steps_.begin(), steps_.end(), mono_ns,
                                        [](std::int64_t t, const auto& s) { return t < s.first; });
    if (after == steps_.begin()) return steps_.empty() ? std::nullopt : std::optional<std::int64_t>(0);
    return std::prev(after)->second;
  }

  const RunInfo& run_;
  std::vector<std::pair<std::int64_t, std::int64_t>> steps_;
  const TextSink& emit_;
};

}  // namespace

void write_tensorboard_events(const OpenRows& open, const TextSink& emit) {
  // The run's facts and events; a cursor that reads no rows.
  const RunData base = open(RowSelection{std::nullopt, false, false})->base();
  std::string first;
  tensorboard::append_record(first, tensorboard::file_version_event(static_cast<double>(base.run.start_wall_ns) / 1e9));
  emit(first);
  EventWriter writer(base, emit);
  for (const DeviceSeries& d : base.devices) writer.series(open, d.info.index);
  writer.series(open, std::nullopt);
  writer.logged_scalars(base.events);
}

void write_tensorboard_events(const RunData& data, const TextSink& emit) {
  write_tensorboard_events(rows_in_memory(data), emit);
}

std::string tensorboard_file_name(const RunData& data) {
  std::string host;
  for (const char c : data.run.host) host += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return fmt::format("events.out.tfevents.{}.{}.gpuwatch", data.run.start_wall_ns / 1'000'000'000,
                     host.empty() ? "host" : host);
}

}  // namespace gpuwatch
