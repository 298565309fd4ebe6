// Per-minute rollups of a metric column (DESIGN.md, store): what statistics
// over any span of a long run are computed from instead of its samples.
//
// Each minute of the run (minute k: [start + k min, start + (k + 1) min) on
// the monotonic clock) keeps, over the samples of the column that have a
// value: their count, the sum of their time weights, the time-weighted mean
// and sum of squared deviations, min, max, and a histogram of weight by
// value. The weights are the whole run's (core/time_weights.h, the gap cap
// from the whole column), so the sums are exactly summarize()'s. The
// histogram holds every distinct value when the column has few of them
// (utilization, temperatures, clocks, throttle masks: percentiles exact), else
// logarithmic buckets whose representative is within kRollupRelativeError of
// every value in the bucket (power in mW, memory in bytes).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "core/detector_minutes.h"
#include "core/metrics.h"

namespace gpuwatch {

inline constexpr std::int64_t kRollupMinuteNs = 60'000'000'000;
// A column with more distinct values than this over the run is bucketed.
inline constexpr std::size_t kRollupExactValues = 1024;
// Ratio of a bucket's upper to its lower edge; a representative in the
// middle (by ratio) is within (ratio - 1) / (ratio + 1) of any value inside.
inline constexpr double kRollupBucketRatio = 1.005;
// Exact values are kept as fixed-point integers up to this magnitude, where
// key / scale * scale still rounds back to the key.
inline constexpr std::int64_t kRollupMaxFixed = std::int64_t{1} << 48;
inline constexpr double kRollupRelativeError = (kRollupBucketRatio - 1) / (kRollupBucketRatio + 1);

struct RollupBin {
  double value = 0;      // the value itself (exact), or its bucket's representative
  double weight_ns = 0;  // summed time weight of the samples with that value

  bool operator==(const RollupBin&) const = default;
};

struct ColumnRollup {
  std::int64_t minute = 0;  // index from the run's start; ascending in a list
  std::size_t count = 0;    // samples with a value
  double weight_ns = 0;     // their summed time weight
  double mean = 0;          // time-weighted
  double m2 = 0;            // sum of weight x (value - mean)^2
  double min = 0;
  double max = 0;
  bool exact = true;        // histogram by distinct value, else by bucket
  std::vector<RollupBin> histogram;  // ascending value

  bool operator==(const ColumnRollup&) const = default;
};

// A device's rollups, by metric: part of the run model handed to analysis.
struct DeviceRollups {
  int device_index = 0;
  // [metric][k]: the minutes with a value, ascending; empty for a metric
  // without values. kDeviceMetricCount lists.
  std::vector<std::vector<ColumnRollup>> metrics;
  // What the detectors read, per minute; nullopt for a run finished by a
  // gpuwatch before them (its detectors then read the samples).
  std::optional<std::vector<DetectorMinute>> detectors;

  [[nodiscard]] std::span<const ColumnRollup> of(DeviceMetric m) const {
    const auto i = static_cast<std::size_t>(m);
    return i < metrics.size() ? std::span<const ColumnRollup>(metrics[i]) : std::span<const ColumnRollup>();
  }
};

// What `report` needs of a device's rollups: each metric's minutes merged
// into one, the memory's minutes (its median over a span) and the detector
// minutes; read a minute at a time, without holding every column's minutes
// (at two weeks a GPU's are ~100 MB decoded).
struct DeviceRollupTotals {
  std::vector<std::optional<ColumnRollup>> merged;  // [metric]: merge_rollups of its minutes
  std::vector<ColumnRollup> memory;                 // MemUsedBytes' minutes
  std::optional<std::vector<DetectorMinute>> detectors;
};

// Where a report finds a device's rollups (the store's, read on demand).
class RollupSource {
 public:
  virtual ~RollupSource() = default;
  // nullopt: none for this device; its samples are then the source. Safe to
  // call from several threads at once.
  [[nodiscard]] virtual std::optional<DeviceRollups> rollups(int device_index) const = 0;
  // The same as totals; this default merges what rollups() gives.
  [[nodiscard]] virtual std::optional<DeviceRollupTotals> totals(int device_index) const;
};

// merge_rollups over minutes that come one at a time, holding at most a
// block of them: the same total (each block is merged after the total so
// far, in the order merge_rollups takes them).
class RollupAccumulator {
 public:
  void add(ColumnRollup minute);
  [[nodiscard]] bool empty() const { return !total_ && pending_.empty(); }
  [[nodiscard]] ColumnRollup result();

 private:
  static constexpr std::size_t kBlockMinutes = 256;
  std::optional<ColumnRollup> total_;
  std::vector<ColumnRollup> pending_;
};

// The bucket of `value`: an integer key ordered as the values are (0 for
// zero, negative for negative values), and back to its representative.
std::int64_t rollup_bucket_key(double value);
double rollup_bucket_value(std::int64_t key);

// The rollups of one column, minute by minute (minutes without a value are
// left out). `values` NaN is absent; `time_ns` ascending; `scale` the
// column's fixed-point scale: a column is kept exact only when its values are
// few and each is a whole number of 1/scale (as the store keeps them).
// RollupBins::Skip leaves the histograms empty (and `exact` false): for
// callers that use only the moments, at a fraction of the cost.
enum class RollupBins { Keep, Skip };
std::vector<ColumnRollup> rollup_column(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                        std::int64_t start_mono_ns, double scale, RollupBins bins = RollupBins::Keep);

// Whether a column's rollups keep exact values (rollup_column's rule: at
// most kRollupExactValues distinct values, each a whole number of 1/scale),
// told from its values one at a time, holding at most that many values.
class RollupExactness {
 public:
  explicit RollupExactness(double scale) : scale_(scale) {}
  void add(double value);  // NaN is absent and ignored
  [[nodiscard]] bool exact() const { return exact_; }

 private:
  double scale_;
  bool exact_ = true;
  std::unordered_set<double> seen_;
};

// rollup_column's minutes from one sample at a time (time order), holding
// one minute's samples: for columns too long to hold whole (the recorder's
// finish, issue 25). The whole-column quantities come from passes before
// this one: `half_gap_cap_ns` from MedianGapFinder (core/time_weights.h),
// `exact` from RollupExactness; with them the minutes equal
// rollup_column's, bit for bit. Each finished minute goes to `emit`.
class ColumnRollupBuilder {
 public:
  using Emit = std::function<void(const ColumnRollup&)>;
  ColumnRollupBuilder(std::int64_t start_mono_ns, std::int64_t half_gap_cap_ns, bool exact, Emit emit);
  void add(std::int64_t time_ns, double value);  // NaN is absent and ignored
  void finish();  // emits the last minute

 private:
  void close_pending(double right_half_ns);

  std::int64_t start_mono_ns_;
  std::int64_t cap_ns_;
  bool exact_;
  Emit emit_;
  bool has_pending_ = false;  // the last sample, whose right neighbour is not seen yet
  std::int64_t pending_time_ns_ = 0;
  double pending_value_ = 0;
  double pending_left_half_ns_ = 0;
  std::int64_t minute_ = 0;  // of the samples in values_
  std::vector<double> values_;
  std::vector<double> weights_ns_;
};

// Several minutes as one. The histogram stays exact only when every part is.
ColumnRollup merge_rollups(std::span<const ColumnRollup> parts);

// The same without the histogram (empty): count, weight, mean, spread, min
// and max, for callers that show no quantile (compare's minutes).
ColumnRollup merge_rollup_moments(std::span<const ColumnRollup> parts);

}  // namespace gpuwatch
