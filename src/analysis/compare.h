// `gpuwatch compare`: are two or more runs different, metric by metric, and
// is the difference real? The first run (A) is the baseline; every other run
// is compared with it: delta = run − A, in the metric's unit and in % of A.
//
// Each run's metric is folded across GPUs (run_series.h), the warm-up is
// dropped, and runs are aligned by elapsed time over the span they all
// cover (or each over its full length, or by epoch/step annotations). Means
// are time-weighted. The confidence interval of a difference comes from a
// circular block bootstrap of each run (bootstrap.h), which keeps the
// autocorrelation of consecutive samples; a difference is "real" when its
// interval excludes zero.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run_series.h"
#include "analysis/stats.h"
#include "analysis/step_timing.h"
#include "core/run.h"

namespace gpuwatch {

// How moments of different runs are matched. Epoch and Step use events of
// kind "epoch" / "step" whose message is the number (docs/annotations.md).
enum class Alignment : std::uint8_t { ElapsedTime, Epoch, Step };
// Common: every run over the part all of them cover. Full: each run whole.
enum class SpanMode : std::uint8_t { Common, Full };
std::string_view to_string(Alignment a);
std::string_view to_string(SpanMode s);

inline constexpr std::string_view kCompareMethod = "circular block bootstrap";

struct CompareOptions {
  double warmup_s = 0;  // samples earlier than this (elapsed) are dropped
  Alignment alignment = Alignment::ElapsedTime;
  SpanMode span = SpanMode::Common;
  double confidence = 0.95;
  std::size_t replicates = 2000;
  // Each run's series is merged into at most this many bins before the
  // bootstrap, so a 10-million-sample run costs what a short one does.
  std::size_t max_points = 16384;
  std::uint64_t seed = 0x6770'7577'6174'6368;  // fixed: same runs, same intervals
};

struct ComparedRun {
  RunInfo run;
  std::string label;         // "A", "B", ...
  double end_s = 0;          // elapsed time of its last sample
  double window_from_s = 0;  // the compared part, in elapsed seconds
  double window_to_s = 0;
  // The loop's own measurement of its wait for data inside the compared part
  // (step_timing.h): shown side by side, not bootstrapped (messages, not samples).
  std::optional<StepTiming> step_timing{};
};

// One run, one metric, inside the run's window.
struct RunStatistics {
  Summary summary;                  // time-weighted
  std::size_t points = 0;           // bins the bootstrap resampled
  std::size_t block_points = 1;     // block length in bins ...
  double block_s = 0;               // ... and in seconds
  bool block_fallback = false;      // n^(1/3) instead of the data-driven length
  // Independent samples worth the same precision: variance of the samples
  // over the variance of the bootstrap means, at most summary.count.
  double effective_samples = 0;
};

// One run against the baseline, one metric.
struct Difference {
  double delta = 0;                     // mean − baseline mean
  std::optional<double> delta_percent;  // of the baseline mean; none when that is 0
  double ci_low = 0;                    // interval of delta
  double ci_high = 0;
  std::optional<double> ci_low_percent;  // interval of delta_percent
  std::optional<double> ci_high_percent;
  bool real = false;                     // the interval excludes 0
};

struct MetricComparison {
  RunMetric metric;
  std::vector<std::optional<RunStatistics>> runs;      // per run: none = no values in the window
  std::vector<std::optional<Difference>> differences;  // per run; the baseline's is always none
};

struct Comparison {
  std::vector<ComparedRun> runs;  // runs[0] is the baseline
  CompareOptions options;
  std::vector<MetricComparison> metrics;  // those with values in at least one run
  std::vector<std::string> notes;         // caveats worth a line in every format
};

class CompareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "A", "B", ... "Z", then "R27", "R28", ...
std::string run_label(std::size_t index);

// The compared part of each run, in seconds since its start: from the end
// of the warm-up to the end of the shortest run (Common) or of each run
// (Full); with Epoch/Step alignment, from the first annotation of the first
// unit all runs reached to the first annotation past the last unit they all
// reached (or the run's end), whatever `span` says. Throws CompareError when
// a window is empty or an annotation is missing.
struct ElapsedWindow {
  double from_s = 0;
  double to_s = 0;
};
std::vector<ElapsedWindow> compare_windows(std::span<const RunData> runs, const CompareOptions& options);
// The same for runs read without samples (their facts and events), each
// ending at ends_s[i] seconds since its start.
std::vector<ElapsedWindow> compare_windows(std::span<const RunData> runs, std::span<const double> ends_s,
                                           const CompareOptions& options);

// Needs two runs or more. Throws CompareError when the runs cannot be
// compared as asked (nothing left after the warm-up, no annotations).
Comparison compare_runs(std::span<const RunData> runs, const CompareOptions& options);

}  // namespace gpuwatch
