#include "runs/run_minutes.h"

#include <algorithm>
#include <cmath>

#include "analysis/run_series.h"
#include "runs/run_status_window.h"
#include "store/rollup_codec.h"
#include "store/rollups.h"

namespace gpuwatch {

namespace {

// Host samples read at once: about 40 MB of columns at 25 host columns.
constexpr double kHostSpanSamples = 200'000;

// The GPU's memory total: its static fact, else the largest minute seen.
double memory_total(const DeviceSeries& d, const std::vector<ColumnRollup>& totals) {
  double total = d.info.static_values.value_or_nan(DeviceMetric::MemTotalBytes);
  for (const ColumnRollup& m : totals) {
    if (std::isnan(total) || m.max > total) total = m.max;
  }
  return total;
}

// Every GPU's rollups, a column at a time, into the folds of the device
// metrics. False when a blob does not decode.
bool fold_devices(const RollupColumns& columns, const RunData& facts, std::vector<MinuteFold>& folds) {
  for (const DeviceSeries& d : facts.devices) {
    const auto totals = columns.column(d.info.index, DeviceMetric::MemTotalBytes);
    if (!totals) return false;
    const double total = memory_total(d, *totals);
    for (const DeviceMetric column : run_metric_device_columns()) {
      if (column == DeviceMetric::MemTotalBytes) continue;
      const auto minutes = columns.column(d.info.index, column);
      if (!minutes) return false;
      for (std::size_t m = 0; m < kRunMetricCount; ++m) {
        const RunMetricSource source = source_of(static_cast<RunMetric>(m));
        if (source.fold != RunMetricFold::Host && source.column == static_cast<std::size_t>(column)) {
          folds[m].add_device(*minutes, total);
        }
      }
    }
  }
  return true;
}

// The host's samples, a span of whole minutes at a time, rolled up per
// minute into the folds of the host metrics. Time weights are each span's,
// which differ from the whole run's only at a span's last sample.
void fold_host(Store& store, const RunInfo& run, std::vector<MinuteFold>& folds) {
  const double interval_s = run.interval_s > 0 ? run.interval_s : 1.0;
  const auto span_minutes = static_cast<std::int64_t>(std::max(1.0, kHostSpanSamples * interval_s / 60.0));
  const std::int64_t span_ns = span_minutes * kRollupMinuteNs;
  const std::int64_t end = stored_run_end_mono_ns(run);
  LoadOptions span;
  span.device_samples = false;
  for (std::int64_t from = run.start_mono_ns; from <= end; from += span_ns) {
    span.since_mono_ns = from;
    span.until_mono_ns = from + span_ns - 1;
    const RunData part = store.load(run, span);
    for (std::size_t m = 0; m < kRunMetricCount; ++m) {
      const RunMetricSource source = source_of(static_cast<RunMetric>(m));
      if (source.fold != RunMetricFold::Host || source.column >= part.host.values.size()) continue;
      // The folds use each minute's moments only: no histograms to build.
      folds[m].add_host(rollup_column(part.host.mono_ns, part.host.values[source.column], run.start_mono_ns,
                                      kHostMetrics[source.column].scale, RollupBins::Skip));
    }
  }
}

}  // namespace

double estimated_device_samples(const RunInfo& run, std::size_t devices) {
  const double length_s = static_cast<double>(stored_run_end_mono_ns(run) - run.start_mono_ns) / 1e9;
  const double interval_s = run.interval_s > 0 ? run.interval_s : 1.0;
  return std::max(0.0, length_s) / interval_s * static_cast<double>(std::max<std::size_t>(devices, 1));
}

RollupColumns::RollupColumns(const std::filesystem::path& store_path, const RunInfo& run)
    : db_(sql::open(store_path.string(), SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, store_path)),
      run_row_(run.row_id),
      available_(run.status != RunStatus::Recording && has_rollups(store_path, run)) {}

std::optional<std::vector<ColumnRollup>> RollupColumns::column(int device_index, DeviceMetric metric) const {
  const MetricInfo& mi = info(metric);
  sql::Stmt q(db_.get(), "SELECT data FROM rollups WHERE run_id = ?1 AND device_idx = ?2 AND metric = ?3");
  q.bind(1, run_row_).bind(2, std::int64_t{device_index}).bind(3, mi.name);
  if (!q.step()) return std::vector<ColumnRollup>{};
  return decode_rollups(q.blob(0), mi.scale);
}

std::optional<StoredRunMinutes> read_run_minutes(Store& store, const std::filesystem::path& store_path,
                                                 const RunInfo& run) {
  const RollupColumns columns(store_path, run);
  if (!columns.available()) return std::nullopt;
  StoredRunMinutes out;
  LoadOptions facts;
  facts.device_samples = false;
  facts.host_samples = false;
  out.facts = store.load(run, facts);
  std::vector<MinuteFold> folds;
  for (std::size_t m = 0; m < kRunMetricCount; ++m) folds.emplace_back(static_cast<RunMetric>(m));
  if (!fold_devices(columns, out.facts, folds)) return std::nullopt;
  fold_host(store, run, folds);
  out.minutes.end_s = static_cast<double>(stored_run_end_mono_ns(run) - run.start_mono_ns) / 1e9;
  for (const MinuteFold& f : folds) out.minutes.metrics.push_back(f.minutes());
  return out;
}

}  // namespace gpuwatch
