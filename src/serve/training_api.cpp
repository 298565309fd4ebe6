#include "serve/training_api.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "analysis/downsample.h"
#include "analysis/rollup_stats.h"
#include "analysis/run_report.h"
#include "analysis/step_timing.h"
#include "analysis/training.h"
#include "base/json_writer.h"
#include "core/log_message.h"
#include "core/step_timing.h"
#include "runs/run_status_window.h"
#include "serve/compare_source.h"
#include "serve/run_api.h"
#include "store/rollups.h"
#include "store/stored_columns.h"

namespace gpuwatch {

namespace {

// The log name whose value turns steps/s into samples/s (docs/annotations.md).
constexpr std::string_view kBatchSizeLogName = "batch_size";

// Logged names that are not a training curve: the model's size, PyTorch's
// allocator (the report sets them beside the driver's memory), the loop's
// step timing (drawn as its share of data wait) and the batch size.
bool is_curve_name(std::string_view name) {
  return name != "model_params" && !name.starts_with("torch_") && !is_step_timing_name(name) &&
         name != kBatchSizeLogName;
}

struct Curve {
  std::vector<double> t_s;
  std::vector<double> v;
  void add(double t, double value) {
    t_s.push_back(t);
    v.push_back(value);
  }
};

// What the training said, by kind, in seconds since the run's start.
struct TrainingSignals {
  Curve steps;
  std::map<std::string, Curve, std::less<>> scalars;  // by name
  Curve data_wait_percent;
  std::optional<double> batch_size;
};

// Times in order: a client's mono_ns may place an annotation before the
// previous one received.
void sort_by_time(Curve& s) {
  if (std::is_sorted(s.t_s.begin(), s.t_s.end())) return;
  std::vector<std::size_t> order(s.t_s.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&s](std::size_t a, std::size_t b) { return s.t_s[a] < s.t_s[b]; });
  Curve sorted;
  for (const std::size_t i : order) sorted.add(s.t_s[i], s.v[i]);
  s = std::move(sorted);
}

TrainingSignals training_signals(const RunInfo& run, std::span<const Event> events) {
  TrainingSignals out;
  for (const Event& e : events) {
    const double t = seconds_since_start(run, e.time.mono_ns);
    if (e.kind == "step") {
      if (const auto step = parse_finite_number(e.message)) out.steps.add(t, *step);
    } else if (e.kind == "log") {
      for (const auto& [name, v] : parse_log_message(e.message)) {
        if (is_curve_name(name)) out.scalars[std::string(name)].add(t, v);
      }
    }
  }
  for (const StepTimingMessage& m : step_timing_messages(events)) {
    out.data_wait_percent.add(seconds_since_start(run, m.mono_ns), 100.0 * m.data_wait_s / m.step_time_s);
  }
  out.batch_size = latest_logged(events, kBatchSizeLogName);
  sort_by_time(out.steps);
  sort_by_time(out.data_wait_percent);
  for (auto& [name, values] : out.scalars) sort_by_time(values);
  return out;
}

// The values inside the grid's span and one either side (so a line reaches
// its edges), each bucket's lowest and highest kept.
std::vector<LinePoint> reduce_curve(const Curve& s, const BucketGrid& grid) {
  const auto first = std::lower_bound(s.t_s.begin(), s.t_s.end(), grid.t_begin);
  const auto last = std::upper_bound(s.t_s.begin(), s.t_s.end(), grid.t_end);
  const auto begin = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, first - s.t_s.begin() - 1));
  const std::size_t end = std::min(s.t_s.size(), static_cast<std::size_t>(last - s.t_s.begin()) + 1);
  if (begin >= end) return {};
  return min_max_per_bucket(std::span(s.t_s).subspan(begin, end - begin), std::span(s.v).subspan(begin, end - begin),
                            grid);
}

// The step counter read at the end of each bucket (and once before the span),
// and the steps per second between two readings: the counter's slope, never
// noisier than a pixel. A counter that went back (a loop that counts each
// epoch from 0) gives no rate there.
struct StepCounterRate {
  Curve counter;
  Curve per_s;
};

StepCounterRate step_counter_rate(const Curve& steps, const BucketGrid& grid) {
  StepCounterRate out;
  const double width = (grid.t_end - grid.t_begin) / static_cast<double>(std::max<std::size_t>(1, grid.count));
  const auto first = std::lower_bound(steps.t_s.begin(), steps.t_s.end(), grid.t_begin);
  std::size_t i = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, first - steps.t_s.begin() - 1));
  for (; i < steps.t_s.size() && steps.t_s[i] <= grid.t_end; ++i) {
    const double t = steps.t_s[i];
    const bool last_of_bucket = i + 1 == steps.t_s.size() || t < grid.t_begin || width <= 0 ||
                                std::floor((steps.t_s[i + 1] - grid.t_begin) / width) != std::floor((t - grid.t_begin) / width);
    if (!last_of_bucket) continue;
    if (!out.counter.t_s.empty()) {
      const double dt = t - out.counter.t_s.back();
      const double ds = steps.v[i] - out.counter.v.back();
      if (dt > 0 && ds >= 0) out.per_s.add(t, ds / dt);
    }
    out.counter.add(t, steps.v[i]);
  }
  return out;
}

void write_curve(JsonWriter& w, const std::vector<LinePoint>& points) {
  w.key("t").begin_array();
  for (const LinePoint& p : points) w.value(p.t);
  w.end_array().key("v").begin_array();
  for (const LinePoint& p : points) w.value(p.v);  // NaN, a gap, is null
  w.end_array();
}

void write_curve(JsonWriter& w, const Curve& s) {
  w.key("t").begin_array();
  for (const double t : s.t_s) w.value(t);
  w.end_array().key("v").begin_array();
  for (const double v : s.v) w.value(v);
  w.end_array();
}

// A derived curve: {name, label, unit, t, v}.
template <typename Values>
void write_rate(JsonWriter& w, std::string_view name, std::string_view label, std::string_view unit, const Values& s) {
  w.begin_object().field("name", name).field("label", label).field("unit", unit);
  write_curve(w, s);
  w.end_object();
}

}  // namespace

std::string training_json(StorePools& stores, std::string_view run_ref, const RequestTarget& query) {
  const StorePools::Found found = stores.find(run_ref);
  const RunInfo& run = found.run;
  const BucketGrid grid = series_grid(query, run);  // checked as a series' are
  LoadOptions facts;
  facts.device_samples = false;
  facts.host_samples = false;
  const RunData base = found.store->load(run, facts);
  const TrainingSignals signals = training_signals(run, base.events);
  const StepCounterRate rate = step_counter_rate(signals.steps, grid);
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeSchemaVersion).field("run", run.id);
  w.field("from", grid.t_begin).field("to", grid.t_end).field("batch_size", signals.batch_size);
  w.key("steps").begin_object();
  write_curve(w, rate.counter);
  w.end_object();
  w.key("rates").begin_array();
  if (!rate.per_s.t_s.empty()) {
    write_rate(w, "steps_per_s", "Steps per second", "steps/s", rate.per_s);
    if (signals.batch_size && *signals.batch_size > 0) {
      Curve samples = rate.per_s;
      for (double& v : samples.v) v *= *signals.batch_size;
      write_rate(w, "samples_per_s", "Samples per second", "samples/s", samples);
    }
  }
  if (!signals.data_wait_percent.t_s.empty()) {
    write_rate(w, "data_wait_percent", "Data wait (share of each step)", "%", reduce_curve(signals.data_wait_percent, grid));
  }
  w.end_array().key("scalars").begin_array();
  for (const auto& [name, values] : signals.scalars) {
    w.begin_object().field("name", name);
    write_curve(w, reduce_curve(values, grid));
    w.end_object();
  }
  w.end_array().end_object();
  return out;
}

namespace {

// Steps per second over the whole run: from its first step mark to its last.
std::optional<double> run_steps_per_s(const RunInfo& run, std::span<const Event> events) {
  Curve steps = training_signals(run, events).steps;
  if (steps.t_s.size() < 2) return std::nullopt;
  const double dt = steps.t_s.back() - steps.t_s.front();
  const double ds = steps.v.back() - steps.v.front();
  if (dt <= 0 || ds < 0) return std::nullopt;
  return ds / dt;
}

std::optional<double> final_loss(const RunReport& report) {
  if (!report.training) return std::nullopt;
  for (const ScalarSummary& s : report.training->scalars) {
    if (s.name == "loss" || s.name == "train_loss" || s.name == "train/loss") return s.last;
  }
  return std::nullopt;
}

// The root cause: the first advisory nothing else explains (the verdict
// names it first, docs/advisor.md).
const Advisory* root_cause(const std::vector<Advisory>& advisories) {
  for (const Advisory& a : advisories) {
    if (!a.explained_by) return &a;
  }
  return advisories.empty() ? nullptr : &advisories.front();
}

void write_gpu_utilization(JsonWriter& w, const RunReport& report) {
  w.key("gpus").begin_array();
  double sum = 0;
  int counted = 0;
  for (const DeviceReport& d : report.devices) {
    const Summary* util = d.find(DeviceMetric::GpuUtilPercent);
    w.begin_object().field("gpu", d.info.index).field("name", d.info.name);
    w.field("util_percent_mean", util ? std::optional<double>(util->mean) : std::nullopt).end_object();
    if (util && util->count > 0) {
      sum += util->mean;
      ++counted;
    }
  }
  w.end_array().field("util_percent_mean", counted ? std::optional<double>(sum / counted) : std::nullopt);
}

}  // namespace

std::string summary_json(StorePools& stores, std::string_view run_ref, const AdvisorConfig& config, bool config_given) {
  const StorePools::Found found = stores.find(run_ref);
  const RunInfo& run = found.run;
  const RunData base = load_run_base(*found.store, run);
  const RunReport report = build_report(base, StoredColumns(found.path, run), StoredRollups(found.path, run));
  // A finished run's verdict reads it whole (about 300 bytes a device-sample): the runs list asks
  // for every row, so a long run's is left to its own page.
  const bool judged = estimated_device_samples(run, base.devices.size()) <= kSummaryVerdictMaxDeviceSamples;
  const RunStatusReport status = judged ? stored_status(found, config, config_given) : RunStatusReport{};
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("schema_version", kServeGpusSchemaVersion).field("run", run.id);
  w.field("duration_s", seconds_since_start(run, stored_run_end_mono_ns(run)));
  write_gpu_utilization(w, report);
  w.field("energy_joules", report.total_energy_joules).field("final_loss", final_loss(report));
  w.field("steps_per_s", run_steps_per_s(run, base.events));
  w.field("verdict", judged ? std::optional<std::string>(status.verdict) : std::nullopt);
  w.key("root_cause");
  if (const Advisory* a = root_cause(status.advisories)) {
    w.begin_object().field("id", a->id).field("severity", to_string(a->severity)).field("gpu", a->device_index);
    w.field("summary", a->summary).field("suggestion", a->suggestion).field("action", a->action).end_object();
  } else {
    w.null();
  }
  w.end_object();
  return out;
}

}  // namespace gpuwatch
