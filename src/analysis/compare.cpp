#include "analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/compare_measured.h"
#include "analysis/parallel_for.h"

namespace gpuwatch {

namespace compare_detail {

namespace {

// The bootstraps' threads: the machine's cores, up to four (a comparison
// has about a dozen metrics per run; more threads would mostly wait).
std::size_t compare_workers() {
  constexpr std::size_t kMaxWorkers = 4;
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxWorkers);
}

std::pair<double, double> percentile_interval(std::vector<double> values, double confidence) {
  std::sort(values.begin(), values.end());
  const double tail = (1 - confidence) / 2;
  return {quantile_sorted(values, tail), quantile_sorted(values, 1 - tail)};
}

Difference difference(const Measured& base, const Measured& other, double confidence) {
  Difference d;
  const double base_mean = base.statistics.summary.mean;
  d.delta = other.statistics.summary.mean - base_mean;
  if (base_mean > 0) d.delta_percent = d.delta / base_mean * 100;
  const std::size_t n = std::min(base.bootstrap_means.size(), other.bootstrap_means.size());
  std::vector<double> deltas;
  std::vector<double> percents;
  bool percent_defined = base_mean > 0;
  for (std::size_t r = 0; r < n; ++r) {
    const double a = base.bootstrap_means[r];
    const double b = other.bootstrap_means[r];
    deltas.push_back(b - a);
    percent_defined = percent_defined && a > 0;
    if (percent_defined) percents.push_back((b - a) / a * 100);
  }
  if (deltas.empty()) {
    d.ci_low = d.ci_high = d.delta;
  } else {
    std::tie(d.ci_low, d.ci_high) = percentile_interval(std::move(deltas), confidence);
  }
  if (percent_defined && !percents.empty()) {
    const auto [lo, hi] = percentile_interval(std::move(percents), confidence);
    d.ci_low_percent = lo;
    d.ci_high_percent = hi;
  }
  d.real = d.ci_low > 0 || d.ci_high < 0;
  return d;
}

}  // namespace

Measured measure_points(const Summary& summary, const BinnedSeries& points, const CompareOptions& options,
                        std::uint64_t seed) {
  Measured m;
  RunStatistics& s = m.statistics;
  s.summary = summary;
  const BlockLength block = politis_white_block_length(points.values);
  s.points = points.values.size();
  s.block_points = std::min(block.points, s.points);
  s.block_fallback = block.fallback;
  s.block_s = static_cast<double>(s.block_points) * points.mean_bin_s();
  m.bootstrap_means = circular_block_bootstrap_means(points, s.block_points, options.replicates, seed);
  const double count = static_cast<double>(summary.count);
  const double boot_var = sample_variance(m.bootstrap_means);
  const double sample_var = summary.std * summary.std;
  s.effective_samples = boot_var > 0 ? std::clamp(sample_var / boot_var, 1.0, count) : count;
  return m;
}

std::uint64_t stream_seed(std::uint64_t seed, std::size_t run, std::size_t metric) {
  return seed + 0x9E37'79B9'7F4A'7C15ULL * (run * kRunMetricCount + metric + 1);
}

Comparison assemble(std::vector<ComparedRun> runs, const CompareOptions& options, const MeasureRun& measure) {
  Comparison c;
  c.options = options;
  c.runs = std::move(runs);
  std::vector<std::vector<std::string>> fallback_metrics(c.runs.size());
  // Every run's every metric first, on a few threads: each has its own
  // bootstrap stream (stream_seed), so the answer is the same on any number.
  std::vector<std::optional<Measured>> all(kRunMetricCount * c.runs.size());
  parallel_for(all.size(), compare_workers(), [&](std::size_t k) {
    all[k] = measure(k % c.runs.size(), static_cast<RunMetric>(k / c.runs.size()));
  });
  for (std::size_t m = 0; m < kRunMetricCount; ++m) {
    const auto metric = static_cast<RunMetric>(m);
    MetricComparison mc{metric, {}, {}};
    const std::span<std::optional<Measured>> measured(all.data() + m * c.runs.size(), c.runs.size());
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
      mc.runs.push_back(measured[i] ? std::optional(measured[i]->statistics) : std::nullopt);
      if (measured[i] && measured[i]->statistics.block_fallback) {
        fallback_metrics[i].emplace_back(info(metric).name);
      }
    }
    if (std::none_of(mc.runs.begin(), mc.runs.end(), [](const auto& r) { return r.has_value(); })) continue;
    mc.differences.resize(c.runs.size());
    for (std::size_t i = 1; i < c.runs.size(); ++i) {
      if (measured[0] && measured[i]) mc.differences[i] = difference(*measured[0], *measured[i], options.confidence);
    }
    c.metrics.push_back(std::move(mc));
  }
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    if (fallback_metrics[i].empty()) continue;
    c.notes.push_back(fmt::format("run {}: the autocorrelation of {} could not be estimated from so few samples; blocks of "
                                  "n^(1/3) samples were used and the intervals are rough",
                                  c.runs[i].label, fmt::join(fallback_metrics[i], ", ")));
  }
  return c;
}

}  // namespace compare_detail

Comparison compare_runs(std::span<const RunData> runs, const CompareOptions& options) {
  using namespace compare_detail;
  if (runs.size() < 2) throw CompareError("compare needs two runs or more");
  if (!(options.confidence > 0 && options.confidence < 1)) throw CompareError("confidence must be between 0 and 1");
  const std::vector<ElapsedWindow> windows = compare_windows(runs, options);
  std::vector<ComparedRun> compared;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    compared.push_back({runs[i].run, run_label(i), run_end_elapsed_s(runs[i]), windows[i].from_s, windows[i].to_s});
    const std::int64_t origin = run_origin_mono_ns(runs[i]);
    const auto at = [origin](double elapsed_s) { return origin + static_cast<std::int64_t>(elapsed_s * 1e9); };
    compared.back().step_timing =
        sum_step_timing(step_timing_messages(runs[i].events), at(windows[i].from_s), at(windows[i].to_s) + 1);
  }
  const MeasureRun measure = [&](std::size_t i, RunMetric metric) -> std::optional<Measured> {
    const ElapsedSeries series = clip(run_metric_series(runs[i], metric), windows[i].from_s, windows[i].to_s);
    const auto summary = summarize(series.elapsed_ns, series.values);
    if (!summary) return std::nullopt;
    const BinnedSeries bins = bin_series(series.elapsed_ns, series.values, options.max_points);
    return measure_points(*summary, bins, options, stream_seed(options.seed, i, static_cast<std::size_t>(metric)));
  };
  return assemble(std::move(compared), options, measure);
}

}  // namespace gpuwatch
