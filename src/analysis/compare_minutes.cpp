#include "analysis/compare_minutes.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "analysis/compare_measured.h"

namespace gpuwatch {

namespace {

constexpr double kMinuteS = static_cast<double>(kRollupMinuteNs) / 1e9;

// The minutes inside [from_s, to_s] of a run ending at end_s; a minute cut
// by an edge keeps the share of its time inside (its samples are taken as
// spread evenly over it: at most one minute at each edge is).
std::vector<ColumnRollup> clip_minutes(std::span<const ColumnRollup> minutes, double from_s, double to_s,
                                       double end_s) {
  std::vector<ColumnRollup> out;
  for (const ColumnRollup& m : minutes) {
    const double begin_s = static_cast<double>(m.minute) * kMinuteS;
    double length_s = std::min(begin_s + kMinuteS, end_s) - begin_s;
    if (length_s <= 0) length_s = kMinuteS;  // samples past the recorded end
    const double inside_s = std::min(begin_s + length_s, to_s) - std::max(begin_s, from_s);
    if (inside_s <= 0) continue;
    const double share = std::min(inside_s / length_s, 1.0);
    ColumnRollup part = m;
    if (share < 1) {
      part.weight_ns *= share;
      part.m2 *= share;
      part.count = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(static_cast<double>(m.count) * share)));
    }
    out.push_back(part);
  }
  return out;
}

// summarize()'s fields from folded minutes. Their quantiles are not known
// (a fold's histogram is not the GPUs' histograms folded); compare shows none.
Summary minutes_summary(const ColumnRollup& all) {
  Summary s;
  s.count = all.count;
  s.span_s = all.weight_ns / 1e9;
  s.mean = all.mean;
  s.std = all.weight_ns > 0 ? std::sqrt(std::max(0.0, all.m2 / all.weight_ns)) : 0;
  s.min = all.min;
  s.max = all.max;
  s.p50 = s.p95 = std::numeric_limits<double>::quiet_NaN();
  return s;
}

std::optional<compare_detail::Measured> measure_minutes(std::span<const ColumnRollup> minutes,
                                                        const CompareOptions& options, std::uint64_t seed) {
  if (minutes.empty()) return std::nullopt;
  const ColumnRollup all = merge_rollup_moments(minutes);
  if (all.count == 0 || all.weight_ns <= 0) return std::nullopt;
  std::vector<double> means;
  std::vector<double> weights_ns;
  for (const ColumnRollup& m : minutes) {
    means.push_back(m.mean);
    weights_ns.push_back(m.weight_ns);
  }
  const BinnedSeries points = bin_weighted(means, weights_ns, all.count, options.max_points);
  return compare_detail::measure_points(minutes_summary(all), points, options, seed);
}

}  // namespace

MinuteFold::MinuteFold(RunMetric metric) : metric_(metric) {}

void MinuteFold::add_device(std::span<const ColumnRollup> minutes, double total_bytes) {
  if (source_of(metric_).fold == RunMetricFold::PercentOfTotal && !(total_bytes > 0)) return;  // not part of the share
  for (const ColumnRollup& m : minutes) add(m, total_bytes);
}

void MinuteFold::add_host(std::span<const ColumnRollup> minutes) {
  for (const ColumnRollup& m : minutes) add(m, 0);
}

void MinuteFold::add(const ColumnRollup& m, double total_bytes) {
  if (m.minute < 0 || m.count == 0 || m.weight_ns <= 0) return;
  const auto k = static_cast<std::size_t>(m.minute);
  if (k >= minutes_.size()) minutes_.resize(k + 1);
  Minute& a = minutes_[k];
  const double sd = std::sqrt(std::max(0.0, m.m2 / m.weight_ns));
  if (a.parts == 0) {
    a.max_mean = m.mean;
    a.max_sd = sd;
    a.max_min = m.min;
    a.max_max = m.max;
  }
  ++a.parts;
  a.count = std::max(a.count, static_cast<double>(m.count));
  a.weight_ns = std::max(a.weight_ns, m.weight_ns);
  a.sum_mean += m.mean;
  a.max_mean = std::max(a.max_mean, m.mean);
  a.sum_sd += sd;
  a.max_sd = std::max(a.max_sd, sd);
  a.sum_min += m.min;
  a.max_min = std::max(a.max_min, m.min);
  a.sum_max += m.max;
  a.max_max = std::max(a.max_max, m.max);
  a.sum_total += total_bytes;
}

std::vector<ColumnRollup> MinuteFold::minutes() const {
  const RunMetricFold fold = source_of(metric_).fold;
  std::vector<ColumnRollup> out;
  for (std::size_t k = 0; k < minutes_.size(); ++k) {
    const Minute& a = minutes_[k];
    if (a.parts == 0) continue;
    // mean, spread, min and max of the fold, from the sums or the largest.
    double scale = 1;
    bool summed = true;
    if (fold == RunMetricFold::Mean) scale = 1 / static_cast<double>(a.parts);
    if (fold == RunMetricFold::PercentOfTotal) scale = 100 / a.sum_total;
    if (fold == RunMetricFold::Max || fold == RunMetricFold::Host) summed = false;
    ColumnRollup r;
    r.minute = static_cast<std::int64_t>(k);
    r.count = static_cast<std::size_t>(a.count);
    r.weight_ns = a.weight_ns;
    r.exact = false;
    r.mean = summed ? a.sum_mean * scale : a.max_mean;
    const double sd = summed ? a.sum_sd * scale : a.max_sd;
    r.m2 = sd * sd * a.weight_ns;
    r.min = summed ? a.sum_min * scale : a.max_min;
    r.max = summed ? a.sum_max * scale : a.max_max;
    out.push_back(r);
  }
  return out;
}

Comparison compare_minutes(std::span<const RunData> facts, std::span<const RunMinutes> runs,
                           const CompareOptions& options) {
  using namespace compare_detail;
  if (runs.size() < 2 || facts.size() != runs.size()) throw CompareError("compare needs two runs or more");
  if (!(options.confidence > 0 && options.confidence < 1)) throw CompareError("confidence must be between 0 and 1");
  std::vector<double> ends_s;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& metrics = runs[i].metrics;
    if (std::all_of(metrics.begin(), metrics.end(), [](const auto& m) { return m.empty(); })) {
      throw CompareError(fmt::format("run {} ({}) has no samples", run_label(i), facts[i].run.id));
    }
    ends_s.push_back(runs[i].end_s);
  }
  const std::vector<ElapsedWindow> windows = compare_windows(facts, ends_s, options);
  std::vector<ComparedRun> compared;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    compared.push_back({facts[i].run, run_label(i), ends_s[i], windows[i].from_s, windows[i].to_s});
    const std::int64_t origin = facts[i].run.start_mono_ns;
    const auto at = [origin](double elapsed_s) { return origin + static_cast<std::int64_t>(elapsed_s * 1e9); };
    compared.back().step_timing =
        sum_step_timing(step_timing_messages(facts[i].events), at(windows[i].from_s), at(windows[i].to_s) + 1);
  }
  const MeasureRun measure = [&](std::size_t i, RunMetric metric) -> std::optional<Measured> {
    const auto m = static_cast<std::size_t>(metric);
    if (m >= runs[i].metrics.size()) return std::nullopt;
    const std::vector<ColumnRollup> inside =
        clip_minutes(runs[i].metrics[m], windows[i].from_s, windows[i].to_s, ends_s[i]);
    return measure_minutes(inside, options, stream_seed(options.seed, i, m));
  };
  Comparison c = assemble(std::move(compared), options, measure);
  c.notes.emplace_back(
      "read from per-minute rollups: means are exact (for the hottest GPU, the mean of its minute means); the "
      "interval is a block bootstrap over minutes; std, min and max across GPUs are bounds that take the GPUs "
      "to move together within a minute");
  return c;
}

}  // namespace gpuwatch
