#include "render/plot/plot_data.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "analysis/aggregate.h"

namespace gpuwatch::plot {

namespace {

std::size_t index_of(DeviceMetric m) { return static_cast<std::size_t>(m); }

// Samples of different GPUs less than half an interval apart are one tick.
std::int64_t tick_tolerance_ns(const RunInfo& run) {
  return static_cast<std::int64_t>(std::max(run.interval_s, 0.001) * 0.5e9);
}

}  // namespace

std::int64_t max_age_ns(const RunInfo& run, DeviceMetric metric) {
  const double interval = std::max(run.interval_s, 0.001);
  double period = interval;
  switch (info(metric).cadence) {
    case Cadence::Fast: break;
    case Cadence::Slow: period = run.slow_interval_or_default_s(); break;
    case Cadence::Costly: period = std::max(interval, double{kCostlyPeriodSeconds}); break;
    case Cadence::Static: period = 1e9; break;
  }
  return static_cast<std::int64_t>(3 * period * 1e9);
}

namespace {

// A line over the whole span of its times, whatever it is.
BucketGrid span_grid(std::span<const double> t, std::size_t buckets) {
  const ValueRange span = finite_range(t);
  return span.empty() ? BucketGrid{0, 0, buckets} : BucketGrid{span.lo, span.hi, buckets};
}

DeviceData reduce_device(const DeviceSeries& series, const PlotNeeds& needs, std::int64_t line_origin_ns) {
  DeviceData d;
  d.metrics.resize(kDeviceMetricCount);
  d.samples = series.wall_ns.size();
  if (d.samples == 0) return d;
  d.first_wall_ns = series.wall_ns.front();
  d.last_wall_ns = series.wall_ns.back();
  const TimeAxis axis(series.mono_ns);  // shared by the columns read on every tick
  for (const DeviceMetric m : needs.moments) d.metrics[index_of(m)].moments = moments(axis, metric_column(series, m));
  if (needs.histogram) d.histogram = time_weighted_values(series.mono_ns, metric_column(series, *needs.histogram));
  if (!needs.lines.empty()) {
    std::vector<double> t;
    elapsed_seconds(series.wall_ns, line_origin_ns, t);
    const BucketGrid grid = span_grid(t, needs.line_buckets);
    LineBuilder builder;
    for (const DeviceMetric m : needs.lines) {
      const std::span<const double> column = metric_column(series, m);
      if (!column.empty()) d.metrics[index_of(m)].line = builder.reduce(t, column, grid);
    }
  }
  for (const DeviceMetric m : needs.columns()) {
    MetricData& data = d.metrics[index_of(m)];
    // A line keeps every bucket's extremes, and finite extremes bound every
    // value: either gives the range without another pass over the column.
    if (!data.line.v.empty()) {
      data.range = finite_range(data.line.v);
    } else if (data.moments && std::isfinite(data.moments->min) && std::isfinite(data.moments->max)) {
      data.range.add(data.moments->min);
      data.range.add(data.moments->max);
    } else {
      data.range = finite_range(metric_column(series, m));
    }
  }
  return d;
}

using EachDevice = std::function<void(std::size_t position, const DeviceSeries& series)>;

// Loads every device of `base` from `columns` (only `metrics`), `threads` at
// a time, and calls `each` for it on the thread that loaded it; then, when
// given, `in_order` one device at a time in the order of base.devices. The
// first exception stops the others and is rethrown.
void for_each_device(const RunData& base, const DeviceColumns& columns, std::span<const DeviceMetric> metrics,
                     unsigned threads, const EachDevice& each, const EachDevice& in_order) {
  const std::size_t n = base.devices.size();
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::condition_variable turn_changed;
  std::size_t turn = 0;
  std::exception_ptr error;
  const auto work = [&] {
    for (std::size_t i = next++; i < n && !failed; i = next++) {
      try {
        const DeviceSeries series = columns.load(base.devices[i].info.index, metrics, WallClock::Load);
        if (each) each(i, series);
        if (!in_order) continue;
        std::unique_lock lock(mutex);
        turn_changed.wait(lock, [&] { return turn == i || failed; });
        if (failed) return;
        in_order(i, series);
        ++turn;
        turn_changed.notify_all();
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        failed = true;
        turn_changed.notify_all();
        return;
      }
    }
  };
  const std::size_t helpers = std::min<std::size_t>(threads, n) > 1 ? std::min<std::size_t>(threads, n) - 1 : 0;
  std::vector<std::jthread> pool;
  for (std::size_t h = 0; h < helpers; ++h) pool.emplace_back(work);
  work();
  pool.clear();  // joins
  if (error) std::rethrow_exception(error);
}

}  // namespace

std::vector<DeviceMetric> PlotNeeds::columns() const {
  std::vector<DeviceMetric> all;
  for (const auto* list : {&lines, &moments, &means, &ranges}) all.insert(all.end(), list->begin(), list->end());
  if (histogram) all.push_back(*histogram);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

bool PlotRun::has_samples() const {
  return std::any_of(devices.begin(), devices.end(), [](const DeviceData& d) { return d.samples > 0; });
}

PlotRun reduce_run(RunData base, const DeviceColumns& columns, const PlotNeeds& needs, unsigned threads) {
  PlotRun run;
  run.line_origin_ns = base.run.start_wall_ns;
  run.devices.resize(base.devices.size());
  run.means.resize(kDeviceMetricCount);
  std::vector<MeanAcross> means;
  for (const DeviceMetric m : needs.means) means.emplace_back(tick_tolerance_ns(base.run), max_age_ns(base.run, m));
  const auto add_to_means = [&](std::size_t, const DeviceSeries& series) {
    // Once a mean has lost exactness, its adds still take the times that
    // the second reading needs.
    for (std::size_t k = 0; k < means.size(); ++k) {
      means[k].add({series.wall_ns, metric_column(series, needs.means[k])});
    }
  };
  const auto reduce_one = [&](std::size_t i, const DeviceSeries& series) {
    run.devices[i] = reduce_device(series, needs, run.line_origin_ns);
  };
  for_each_device(base, columns, needs.columns(), threads, reduce_one,
                  means.empty() ? EachDevice{} : EachDevice{add_to_means});
  // GPUs sampled on ticks of their own (an imported file): their means need
  // a second reading, now that every tick is known.
  std::vector<DeviceMetric> again;
  for (std::size_t k = 0; k < means.size(); ++k) {
    if (means[k].complete()) continue;
    means[k].restart();
    again.push_back(needs.means[k]);
  }
  if (!again.empty()) {
    const auto add_again = [&](std::size_t, const DeviceSeries& series) {
      for (std::size_t k = 0; k < means.size(); ++k) {
        if (std::find(again.begin(), again.end(), needs.means[k]) != again.end()) {
          means[k].add({series.wall_ns, metric_column(series, needs.means[k])});
        }
      }
    };
    for_each_device(base, columns, again, threads, {}, add_again);
  }
  LineBuilder builder;
  std::vector<std::int64_t> tick_ns;
  std::vector<double> values;
  std::vector<double> t;
  for (std::size_t k = 0; k < means.size(); ++k) {
    means[k].result(tick_ns, values);
    elapsed_seconds(tick_ns, run.line_origin_ns, t);
    run.means[index_of(needs.means[k])] = builder.reduce(t, values, span_grid(t, needs.line_buckets));
  }
  run.base = std::move(base);
  return run;
}

std::int64_t time_origin_ns(const PlotRun& run) {
  std::int64_t origin = run.base.run.start_wall_ns;
  for (const DeviceData& d : run.devices) {
    if (d.samples > 0 && (origin == 0 || d.first_wall_ns < origin)) origin = d.first_wall_ns;
  }
  return origin;
}

double elapsed_end_s(const PlotRun& run, std::int64_t origin_ns) {
  std::int64_t end = run.base.run.end_wall_ns.value_or(origin_ns);
  for (const DeviceData& d : run.devices) {
    if (d.samples > 0) end = std::max(end, d.last_wall_ns);
  }
  return std::max(1.0, seconds_between(origin_ns, end));
}

}  // namespace gpuwatch::plot
