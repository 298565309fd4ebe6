#include "serve/compare_source.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "analysis/run_series.h"
#include "runs/run_status_window.h"

namespace gpuwatch {

namespace {

// Samples read at once, all GPUs together: about 25 MB of columns.
constexpr double kSpanDeviceSamples = 100'000;

// The bins of samples as they come, span by span: samples arrive in time
// order, so a bin is complete once a later one begins.
class Binner {
 public:
  Binner(std::int64_t origin_ns, std::int64_t bin_ns, std::vector<std::size_t> columns, std::size_t column_count)
      : origin_ns_(origin_ns), bin_ns_(bin_ns), columns_(std::move(columns)), sums_(column_count, 0.0),
        counts_(column_count, 0) {}

  void add(const std::vector<std::int64_t>& mono_ns, const std::vector<std::vector<double>>& values,
           std::vector<std::int64_t>& out_ns, std::vector<std::vector<double>>& out_values) {
    for (std::size_t i = 0; i < mono_ns.size(); ++i) {
      const std::int64_t bin = (mono_ns[i] - origin_ns_) / bin_ns_;
      if (samples_ > 0 && bin != bin_) flush(out_ns, out_values);
      bin_ = bin;
      ++samples_;
      time_sum_ += static_cast<double>(mono_ns[i] - origin_ns_);
      for (const std::size_t c : columns_) {
        if (c >= values.size() || i >= values[c].size() || std::isnan(values[c][i])) continue;
        sums_[c] += values[c][i];
        ++counts_[c];
      }
    }
  }

  // The bin in progress, as one sample at the mean time of its samples.
  void flush(std::vector<std::int64_t>& out_ns, std::vector<std::vector<double>>& out_values) {
    if (samples_ == 0) return;
    out_ns.push_back(origin_ns_ + std::llround(time_sum_ / static_cast<double>(samples_)));
    for (const std::size_t c : columns_) {
      out_values[c].push_back(counts_[c] > 0 ? sums_[c] / static_cast<double>(counts_[c])
                                             : std::numeric_limits<double>::quiet_NaN());
      sums_[c] = 0;
      counts_[c] = 0;
    }
    samples_ = 0;
    time_sum_ = 0;
  }

 private:
  std::int64_t origin_ns_;
  std::int64_t bin_ns_;
  std::vector<std::size_t> columns_;
  std::vector<double> sums_;
  std::vector<std::size_t> counts_;
  std::int64_t bin_ = 0;
  std::size_t samples_ = 0;
  double time_sum_ = 0;
};

template <typename Metric>
std::vector<std::size_t> indices(const std::vector<Metric>& metrics) {
  std::vector<std::size_t> out;
  for (const Metric m : metrics) out.push_back(static_cast<std::size_t>(m));
  return out;
}

}  // namespace

RunData load_reduced_for_compare(Store& store, RunData facts) {
  const RunInfo& run = facts.run;
  const std::int64_t origin = run.start_mono_ns;
  const std::int64_t end = std::max(stored_run_end_mono_ns(run), origin + 1);
  const std::int64_t bin_ns = std::max<std::int64_t>(1, (end - origin) / static_cast<std::int64_t>(kCompareBins) + 1);
  // Whole bins per span, so that no bin straddles two.
  const double per_bin = static_cast<double>(bin_ns) / 1e9 / (run.interval_s > 0 ? run.interval_s : 1.0) *
                         static_cast<double>(std::max<std::size_t>(facts.devices.size(), 1));
  const auto bins_per_span = static_cast<std::int64_t>(std::max(1.0, kSpanDeviceSamples / std::max(per_bin, 1.0)));

  // The columns compare folds (analysis/run_series.h), and nothing else.
  const std::vector<DeviceMetric> device_columns = run_metric_device_columns();
  std::vector<Binner> device_bins;
  for (DeviceSeries& d : facts.devices) {
    d.values.assign(kDeviceMetricCount, {});
    device_bins.emplace_back(origin, bin_ns, indices(device_columns), kDeviceMetricCount);
  }
  facts.host.values.assign(kHostMetricCount, {});
  Binner host_bins(origin, bin_ns, indices(run_metric_host_columns()), kHostMetricCount);

  LoadOptions span;
  span.metrics = device_columns;
  span.device_wall_clock = false;
  for (std::int64_t from = origin; from < end; from += bins_per_span * bin_ns) {
    span.since_mono_ns = from;
    span.until_mono_ns = from + bins_per_span * bin_ns - 1;
    const RunData part = store.load(run, span);
    for (const DeviceSeries& p : part.devices) {
      for (std::size_t i = 0; i < facts.devices.size(); ++i) {
        DeviceSeries& d = facts.devices[i];
        if (d.info.index == p.info.index) device_bins[i].add(p.mono_ns, p.values, d.mono_ns, d.values);
      }
    }
    host_bins.add(part.host.mono_ns, part.host.values, facts.host.mono_ns, facts.host.values);
  }
  for (std::size_t i = 0; i < facts.devices.size(); ++i) device_bins[i].flush(facts.devices[i].mono_ns, facts.devices[i].values);
  host_bins.flush(facts.host.mono_ns, facts.host.values);
  return facts;
}

}  // namespace gpuwatch
