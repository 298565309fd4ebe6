// The report's findings in JSON: idle gaps, throttling, memory trend, PCIe
// link, and the per-phase/per-epoch tables. Split from report_json.cpp to
// keep each file about one thing; the schema is docs/report-json.md.
#include "render/report_json_parts.h"
#include "render/step_timing.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// Elapsed seconds since the run started, from a time on the samples' clock.
double elapsed_s(const RunInfo& run, std::int64_t mono_ns) {
  return static_cast<double>(mono_ns - run.start_mono_ns) / 1e9;
}

void write_idle_gaps(JsonWriter& w, const std::optional<IdleGapReport>& g, const RunInfo& run) {
  w.key("idle_gaps");
  if (!g) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("count", static_cast<std::uint64_t>(g->count));
  w.field("total_s", g->total_s);
  w.field("longest_s", g->longest_s);
  w.field("busy_span_s", g->busy_span_s);
  w.field("typical_period_s", g->typical_period_s);
  w.field("period_cv", g->period_cv);
  w.field("regular", g->regular);
  w.field("leading_idle_s", g->leading_idle_s);
  w.field("trailing_idle_s", g->trailing_idle_s);
  w.key("longest").begin_array();
  for (const IdleGap& gap : g->longest) {
    w.begin_object();
    w.field("start_s", elapsed_s(run, gap.start_ns));
    w.field("duration_s", gap.duration_s);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_throttle(JsonWriter& w, const std::optional<ThrottleReport>& t) {
  w.key("throttling");
  if (!t) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("sampled_s", t->sampled_s);
  w.field("throttled_s", t->throttled_s);
  w.field("throttled_percent", t->throttled_percent);
  w.field("power_percent", t->power_percent);
  w.field("thermal_percent", t->thermal_percent);
  w.key("by_reason").begin_array();
  for (const ThrottleTime& r : t->by_reason) {
    w.begin_object();
    w.field("reason", r.reason.name);
    w.field("kind", to_string(r.reason.kind));
    w.field("seconds", r.seconds);
    w.field("percent", r.percent);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_memory(JsonWriter& w, const std::optional<MemoryTrend>& m, const RunInfo& run) {
  w.key("memory_trend");
  if (!m) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("span_s", m->span_s);
  w.field("slope_bytes_per_hour", m->slope_bytes_per_hour);
  w.field("first_tenth_mean_bytes", m->first_tenth_mean_bytes);
  w.field("last_tenth_mean_bytes", m->last_tenth_mean_bytes);
  w.field("growth_bytes", m->growth_bytes);
  w.field("growth_percent_of_total", m->growth_percent_of_total);
  w.field("leak_suspected", m->leak_suspected);
  w.key("drops").begin_array();
  for (const MemoryDrop& d : m->drops) {
    w.begin_object();
    w.field("at_s", elapsed_s(run, d.time_ns));
    w.field("time", iso_utc_ms(run.start_wall_ns + (d.time_ns - run.start_mono_ns)));
    w.field("from_bytes", d.from_bytes);
    w.field("to_bytes", d.to_bytes);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_pcie(JsonWriter& w, const std::optional<PcieLinkReport>& p) {
  w.key("pcie_link");
  if (!p) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("busy_s", p->busy_s);
  w.field("degraded_busy_s", p->degraded_busy_s);
  w.field("degraded_percent", p->degraded_percent);
  w.field("max_gen", p->max_gen);
  w.field("max_width", p->max_width);
  w.field("worst_busy_gen", p->worst_busy_gen);
  w.field("worst_busy_width", p->worst_busy_width);
  w.end_object();
}

void write_optional_summary(JsonWriter& w, std::string_view name, const std::optional<Summary>& s) {
  w.key(name);
  if (s) {
    write_summary(w, *s);
  } else {
    w.null();
  }
}

}  // namespace

void write_detectors(JsonWriter& w, const DeviceReport& d, const RunInfo& run) {
  write_idle_gaps(w, d.idle_gaps, run);
  write_throttle(w, d.throttle);
  write_memory(w, d.memory, run);
  write_pcie(w, d.pcie_link);
}

void write_segments(JsonWriter& w, std::string_view name, const std::vector<SegmentStats>& segments) {
  w.key(name).begin_array();
  for (const SegmentStats& seg : segments) {
    w.begin_object();
    w.field("label", seg.label);
    w.field("occurrences", static_cast<std::uint64_t>(seg.occurrences));
    w.field("duration_s", seg.duration_s);
    w.field("merged_labels", static_cast<std::uint64_t>(seg.merged_labels));
    write_step_timing(w, "step_timing", seg.step_timing);
    w.key("devices").begin_array();
    for (const SegmentDeviceStats& d : seg.devices) {
      w.begin_object();
      w.field("gpu", d.device_index);
      // Keyed by the catalogue's names of the metrics summarized.
      write_optional_summary(w, info(DeviceMetric::GpuUtilPercent).name, d.util_percent);
      write_optional_summary(w, info(DeviceMetric::MemUsedBytes).name, d.mem_used_bytes);
      write_optional_summary(w, info(DeviceMetric::PowerWatts).name, d.power_watts);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
}

}  // namespace gpuwatch
