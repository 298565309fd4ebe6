#include "serve/run_api.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "analysis/compare.h"
#include "analysis/compare_minutes.h"
#include "analysis/parallel_for.h"
#include "analysis/rollup_stats.h"
#include "analysis/run_report.h"
#include "core/metrics.h"
#include "render/compare.h"
#include "render/job.h"
#include "base/json_writer.h"
#include "render/plot/plot.h"
#include "render/plot/series.h"
#include "render/report.h"
#include "render/run_status.h"
#include "render/step_timing.h"
#include "render/units.h"
#include "serve/compare_source.h"
#include "runs/run_minutes.h"
#include "runs/run_status_window.h"
#include "store/rollups.h"
#include "store/stored_columns.h"

namespace gpuwatch {

namespace {

// The run's facts, its devices' facts and its events: no samples at all.
RunData load_run_facts(Store& store, const RunInfo& run) {
  LoadOptions options;
  options.device_samples = false;
  options.host_samples = false;
  return store.load(run, options);
}

double run_duration_s(const RunInfo& run) {
  return seconds_since_start(run, stored_run_end_mono_ns(run));
}

std::string command_text(const RunInfo& run) {
  std::string out;
  for (const std::string& arg : run.command) {
    if (!out.empty()) out += ' ';
    out += arg;
  }
  return out;
}

void write_display(JsonWriter& w, const MetricInfo& m) {
  w.key("display").begin_object();
  w.field("unit", m.display.unit).field("divisor", m.display.divisor).field("decimals", m.display.decimals);
  w.end_object();
}

void write_run_fields(JsonWriter& w, const RunInfo& run, const std::vector<DeviceSeries>& devices) {
  w.field("id", run.id).field("name", run.name).field("status", to_string(run.status));
  w.field("live", run.status == RunStatus::Recording);
  w.field("start", iso_utc_ms(run.start_wall_ns)).field("duration_s", run_duration_s(run));
  w.field("command", command_text(run)).field("host", run.host).field("exit_code", run.exit_code);
  write_job_field(w, run.job);
  w.key("gpus").begin_array();
  for (const DeviceSeries& d : devices) {
    w.begin_object().field("gpu", d.info.index).field("name", d.info.name).end_object();
  }
  w.end_array();
}

std::optional<double> number_param(const RequestTarget& query, std::string_view name) {
  const auto text = query.param(name);
  if (!text) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc{} || end != text->data() + text->size() || !std::isfinite(v)) {
    throw ApiError(400, fmt::format("{} must be a number", name));
  }
  return v;
}

std::optional<DeviceMetric> device_metric_named(std::string_view name) {
  const int i = metric_index_by_name(kDeviceMetrics, name);
  if (i < 0) return std::nullopt;
  const auto m = static_cast<DeviceMetric>(i);
  return plot::plottable(m) ? std::optional<DeviceMetric>(m) : std::nullopt;
}

// The host's metrics worth a chart: not its memory's total, which the chart
// of memory used would only flatten.
bool host_metric_over_time(HostMetric m) { return m != HostMetric::MemTotalBytes; }

// Whether any sample of the column has a value.
bool has_values(const DeviceSeries& d, DeviceMetric m) {
  const auto& column = d.values[static_cast<std::size_t>(m)];
  return std::any_of(column.begin(), column.end(), [](double v) { return !std::isnan(v); });
}

void write_line(JsonWriter& w, int device_index, const plot::Line& line) {
  w.begin_object().field("gpu", device_index).key("t").begin_array();
  for (const double x : line.t_s) w.value(x);
  w.end_array().key("v").begin_array();
  for (const double v : line.v) w.value(v);  // NaN, a gap, is written as null
  w.end_array().end_object();
}

// Only the chunks that reach into the span, and a sample's worth either side,
// so that a zoom into a long run reads minutes, not hours.
LoadOptions span_load(const RunInfo& run, double from_s, double to_s) {
  LoadOptions span;
  const auto margin_ns = static_cast<std::int64_t>(run.slow_interval_or_default_s() * 4e9);
  span.since_mono_ns = run.start_mono_ns + static_cast<std::int64_t>(from_s * 1e9) - margin_ns;
  span.until_mono_ns = run.start_mono_ns + static_cast<std::int64_t>(to_s * 1e9) + margin_ns;
  return span;
}

// The samples of the grid's span, and one on either side so lines reach its
// edges, reduced to the grid's columns. `t` is a buffer.
plot::Line reduce_span(const RunInfo& run, const std::vector<std::int64_t>& mono_ns, const std::vector<double>& column,
                       const BucketGrid& grid, plot::LineBuilder& builder, std::vector<double>& t) {
  t.resize(mono_ns.size());
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = seconds_since_start(run, mono_ns[i]);
  const auto first = std::lower_bound(t.begin(), t.end(), grid.t_begin);
  const auto last = std::upper_bound(t.begin(), t.end(), grid.t_end);
  const std::size_t begin = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, first - t.begin() - 1));
  const std::size_t end = std::min(t.size(), static_cast<std::size_t>(last - t.begin()) + 1);
  const bool has_column = column.size() == t.size();  // empty where the metric is missing
  if (!has_column || begin >= end) return {};
  return builder.reduce(std::span(t).subspan(begin, end - begin), std::span(column).subspan(begin, end - begin), grid);
}

}  // namespace

BucketGrid series_grid(const RequestTarget& query, const RunInfo& run) {
  const double points_asked = number_param(query, "points").value_or(static_cast<double>(kDefaultSeriesPoints));
  if (points_asked < 1 || points_asked > static_cast<double>(kMaxSeriesPoints)) {
    throw ApiError(400, fmt::format("points must be 1 to {}", kMaxSeriesPoints));
  }
  const double from = number_param(query, "from").value_or(0.0);
  const double to = number_param(query, "to").value_or(std::clamp(run_duration_s(run), from, kMaxApiSeconds));
  if (from < 0 || to < from || to > kMaxApiSeconds) {
    throw ApiError(400, fmt::format("from and to must satisfy 0 <= from <= to <= {}", kMaxApiSeconds));
  }
  return BucketGrid{from, to, static_cast<std::size_t>(points_asked)};
}

double seconds_since_start(const RunInfo& run, std::int64_t mono_ns) {
  return static_cast<double>(mono_ns - run.start_mono_ns) / 1e9;
}

std::string error_json(std::string_view message) {
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeSchemaVersion).field("error", message).end_object();
  return out;
}

RunInfo find_run(Store& store, std::string_view run_ref) {
  try {
    return store.resolve(std::string(run_ref));
  } catch (const StoreError& e) {
    throw ApiError(404, e.what());
  }
}

std::string runs_json(StorePools& stores) {
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeGpusSchemaVersion).key("runs").begin_array();
  std::vector<RunData> runs;  // facts only: no samples
  stores.for_each_store([&runs](Store& store, const std::vector<RunInfo>& listed) {
    for (const RunInfo& run : listed) runs.push_back(load_run_facts(store, run));
  });
  std::stable_sort(runs.begin(), runs.end(),
                   [](const RunData& a, const RunData& b) { return a.run.start_wall_ns > b.run.start_wall_ns; });
  for (const RunData& run : runs) {
    w.begin_object();
    write_run_fields(w, run.run, run.devices);
    w.end_object();
  }
  w.end_array().end_object();
  return out;
}

std::string run_json(StorePools& stores, std::string_view run_ref) {
  const StorePools::Found found = stores.find(run_ref);
  const std::filesystem::path& store_path = found.path;
  const RunInfo& run = found.run;
  const RunData base = load_run_facts(*found.store, run);
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeGpusSchemaVersion);
  w.key("run").begin_object();
  write_run_fields(w, run, base.devices);
  w.field("interval_s", run.interval_s).field("cwd", run.cwd);
  w.end_object();
  w.key("devices").begin_array();
  for (const DeviceSeries& d : base.devices) {
    w.begin_object().field("gpu", d.info.index).field("name", d.info.name).field("vendor", d.info.vendor);
    w.field("uuid", d.info.uuid).field("mem_total_bytes", d.info.static_values.get(DeviceMetric::MemTotalBytes));
    w.end_object();
  }
  w.end_array();
  // The metrics its GPUs answered when the run began (no sample need be
  // read: a long run's columns take seconds); a run without that list (an
  // older import) has its columns looked at.
  std::vector<bool> present(kDeviceMetricCount, false);
  std::vector<DeviceMetric> plottable;
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    if (plot::plottable(static_cast<DeviceMetric>(i))) plottable.push_back(static_cast<DeviceMetric>(i));
  }
  const StoredColumns columns(store_path, run);
  for (const DeviceSeries& d : base.devices) {
    if (!d.info.supported.empty()) {
      for (const DeviceMetric m : d.info.supported) present[static_cast<std::size_t>(m)] = true;
      continue;
    }
    const DeviceSeries loaded = columns.load(d.info.index, plottable, WallClock::Skip);
    for (const DeviceMetric m : plottable) {
      present[static_cast<std::size_t>(m)] = present[static_cast<std::size_t>(m)] || has_values(loaded, m);
    }
  }
  w.key("metrics").begin_array();
  for (const DeviceMetric m : plottable) {
    if (!present[static_cast<std::size_t>(m)]) continue;
    const MetricInfo& mi = info(m);
    w.begin_object().field("name", mi.name).field("label", mi.label).field("unit", mi.unit);
    write_display(w, mi);
    w.end_object();
  }
  w.end_array();
  // The loop's own measurement over the whole run (analysis/step_timing.h).
  write_step_timing(w, "step_timing", total_step_timing(step_timing_messages(base.events)));
  w.key("events").begin_array();
  for (const Event& e : base.events) {
    w.begin_object().field("t", seconds_since_start(run, e.time.mono_ns)).field("kind", e.kind);
    w.field("message", e.message).field("gpu", e.device_index).end_object();
  }
  w.end_array();
  w.end_object();
  return out;
}

std::string series_json(StorePools& stores, std::string_view run_ref, const RequestTarget& query) {
  const auto metric_name = query.param("metric");
  if (!metric_name) throw ApiError(400, "metric is required, e.g. metric=gpu_util_percent");
  const std::optional<DeviceMetric> metric = device_metric_named(*metric_name);
  if (!metric) throw ApiError(400, fmt::format("no plottable metric is called '{}'", *metric_name));
  const StorePools::Found the_run = stores.find(run_ref);
  const StorePool::Lease& store = the_run.store;
  const std::filesystem::path& store_path = the_run.path;
  const RunInfo& run = the_run.run;
  const RunData base = load_run_facts(*store, run);
  const BucketGrid grid = series_grid(query, run);
  const double from = grid.t_begin;
  const double to = grid.t_end;
  const auto points_asked = static_cast<double>(grid.count);

  const std::vector<DeviceMetric> wanted{*metric};
  plot::LineBuilder builder;
  std::vector<double> t;
  std::string out;
  JsonWriter w(out);
  const MetricInfo& mi = info(*metric);
  w.begin_object().field("schema_version", kServeGpusSchemaVersion).field("metric", mi.name).field("label", mi.label);
  w.field("unit", mi.unit);
  write_display(w, mi);
  w.field("from", from).field("to", to).key("devices").begin_array();
  // Pixel columns of a minute or more: the per-minute min and max stored with
  // a finished run draw the same picture at a fraction of the reading.
  const bool minutes_do = (to - from) / points_asked >= 60.0 && run.status != RunStatus::Recording;
  // Only the asked metric's blobs are decoded: one without values (no blob)
  // costs a lookup, not a device's every column.
  std::optional<RollupColumns> rollups;
  if (minutes_do) rollups.emplace(store_path, run);
  const bool from_rollups = rollups && rollups->available();
  for (const DeviceSeries& d : base.devices) {
    if (const auto minutes = from_rollups ? rollups->column(d.info.index, *metric) : std::nullopt) {
      std::vector<double> minute_v;
      t.clear();
      for (const ColumnRollup& minute : *minutes) {
        const double begin = static_cast<double>(minute.minute) * 60.0;
        if (begin + 60.0 < from - 60.0 || begin > to + 60.0) continue;
        t.push_back(begin + 20.0);
        minute_v.push_back(minute.min);
        t.push_back(begin + 40.0);
        minute_v.push_back(minute.max);
      }
      write_line(w, d.info.index, builder.reduce(t, minute_v, grid));
      continue;
    }
    LoadOptions span = span_load(run, from, to);
    span.device = d.info.index;
    span.metrics = wanted;
    span.host = false;
    span.device_wall_clock = false;
    const RunData part = store->load(run, span);
    const auto found = std::find_if(part.devices.begin(), part.devices.end(),
                                    [&](const DeviceSeries& x) { return x.info.index == d.info.index; });
    if (found == part.devices.end()) continue;
    write_line(w, d.info.index,
               reduce_span(run, found->mono_ns, found->values[static_cast<std::size_t>(*metric)], grid, builder, t));
  }
  w.end_array().end_object();
  return out;
}

std::string host_series_json(StorePools& stores, std::string_view run_ref, const RequestTarget& query) {
  const StorePools::Found the_run = stores.find(run_ref);
  const StorePool::Lease& store = the_run.store;
  const RunInfo& run = the_run.run;
  const BucketGrid grid = series_grid(query, run);
  LoadOptions span = span_load(run, grid.t_begin, grid.t_end);
  span.device_samples = false;
  const RunData part = store->load(run, span);
  plot::LineBuilder builder;
  std::vector<double> t;
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeSchemaVersion).field("from", grid.t_begin).field("to", grid.t_end);
  w.key("metrics").begin_array();
  for (std::size_t i = 0; i < kHostMetricCount; ++i) {
    const auto m = static_cast<HostMetric>(i);
    if (!host_metric_over_time(m)) continue;
    const MetricInfo& mi = info(m);
    const plot::Line line = reduce_span(run, part.host.mono_ns, part.host.values[i], grid, builder, t);
    if (std::none_of(line.v.begin(), line.v.end(), [](double v) { return !std::isnan(v); })) continue;
    w.begin_object().field("metric", mi.name).field("label", mi.label).field("unit", mi.unit);
    write_display(w, mi);
    w.key("t").begin_array();
    for (const double x : line.t_s) w.value(x);
    w.end_array().key("v").begin_array();
    for (const double v : line.v) w.value(v);
    w.end_array().end_object();
  }
  w.end_array().end_object();
  return out;
}

RunStatusReport stored_status(const StorePools::Found& found, const AdvisorConfig& fallback, bool config_given) {
  const RunInfo& run = found.run;
  Store& s = *found.store;
  const RunRead read = [&s, &run](const LoadOptions& o) { return s.load(run, o); };
  const AdvisorConfig config = run_advisor_config(read, fallback, config_given);
  StatusWindows windows;
  windows.now_end_mono_ns = stored_run_end_mono_ns(run);
  const auto window_ns = static_cast<std::int64_t>(config.window_s * 1e9);
  if (windows.now_end_mono_ns - window_ns > run.start_mono_ns) windows.before_end_mono_ns = windows.now_end_mono_ns - window_ns;
  // A long finished run is judged from its columns and rollups, as `gpuwatch
  // status` judges it, never read whole (at 100 M samples: 1.2 s, not 50 s).
  const StoredColumns columns(found.path, run);
  const StoredRollups rollups(found.path, run);
  return status_over_windows(run, read, windows, config, RunSources{&columns, &rollups});
}

std::string report_json(StorePools& stores, std::string_view run_ref, const AdvisorConfig& config, bool config_given,
                        AnswerCache& cache) {
  const StorePools::Found found = stores.find(run_ref);
  const RunInfo& run = found.run;
  const auto make = [&] {
    // Read-only: a run without rollups is reported from its chunks.
    const RunData base = load_run_base(*found.store, run);
    const StoredColumns columns(found.path, run);
    RunReport report = build_report(base, columns, StoredRollups(found.path, run));
    const std::int64_t end_mono_ns = stored_run_end_mono_ns(run);
    if (run.status != RunStatus::Recording && judged_from_columns(base, end_mono_ns)) {
      // As `gpuwatch report`: the verdict from the report just built, not a second one.
      Store& s = *found.store;
      const RunRead read = [&s, &run](const LoadOptions& o) { return s.load(run, o); };
      const RunVerdict verdict = column_run_verdict(base, report, read, columns,
                                                    run_advisor_config(read, config, config_given), end_mono_ns);
      report.verdict = verdict.word;
      report.advisories = verdict.advisories;
    } else {
      const RunStatusReport status = stored_status(found, config, config_given);
      report.verdict = status.verdict;
      report.advisories = status.advisories;
    }
    return render_report_json(report);
  };
  if (run.status == RunStatus::Recording) return make();  // changes with every commit
  return *cache.get(fmt::format("report\n{}\n{}", found.path.string(), run.id), make);
}

std::string status_json(StorePools& stores, std::string_view run_ref, const AdvisorConfig& config, bool config_given) {
  return render_run_status_json(stored_status(stores.find(run_ref), config, config_given));
}

namespace {

// The runs compared: from their per-minute rollups when they are long and
// all have them (analysis/compare_minutes.h), else whole when they fit,
// else reduced as they are read.
Comparison compare_found(std::vector<StorePools::Found>& found, std::vector<RunData> facts) {
  double device_samples = 0;
  for (std::size_t i = 0; i < found.size(); ++i) {
    device_samples += estimated_device_samples(found[i].run, facts[i].devices.size());
  }
  if (device_samples > kCompareMinutesAboveDeviceSamples) {
    // The runs read at once, as `gpuwatch compare` reads them (their rollup
    // blobs through connections of their own; Store::load takes its lock).
    constexpr std::size_t kReadWorkers = 4;
    std::vector<std::optional<StoredRunMinutes>> read(found.size());
    parallel_for(found.size(), kReadWorkers,
                 [&](std::size_t i) { read[i] = read_run_minutes(*found[i].store, found[i].path, found[i].run); });
    std::vector<RunData> minute_facts;
    std::vector<RunMinutes> minutes;
    for (std::optional<StoredRunMinutes>& run : read) {
      if (!run) break;
      minute_facts.push_back(std::move(run->facts));
      minutes.push_back(std::move(run->minutes));
    }
    if (minutes.size() == found.size()) return compare_minutes(minute_facts, minutes, CompareOptions{});
  }
  const bool exact = device_samples <= kExactCompareDeviceSamples;
  for (std::size_t i = 0; i < facts.size(); ++i) {
    Store& store = *found[i].store;
    facts[i] = exact ? store.load(found[i].run) : load_reduced_for_compare(store, std::move(facts[i]));
  }
  Comparison comparison = compare_runs(facts, CompareOptions{});
  if (!exact) {
    comparison.notes.push_back(fmt::format(
        "the runs hold about {:.0f} device-samples and not all have per-minute rollups: each GPU's were read as {} "
        "means over equal spans of its run (`gpuwatch compare` reads every sample)",
        device_samples, kCompareBins));
  }
  return comparison;
}

}  // namespace

std::string compare_json(StorePools& stores, const RequestTarget& query, AnswerCache& cache) {
  const auto list = query.param("runs");
  if (!list) throw ApiError(400, "runs is required, e.g. runs=ID,ID");
  std::vector<std::string> refs;
  for (std::size_t start = 0; start <= list->size();) {
    const std::size_t comma = std::min(list->find(',', start), list->size());
    if (comma > start) refs.emplace_back(list->substr(start, comma - start));
    start = comma + 1;
  }
  if (refs.size() < 2 || refs.size() > kMaxComparedRuns) {
    throw ApiError(400, fmt::format("runs takes 2 to {} runs", kMaxComparedRuns));
  }
  std::vector<StorePools::Found> found;
  std::vector<RunData> facts;
  std::string key = "compare";
  bool finished = true;
  for (const std::string& ref : refs) {
    found.push_back(stores.find(ref));
    facts.push_back(load_run_facts(*found.back().store, found.back().run));
    key += fmt::format("\n{}\n{}", found.back().path.string(), found.back().run.id);
    finished = finished && found.back().run.status != RunStatus::Recording;
  }
  const auto make = [&] { return render_compare_json(compare_found(found, std::move(facts))); };
  if (!finished) return make();  // a running run's answer changes with every commit
  return *cache.get(key, make);
}

}  // namespace gpuwatch
