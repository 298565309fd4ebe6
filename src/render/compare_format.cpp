#include "render/compare_format.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/json_writer.h"
#include "core/step_timing.h"
#include "render/report.h"
#include "render/step_timing.h"
#include "render/units.h"

namespace gpuwatch::compare_format {

namespace {

// Empty noun and topic: the metric's label ("GPU utilization").
constexpr MetricWords kWords[kRunMetricCount] = {
    {"has", "higher", "lower", "", ""},
    {"uses", "more", "less", "", ""},
    {"fills", "more", "less", "of its GPU memory", "the share of GPU memory used"},
    {"draws", "more", "less", "", ""},
    {"has a", "higher", "lower", "hottest-GPU temperature", "hottest-GPU temperature"},
    {"has a", "higher", "lower", "hottest-junction temperature", "hottest-junction temperature"},
    {"has a", "higher", "lower", "", ""},
    {"uses", "more", "less", "", ""},
    {"uses", "more", "less", "host memory (process tree RSS)", "host memory (process tree RSS)"},
};

std::string block_text(const MetricComparison& m, std::size_t run) {
  const std::string a = block_duration(m.runs[0]->block_s);
  const std::string b = block_duration(m.runs[run]->block_s);
  const std::string blocks = a == b ? "block " + a : fmt::format("blocks {} and {}", a, b);
  return fmt::format("{}, {}", kCompareMethod, blocks);
}

std::string magnitude(RunMetric m, const Difference& d) {
  if (d.delta_percent) {
    const double p = std::abs(*d.delta_percent);
    return fmt::format("{} %", fixed(p, p >= 0.1 || p == 0 ? 1 : (p >= 0.01 ? 2 : 3)));
  }
  // No percentage of a zero baseline: the difference itself.
  if (info(m).unit == "%") return fmt::format("{} percentage points", fixed(std::abs(d.delta), 1));
  return human_value(m, std::abs(d.delta));
}

}  // namespace

MetricWords words(RunMetric m) {
  MetricWords w = kWords[static_cast<std::size_t>(m)];
  if (w.noun.empty()) w.noun = info(m).label;
  if (w.topic.empty()) w.topic = info(m).label;
  return w;
}

std::string metric_title(RunMetric m) { return column_title(info(m).label, info(m).display); }

std::string table_number(RunMetric m, double value) { return display_value(info(m).display, value); }

std::string signed_number(double value, int decimals) { return signed_fixed(value, decimals, kMinus); }

std::string signed_delta(RunMetric m, double delta) {
  const DisplayFormat& f = info(m).display;
  return signed_number(delta / f.divisor, f.decimals);
}

std::string signed_percent(double percent) {
  const double p = std::abs(percent);
  return signed_number(percent, p >= 0.1 || p == 0 ? 1 : (p >= 0.01 ? 2 : 3)) + " %";
}

std::string human_value(RunMetric m, double value) {
  const RunMetricInfo& i = info(m);
  if (i.unit == "B") return human_bytes(value);
  // The rest in their stored unit ("% of total" is a column's title, not a
  // sentence's unit), with the catalogue's decimals.
  return fmt::format("{:.{}f} {}", value, i.display.decimals, i.unit);
}

std::string interval_text(RunMetric m, const Difference& d) {
  if (d.ci_low_percent && d.ci_high_percent) {
    return fmt::format("{} to {}", signed_percent(*d.ci_low_percent), signed_percent(*d.ci_high_percent));
  }
  return fmt::format("{} to {}", signed_delta(m, d.ci_low), signed_delta(m, d.ci_high));
}

std::string run_name(const Comparison& c, std::size_t run) {
  const ComparedRun& r = c.runs[run];
  const std::string& name = r.run.name;
  const bool repeated = std::count_if(c.runs.begin(), c.runs.end(), [&](const ComparedRun& o) {
                          return o.run.name == name;
                        }) > 1;
  if (name.empty()) return fmt::format("{} ({})", r.label, r.run.id);
  if (repeated) return fmt::format("{} ({} {})", r.label, name, r.run.id);
  return fmt::format("{} ({})", r.label, name);
}

std::string block_duration(double seconds) {
  // Sub-second blocks (fast sampling) keep two significant digits.
  if (seconds < 1) return fmt::format("{:.2g} s", seconds);
  return human_duration(seconds);
}

std::string start_time(const RunInfo& run) {
  std::string s = iso_local(run.start_wall_ns).substr(0, 19);
  if (s.size() > 10) s[10] = ' ';
  return s;
}

std::string short_outcome(const RunInfo& run) {
  if (run.status == RunStatus::Interrupted) return "interrupted";
  if (run.status == RunStatus::Recording) return "recording";
  return describe_outcome(run);
}

void write_run_fields(JsonWriter& w, const RunInfo& run) {
  w.field("id", run.id);
  w.field("name", run.name);
  w.field("start", iso_utc_ms(run.start_wall_ns));
  w.field("status", to_string(run.status));
  w.field("exit_code", run.exit_code);
  w.field("exit_signal", run.exit_signal);
}

std::string direction_text(const Comparison& c) {
  const std::string& a = c.runs[0].label;
  std::string others;
  for (std::size_t r = 1; r < c.runs.size(); ++r) {
    others += r == 1 ? "" : (r + 1 == c.runs.size() ? " and " : ", ");
    others += c.runs[r].label;
  }
  const std::string minuend = c.runs.size() == 2 ? c.runs[1].label : std::string("run");
  return fmt::format("Comparison of {} runs: {} relative to {} ({} is the baseline; delta = {} {} {}, in % of {})",
                     c.runs.size(), others, a, a, minuend, kMinus, a, a);
}

std::string alignment_text(const Comparison& c) {
  const CompareOptions& o = c.options;
  std::string text;
  switch (o.alignment) {
    case Alignment::ElapsedTime:
      text = o.span == SpanMode::Common
                 ? "Aligned by elapsed time since each run started, over the span every run covers "
                   "(--span full compares whole runs)."
                 : "Aligned by elapsed time since each run started; each run is compared whole (--span full).";
      break;
    case Alignment::Epoch: text = "Aligned by epoch: each run over the epochs every run reached."; break;
    case Alignment::Step: text = "Aligned by step: each run over the steps every run reached."; break;
  }
  text += o.warmup_s > 0 ? fmt::format(" The first {:g} s of each run (warm-up) are left out.", o.warmup_s)
                         : " No warm-up is left out (--warmup S).";
  return text;
}

std::string method_text(const Comparison& c) {
  const CompareOptions& o = c.options;
  return fmt::format(
      "Means are time-weighted. Intervals: {:g} % percentile intervals of the difference of means, from a {} "
      "({} replicates; block length per run by the Politis-White rule; at most {} points per run), so that "
      "autocorrelated samples do not make them too narrow. A difference is real when its interval excludes 0.",
      o.confidence * 100, kCompareMethod, o.replicates, o.max_points);
}

Table runs_table(const Comparison& c) {
  Table t;
  t.columns = {{"run"}, {"id"}, {"name", false, true, 8}, {"started"}, {"compared (elapsed)"}, {"outcome", false, true, 8}};
  for (const ComparedRun& r : c.runs) {
    t.rows.push_back({r.label, r.run.id, r.run.name.empty() ? "-" : r.run.name, start_time(r.run),
                      fmt::format("{:.1f}–{:.1f} s of {:.1f} s", r.window_from_s, r.window_to_s, r.end_s),
                      short_outcome(r.run)});
  }
  return t;
}

Table step_timing_table(const Comparison& c) {
  Table t;
  if (std::none_of(c.runs.begin(), c.runs.end(), [](const ComparedRun& r) { return r.step_timing.has_value(); })) {
    return t;
  }
  t.columns = {{"run"}, {data_wait_column(), true}, {step_time_column(), true}, {std::string(kTimedStepsInfo.short_label), true}};
  for (const ComparedRun& r : c.runs) {
    if (!r.step_timing) {
      t.rows.push_back({r.label, "n/a", "n/a", "0"});
    } else {
      t.rows.push_back({r.label, data_wait_cell(*r.step_timing), step_time_cell(*r.step_timing),
                        human_count(r.step_timing->steps)});
    }
  }
  return t;
}

Table pair_table(const Comparison& c, std::size_t run) {
  const std::string& a = c.runs[0].label;
  const std::string& b = c.runs[run].label;
  Table t;
  t.columns = {{"metric"},
               {a, true},
               {b, true},
               {fmt::format("{}{}{}", b, kMinus, a), true},
               {"%", true},
               {fmt::format("{:g} % interval", c.options.confidence * 100), true},
               {"real"}};
  for (const MetricComparison& m : c.metrics) {
    const auto& base = m.runs[0];
    const auto& other = m.runs[run];
    const auto& d = m.differences[run];
    t.rows.push_back({metric_title(m.metric), base ? table_number(m.metric, base->summary.mean) : "n/a",
                      other ? table_number(m.metric, other->summary.mean) : "n/a",
                      d ? signed_delta(m.metric, d->delta) : "",
                      d && d->delta_percent ? signed_percent(*d->delta_percent) : "",
                      d ? interval_text(m.metric, *d) : "", d ? (d->real ? "yes" : "no") : ""});
  }
  return t;
}

Table samples_table(const Comparison& c, std::size_t first, std::size_t count) {
  Table t;
  t.columns = {{"metric"}};
  const std::size_t end = std::min(c.runs.size(), first + count);
  for (std::size_t r = first; r < end; ++r) {
    t.columns.push_back({fmt::format("{} samples", c.runs[r].label), true});
    t.columns.push_back({"effective", true});
    t.columns.push_back({"block", true});
  }
  for (const MetricComparison& m : c.metrics) {
    std::vector<std::string> row{metric_title(m.metric)};
    for (std::size_t r = first; r < end; ++r) {
      const auto& s = m.runs[r];
      row.push_back(s ? fmt::format("{}", s->summary.count) : "n/a");
      row.push_back(s ? fmt::format("{:.0f}", s->effective_samples) : "");
      row.push_back(s ? block_duration(s->block_s) : "");
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace gpuwatch::compare_format

namespace gpuwatch {

std::string compare_sentence(const Comparison& c, const MetricComparison& m, std::size_t run) {
  using namespace compare_format;
  if (run == 0 || run >= m.runs.size() || !m.runs[0] || !m.runs[run] || !m.differences[run]) return {};
  const Difference& d = *m.differences[run];
  const MetricWords w = words(m.metric);
  const std::string values = fmt::format("{} vs {}", human_value(m.metric, m.runs[run]->summary.mean),
                                         human_value(m.metric, m.runs[0]->summary.mean));
  const std::string interval = fmt::format("{:g} % CI {} ({})", c.options.confidence * 100,
                                           interval_text(m.metric, d), block_text(m, run));
  if (d.real) {
    return fmt::format("{} {} {} {} {} than {}: {}, {}", run_name(c, run), w.verb, magnitude(m.metric, d),
                       d.delta > 0 ? w.more : w.less, w.noun, run_name(c, 0), values, interval);
  }
  const std::string delta =
      d.delta_percent ? signed_percent(*d.delta_percent) : signed_delta(m.metric, d.delta);
  return fmt::format("No real difference in {} between {} and {}: {} ({}), {}", w.topic, run_name(c, run),
                     run_name(c, 0), values, delta, interval);
}

}  // namespace gpuwatch
