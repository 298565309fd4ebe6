#include "render/plot/plot_rollups.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/rollup_stats.h"

namespace gpuwatch::plot {

namespace {

constexpr double kMinuteS = static_cast<double>(kRollupMinuteNs) / 1e9;

std::size_t metric_index(DeviceMetric m) { return static_cast<std::size_t>(m); }

// Where minutes sit on a picture's time axis: seconds since the lines'
// origin. Minute k starts k minutes after the run's start on the monotonic
// clock, which the wall clock follows.
struct MinuteAxis {
  double start_s = 0;  // of minute 0

  [[nodiscard]] double middle_s(std::int64_t minute) const {
    return start_s + (static_cast<double>(minute) + 0.5) * kMinuteS;
  }
};

// Whether a hole between two minutes with values breaks the line: the same
// rule as the samples' (plot/series.h), a stretch without a value longer
// than a value stays current. One missing minute of a metric read every
// 30 s is no gap; of utilization, it is.
bool breaks_line(std::int64_t minute, std::int64_t next_minute, std::int64_t max_age_ns) {
  return static_cast<double>(next_minute - minute - 1) * static_cast<double>(kRollupMinuteNs) >
         static_cast<double>(max_age_ns);
}

// Points in time order, min and max of each minute at its middle, a NaN
// where the line breaks; reduced to `buckets` buckets like a line from
// samples.
class MinuteLine {
 public:
  MinuteLine(const MinuteAxis& axis, std::int64_t max_age_ns) : axis_(axis), max_age_ns_(max_age_ns) {}

  void add(std::int64_t minute, double lo, double hi) {
    if (!t_.empty() && breaks_line(last_minute_, minute, max_age_ns_)) push(axis_.middle_s(last_minute_), kNaN);
    push(axis_.middle_s(minute), lo);
    if (hi != lo) push(axis_.middle_s(minute), hi);
    last_minute_ = minute;
  }

  [[nodiscard]] Line reduce(std::size_t buckets) const {
    Line line;
    if (t_.empty()) return line;
    for (const LinePoint& p : min_max_per_bucket(t_, v_, BucketGrid{t_.front(), t_.back(), buckets})) {
      line.t_s.push_back(p.t);
      line.v.push_back(p.v);
    }
    return line;
  }

 private:
  void push(double t, double v) {
    t_.push_back(t);
    v_.push_back(v);
  }

  MinuteAxis axis_;
  std::int64_t max_age_ns_;
  std::int64_t last_minute_ = 0;
  std::vector<double> t_;
  std::vector<double> v_;
};

std::optional<Moments> moments_of(std::span<const ColumnRollup> minutes) {
  const std::optional<Summary> s = summarize(minutes);
  if (!s) return std::nullopt;
  return Moments{s->count, s->span_s, s->mean, s->std, s->min, s->max};
}

WeightedValues weighted_values_of(std::span<const ColumnRollup> minutes) {
  WeightedValues out;
  if (minutes.empty()) return out;
  const ColumnRollup all = merge_rollups(minutes);
  for (const RollupBin& b : all.histogram) {
    if (b.weight_ns <= 0 || std::isnan(b.value)) continue;
    out.values.push_back(b.value);
    out.weights_ns.push_back(b.weight_ns);
  }
  return out;
}

ValueRange range_of(std::span<const ColumnRollup> minutes) {
  ValueRange r;
  for (const ColumnRollup& c : minutes) {
    r.add(c.min);
    r.add(c.max);
  }
  return r;
}

// The samples a device has (those of its fullest metric) and the minutes
// they span, first and last, of every metric.
struct DeviceSpan {
  std::size_t samples = 0;
  std::int64_t first_minute = std::numeric_limits<std::int64_t>::max();
  std::int64_t last_minute = std::numeric_limits<std::int64_t>::min();
};

DeviceSpan device_span(const DeviceRollups& rollups) {
  DeviceSpan s;
  for (const std::vector<ColumnRollup>& minutes : rollups.metrics) {
    if (minutes.empty()) continue;
    std::size_t count = 0;
    for (const ColumnRollup& c : minutes) count += c.count;
    s.samples = std::max(s.samples, count);
    s.first_minute = std::min(s.first_minute, minutes.front().minute);
    s.last_minute = std::max(s.last_minute, minutes.back().minute);
  }
  return s;
}

// A device's first and last sample are known to the minute: its first
// minute's start, its last minute's end (never past the run's end).
void set_wall_span(const RunInfo& run, const DeviceSpan& span, DeviceData& d) {
  d.samples = span.samples;
  if (span.samples == 0) return;
  d.first_wall_ns = run.start_wall_ns + span.first_minute * kRollupMinuteNs;
  d.last_wall_ns = run.start_wall_ns + (span.last_minute + 1) * kRollupMinuteNs;
  if (run.end_wall_ns && *run.end_wall_ns >= d.first_wall_ns) d.last_wall_ns = std::min(d.last_wall_ns, *run.end_wall_ns);
}

DeviceData reduce_device_minutes(const RunInfo& run, const DeviceRollups& rollups, const PlotNeeds& needs,
                         const MinuteAxis& axis) {
  DeviceData d;
  d.metrics.resize(kDeviceMetricCount);
  set_wall_span(run, device_span(rollups), d);
  for (const DeviceMetric m : needs.columns()) d.metrics[metric_index(m)].range = range_of(rollups.of(m));
  for (const DeviceMetric m : needs.moments) d.metrics[metric_index(m)].moments = moments_of(rollups.of(m));
  if (needs.histogram) d.histogram = weighted_values_of(rollups.of(*needs.histogram));
  for (const DeviceMetric m : needs.lines) {
    MinuteLine line(axis, max_age_ns(run, m));
    for (const ColumnRollup& c : rollups.of(m)) line.add(c.minute, c.min, c.max);
    d.metrics[metric_index(m)].line = line.reduce(needs.line_buckets);
  }
  return d;
}

// Compare's mean over the GPUs, minute by minute: the sum of the GPUs'
// minute means and how many GPUs had one.
struct MinuteMeans {
  std::vector<double> sum;
  std::vector<int> gpus;

  void add(std::span<const ColumnRollup> minutes) {
    for (const ColumnRollup& c : minutes) {
      if (c.minute < 0 || c.count == 0) continue;
      const auto k = static_cast<std::size_t>(c.minute);
      if (k >= sum.size()) {
        sum.resize(k + 1, 0);
        gpus.resize(k + 1, 0);
      }
      sum[k] += c.mean;
      ++gpus[k];
    }
  }

  [[nodiscard]] Line line(const MinuteAxis& axis, std::int64_t max_age_ns, std::size_t buckets) const {
    MinuteLine line(axis, max_age_ns);
    for (std::size_t k = 0; k < sum.size(); ++k) {
      if (gpus[k] == 0) continue;
      const double mean = sum[k] / gpus[k];
      line.add(static_cast<std::int64_t>(k), mean, mean);
    }
    return line.reduce(buckets);
  }
};

}  // namespace

std::int64_t run_minutes(const RunInfo& run) {
  const std::int64_t end_ns = run.end_wall_ns.value_or(run.heartbeat_wall_ns);
  if (run.start_wall_ns <= 0 || end_ns <= run.start_wall_ns) return 0;
  return (end_ns - run.start_wall_ns) / kRollupMinuteNs;
}

bool draw_from_rollups(const RunInfo& run, std::size_t pixel_columns) {
  return run.status != RunStatus::Recording && static_cast<std::size_t>(run_minutes(run)) > pixel_columns;
}

std::optional<PlotRun> reduce_run_from_rollups(const RunData& base, const RollupSource& rollups,
                                               const PlotNeeds& needs) {
  PlotRun run;
  run.from_rollups = true;
  run.line_origin_ns = base.run.start_wall_ns;
  run.devices.reserve(base.devices.size());
  run.means.resize(kDeviceMetricCount);
  const MinuteAxis axis{seconds_between(run.line_origin_ns, base.run.start_wall_ns)};
  std::vector<MinuteMeans> means(needs.means.size());
  // One GPU's rollups at a time: at 20,000 minutes they are tens of MB each.
  for (const DeviceSeries& device : base.devices) {
    const std::optional<DeviceRollups> r = rollups.rollups(device.info.index);
    if (!r) return std::nullopt;
    run.devices.push_back(reduce_device_minutes(base.run, *r, needs, axis));
    for (std::size_t k = 0; k < means.size(); ++k) means[k].add(r->of(needs.means[k]));
  }
  for (std::size_t k = 0; k < means.size(); ++k) {
    const DeviceMetric m = needs.means[k];
    run.means[metric_index(m)] = means[k].line(axis, max_age_ns(base.run, m), needs.line_buckets);
  }
  return run;
}

}  // namespace gpuwatch::plot
