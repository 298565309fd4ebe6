// `compare` over per-minute rollups (core/rollup.h) instead of samples: what
// a long run is compared from, in time and memory that grow with its minutes
// (21,000 for two weeks), not its samples (100 million).
//
// Each metric is folded across GPUs minute by minute as compare folds it
// tick by tick (analysis/run_series.h): the mean over GPUs of their minute
// means, their sum, or the largest. The time-weighted mean of a run is then
// exact for sums and means over GPUs that report together (to rounding), and
// for "max over GPUs" it is the mean of the hottest GPU's minute means, a
// lower bound of the mean of the per-tick maximum (a few tenths of a degree
// where GPUs trade places). The interval comes from the same circular block
// bootstrap as compare's over samples, with minutes as its points: a minute
// mean keeps all the dependence inside the minute, and blocks of minutes
// (Politis and White's length) the dependence between them.
// docs/compare.md compares the intervals with those over samples.
#pragma once

#include <span>
#include <vector>

#include "analysis/compare.h"
#include "core/rollup.h"

namespace gpuwatch {

// One metric of one run, folded across GPUs minute by minute. Feed every
// GPU's rollups of the metric's column (add_device), or the host's
// (add_host), then take minutes().
class MinuteFold {
 public:
  explicit MinuteFold(RunMetric metric);
  // total_bytes: the GPU's memory total, for the share of total (else unused).
  void add_device(std::span<const ColumnRollup> minutes, double total_bytes = 0);
  void add_host(std::span<const ColumnRollup> minutes);
  // A ColumnRollup per minute with a value (no histogram): mean as the fold
  // makes it, weight and count those of the GPU that covered the minute
  // most, and min, max and m2 bounds that assume the GPUs move together (the
  // true spread of a sum is at most the sum of the spreads).
  [[nodiscard]] std::vector<ColumnRollup> minutes() const;

 private:
  struct Minute {
    std::size_t parts = 0;
    double count = 0, weight_ns = 0;
    double sum_mean = 0, max_mean = 0, sum_sd = 0, max_sd = 0;
    double sum_min = 0, max_min = 0, sum_max = 0, max_max = 0, sum_total = 0;
  };
  void add(const ColumnRollup& m, double total_bytes);
  RunMetric metric_;
  std::vector<Minute> minutes_;  // by minute index
};

// A run as compare_minutes() reads it, beside its facts.
struct RunMinutes {
  double end_s = 0;  // where its data ends, seconds since its start
  // [RunMetric]: MinuteFold::minutes(); empty where the run has no value.
  std::vector<std::vector<ColumnRollup>> metrics;
};

// compare_runs() over minutes; facts[i] is run i without samples (the run,
// its devices' facts and its events). The same windows (a minute cut by a window's
// edge counts by the share of it inside), the same bootstrap with minutes as
// points and a note saying so. Throws CompareError as compare_runs() does.
Comparison compare_minutes(std::span<const RunData> facts, std::span<const RunMinutes> runs,
                           const CompareOptions& options);

}  // namespace gpuwatch
