#include <fmt/format.h>

#include "render/compare.h"
#include "render/compare_format.h"
#include "base/json_writer.h"
#include "render/step_timing.h"

namespace gpuwatch {

namespace {

void write_run(JsonWriter& w, const ComparedRun& r) {
  w.begin_object();
  w.field("label", r.label);
  compare_format::write_run_fields(w, r.run);
  w.field("end_s", r.end_s);
  w.field("window_from_s", r.window_from_s);
  w.field("window_to_s", r.window_to_s);
  write_step_timing(w, "step_timing", r.step_timing);
  w.end_object();
}

void write_statistics(JsonWriter& w, const std::string& label, const std::optional<RunStatistics>& s) {
  w.begin_object();
  w.field("label", label);
  if (!s) {
    w.field("mean", std::optional<double>());
    w.end_object();
    return;
  }
  w.field("mean", s->summary.mean);
  w.field("std", s->summary.std);
  w.field("min", s->summary.min);
  w.field("max", s->summary.max);
  w.field("samples", static_cast<std::uint64_t>(s->summary.count));
  w.field("span_s", s->summary.span_s);
  w.field("effective_samples", s->effective_samples);
  w.field("points", static_cast<std::uint64_t>(s->points));
  w.field("block_points", static_cast<std::uint64_t>(s->block_points));
  w.field("block_s", s->block_s);
  w.field("block_rule", s->block_fallback ? "n^(1/3)" : "politis-white");
  w.end_object();
}

void write_metric(JsonWriter& w, const Comparison& c, const MetricComparison& m) {
  const RunMetricInfo& i = info(m.metric);
  w.begin_object();
  w.field("metric", i.name);
  w.field("unit", i.unit);
  w.field("aggregation", i.aggregation);
  w.field("better", to_string(i.better));
  w.key("runs").begin_array();
  for (std::size_t r = 0; r < c.runs.size(); ++r) write_statistics(w, c.runs[r].label, m.runs[r]);
  w.end_array();
  w.key("differences").begin_array();
  for (std::size_t r = 1; r < c.runs.size(); ++r) {
    w.begin_object();
    w.field("label", c.runs[r].label);
    const auto& d = m.differences[r];
    if (!d) {
      w.field("delta", std::optional<double>());
      w.field("verdict", "no data");
      w.end_object();
      continue;
    }
    w.field("delta", d->delta);
    w.field("delta_percent", d->delta_percent);
    w.field("ci_low", d->ci_low);
    w.field("ci_high", d->ci_high);
    w.field("ci_low_percent", d->ci_low_percent);
    w.field("ci_high_percent", d->ci_high_percent);
    w.field("real", d->real);
    w.field("verdict", d->real ? "real" : "not significant");
    w.field("sentence", compare_sentence(c, m, r));
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::string render_compare_json(const Comparison& c) {
  std::string out;
  JsonWriter w(out, true);
  const CompareOptions& o = c.options;
  w.begin_object();
  w.field("schema_version", kCompareSchemaVersion);
  w.field("kind", "comparison");
  w.field("baseline", c.runs[0].label);
  w.field("direction", compare_format::direction_text(c));
  w.field("alignment", to_string(o.alignment));
  w.field("span", to_string(o.span));
  w.field("warmup_s", o.warmup_s);
  w.key("method").begin_object();
  w.field("name", kCompareMethod);
  w.field("interval", "percentile");
  w.field("confidence", o.confidence);
  w.field("replicates", static_cast<std::uint64_t>(o.replicates));
  w.field("block_length_rule", "politis-white");
  w.field("max_points", static_cast<std::uint64_t>(o.max_points));
  w.field("seed", fmt::format("{:#x}", o.seed));  // a string: JSON numbers lose 64-bit precision
  w.field("means", "time-weighted");
  w.end_object();
  w.key("runs").begin_array();
  for (const ComparedRun& r : c.runs) write_run(w, r);
  w.end_array();
  w.key("metrics").begin_array();
  for (const MetricComparison& m : c.metrics) write_metric(w, c, m);
  w.end_array();
  w.key("notes").begin_array();
  for (const std::string& note : c.notes) w.value(note);
  w.end_array();
  w.end_object();
  out.push_back('\n');
  return out;
}

}  // namespace gpuwatch
