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

class EventWriter {
 public:
  EventWriter(const RunData& data, const TextSink& emit)
      : run_(data.run), steps_(annotated_steps(data.events)), emit_(emit) {}

  // One tag's series (NaN: no value), `wall_ns` empty where only the
  // monotonic clock was loaded.
  void series(const std::string& tag, std::span<const std::int64_t> mono_ns, std::span<const std::int64_t> wall_ns,
              std::span<const double> values) {
    std::vector<std::size_t> valid;
    for (std::size_t i = 0; i < values.size() && i < mono_ns.size(); ++i) {
      if (!std::isnan(values[i])) valid.push_back(i);
    }
    const std::size_t per_point = (valid.size() + kMaxTensorboardPointsPerTag - 1) / kMaxTensorboardPointsPerTag;
    std::string out;
    for (std::size_t first = 0, n = 0; first < valid.size(); first += std::max<std::size_t>(per_point, 1), ++n) {
      const std::size_t last = std::min(valid.size(), first + std::max<std::size_t>(per_point, 1)) - 1;
      double sum = 0;
      for (std::size_t k = first; k <= last; ++k) sum += values[valid[k]];
      const std::size_t at = valid[last];
      const std::int64_t wall = at < wall_ns.size() ? wall_ns[at] : run_.start_wall_ns + (mono_ns[at] - run_.start_mono_ns);
      const double mean = sum / static_cast<double>(last - first + 1);
      append_point(out, tag, mono_ns[at], wall, static_cast<std::int64_t>(n), mean);
    }
    emit_(out);
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

void write_tensorboard_events(const RunData& data, const TextSink& emit) {
  std::string first;
  tensorboard::append_record(first, tensorboard::file_version_event(static_cast<double>(data.run.start_wall_ns) / 1e9));
  emit(first);
  EventWriter writer(data, emit);
  for (const DeviceSeries& d : data.devices) {
    for (std::size_t m = 0; m < d.values.size() && m < kDeviceMetricCount; ++m) {
      writer.series(fmt::format("gpu{}/{}", d.info.index, kDeviceMetrics[m].name), d.mono_ns, d.wall_ns, d.values[m]);
    }
  }
  for (std::size_t m = 0; m < data.host.values.size() && m < kHostMetricCount; ++m) {
    writer.series(fmt::format("host/{}", kHostMetrics[m].name), data.host.mono_ns, data.host.wall_ns,
                  data.host.values[m]);
  }
  writer.logged_scalars(data.events);
}

std::string tensorboard_file_name(const RunData& data) {
  std::string host;
  for (const char c : data.run.host) host += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return fmt::format("events.out.tfevents.{}.{}.gpuwatch", data.run.start_wall_ns / 1'000'000'000,
                     host.empty() ? "host" : host);
}

}  // namespace gpuwatch
