#include "core/rollup.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "core/time_weights.h"

namespace gpuwatch {
namespace {

// Offset of positive keys: log(DBL_TRUE_MIN) / log(1.005) is about -149,000,
// so every positive value maps above zero.
constexpr std::int64_t kKeyOffset = 200'000;

bool exact_in_fixed_point(double v, double scale) {
  const double fixed = v * scale;
  return std::abs(fixed) <= static_cast<double>(kRollupMaxFixed) && static_cast<double>(std::llround(fixed)) / scale == v;
}

bool few_distinct_values(std::span<const double> values, double scale) {
  RollupExactness exactness(scale);
  for (double v : values) {
    exactness.add(v);
    if (!exactness.exact()) return false;
  }
  return true;
}

// Sorts the bins by value and adds up those with equal values.
void combine_bins(std::vector<RollupBin>& bins) {
  std::sort(bins.begin(), bins.end(), [](const RollupBin& a, const RollupBin& b) { return a.value < b.value; });
  std::size_t out = 0;
  for (std::size_t i = 0; i < bins.size(); ++i) {
    if (out > 0 && bins[out - 1].value == bins[i].value) {
      bins[out - 1].weight_ns += bins[i].weight_ns;
    } else {
      bins[out++] = bins[i];
    }
  }
  bins.resize(out);
}

std::int64_t minute_of(std::int64_t t, std::int64_t start) {
  const std::int64_t d = t - start;
  return d >= 0 ? d / kRollupMinuteNs : -((-d + kRollupMinuteNs - 1) / kRollupMinuteNs);
}

// One minute's rollup from its samples' values and time weights (in time
// order: the sums are taken in that order, which the streaming builder keeps).
ColumnRollup rollup_minute(std::int64_t minute, std::span<const double> values, std::span<const double> weights,
                           bool exact, RollupBins bins = RollupBins::Keep) {
  ColumnRollup r;
  r.minute = minute;
  r.count = values.size();
  r.exact = exact;
  r.min = r.max = values.front();
  double sum = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    r.weight_ns += weights[i];
    sum += values[i] * weights[i];
    r.min = std::min(r.min, values[i]);
    r.max = std::max(r.max, values[i]);
  }
  r.mean = sum / r.weight_ns;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double d = values[i] - r.mean;
    r.m2 += weights[i] * d * d;
  }
  if (bins == RollupBins::Skip) return r;
  r.histogram.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = exact ? values[i] : rollup_bucket_value(rollup_bucket_key(values[i]));
    r.histogram.push_back({v, weights[i]});
  }
  combine_bins(r.histogram);
  return r;
}

// A bin value's bits, mixed: cheaper than std::hash<double> (a byte hash),
// which was a fifth of merging. 0.0 and -0.0 are one value, as == has them.
struct BinValueHash {
  std::size_t operator()(double v) const noexcept {
    const std::uint64_t mixed = std::bit_cast<std::uint64_t>(v == 0 ? 0.0 : v) * 0x9E37'79B9'7F4A'7C15ULL;
    return static_cast<std::size_t>(mixed ^ (mixed >> 32));
  }
};

}  // namespace

std::int64_t rollup_bucket_key(double value) {
  if (value == 0 || std::isnan(value)) return 0;
  // Clamped before the conversion: infinities land in the outermost bucket.
  const double b = std::floor(std::log(std::abs(value)) / std::log(kRollupBucketRatio));
  const auto key = static_cast<std::int64_t>(std::clamp(b + static_cast<double>(kKeyOffset), 1.0, 2.0 * kKeyOffset));
  return value > 0 ? key : -key;
}

double rollup_bucket_value(std::int64_t key) {
  if (key == 0) return 0;
  // Negated unsigned: a stored key may be INT64_MIN, whose negation overflows (rollup_codec_fuzz).
  const std::uint64_t magnitude = key > 0 ? static_cast<std::uint64_t>(key) : 0 - static_cast<std::uint64_t>(key);
  const double b = static_cast<double>(magnitude) - static_cast<double>(kKeyOffset);
  const double v = std::pow(kRollupBucketRatio, b) * 2 * kRollupBucketRatio / (kRollupBucketRatio + 1);
  return key > 0 ? v : -v;
}

std::vector<ColumnRollup> rollup_column(std::span<const std::int64_t> time_ns, std::span<const double> values,
                                        std::int64_t start_mono_ns, double scale, RollupBins bins) {
  const std::size_t n = std::min(time_ns.size(), values.size());
  std::vector<std::int64_t> times;
  std::vector<double> present;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) continue;
    times.push_back(time_ns[i]);
    present.push_back(values[i]);
  }
  std::vector<ColumnRollup> out;
  if (present.empty()) return out;
  std::vector<double> weights = half_gap_weights_ns(times);
  // As summarize(): a lone sample, or one between identical timestamps, still counts.
  for (double& w : weights) w = w > 0 ? w : 1;
  const bool exact = bins == RollupBins::Keep && few_distinct_values(present, scale);
  std::size_t begin = 0;
  while (begin < present.size()) {
    const std::int64_t minute = minute_of(times[begin], start_mono_ns);
    std::size_t end = begin;
    while (end < present.size() && minute_of(times[end], start_mono_ns) == minute) ++end;
    const std::span<const double> all_values(present);
    const std::span<const double> all_weights(weights);
    out.push_back(rollup_minute(minute, all_values.subspan(begin, end - begin),
                                all_weights.subspan(begin, end - begin), exact, bins));
    begin = end;
  }
  return out;
}

void RollupExactness::add(double value) {
  if (!exact_ || std::isnan(value)) return;
  if (seen_.insert(value).second && (seen_.size() > kRollupExactValues || !exact_in_fixed_point(value, scale_))) {
    exact_ = false;
    seen_ = {};  // no longer needed: give the memory back
  }
}

ColumnRollupBuilder::ColumnRollupBuilder(std::int64_t start_mono_ns, std::int64_t half_gap_cap_ns, bool exact,
                                         Emit emit)
    : start_mono_ns_(start_mono_ns), cap_ns_(half_gap_cap_ns), exact_(exact), emit_(std::move(emit)) {}

void ColumnRollupBuilder::add(std::int64_t time_ns, double value) {
  if (std::isnan(value)) return;
  double left_half_ns = 0;
  if (has_pending_) {
    // As half_gap_weights_ns: integer halves, each capped.
    left_half_ns = static_cast<double>(std::min((time_ns - pending_time_ns_) / 2, cap_ns_));
    close_pending(left_half_ns);
  }
  has_pending_ = true;
  pending_time_ns_ = time_ns;
  pending_value_ = value;
  pending_left_half_ns_ = left_half_ns;
}

void ColumnRollupBuilder::close_pending(double right_half_ns) {
  double w = 0.0 + pending_left_half_ns_ + right_half_ns;
  w = w > 0 ? w : 1;  // as rollup_column: a lone sample still counts
  const std::int64_t minute = minute_of(pending_time_ns_, start_mono_ns_);
  if (!values_.empty() && minute != minute_) {
    emit_(rollup_minute(minute_, values_, weights_ns_, exact_));
    values_.clear();
    weights_ns_.clear();
  }
  minute_ = minute;
  values_.push_back(pending_value_);
  weights_ns_.push_back(w);
}

void ColumnRollupBuilder::finish() {
  if (has_pending_) close_pending(0);
  has_pending_ = false;
  if (!values_.empty()) emit_(rollup_minute(minute_, values_, weights_ns_, exact_));
  values_.clear();
  weights_ns_.clear();
}

void RollupAccumulator::add(ColumnRollup minute) {
  pending_.push_back(std::move(minute));
  if (pending_.size() >= kBlockMinutes) total_ = result();
}

ColumnRollup RollupAccumulator::result() {
  if (total_) pending_.insert(pending_.begin(), std::move(*total_));
  ColumnRollup merged = merge_rollups(pending_);
  pending_.clear();
  total_.reset();
  return merged;
}

std::optional<DeviceRollupTotals> RollupSource::totals(int device_index) const {
  std::optional<DeviceRollups> r = rollups(device_index);
  if (!r) return std::nullopt;
  DeviceRollupTotals t;
  t.merged.resize(kDeviceMetricCount);
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (!r->of(static_cast<DeviceMetric>(m)).empty()) t.merged[m] = merge_rollups(r->of(static_cast<DeviceMetric>(m)));
  }
  t.memory = std::move(r->metrics[static_cast<std::size_t>(DeviceMetric::MemUsedBytes)]);
  t.detectors = std::move(r->detectors);
  return t;
}

ColumnRollup merge_rollup_moments(std::span<const ColumnRollup> parts) {
  ColumnRollup m;
  m.exact = true;
  for (const ColumnRollup& p : parts) {
    if (p.count == 0) continue;
    m.exact = m.exact && p.exact;
    if (m.count == 0) {
      m.minute = p.minute;
      m.min = p.min;
      m.max = p.max;
    }
    // Chan et al.'s pairwise update: stable where the mean dwarfs the spread
    // (memory in bytes), unlike a sum of squares.
    const double total = m.weight_ns + p.weight_ns;
    const double delta = p.mean - m.mean;
    m.mean += delta * (p.weight_ns / total);
    m.m2 += p.m2 + delta * delta * (m.weight_ns * p.weight_ns / total);
    m.weight_ns = total;
    m.count += p.count;
    m.min = std::min(m.min, p.min);
    m.max = std::max(m.max, p.max);
  }
  return m;
}

ColumnRollup merge_rollups(std::span<const ColumnRollup> parts) {
  ColumnRollup m = merge_rollup_moments(parts);
  // A long run has ~20,000 minutes of a few dozen bins each but only a few
  // thousand distinct values: summed by value first, only those are sorted
  // (sorting every bin was 40 % of `plot --kind compare` at 100 M samples).
  std::size_t bins = 0;
  for (const ColumnRollup& p : parts) bins += p.histogram.size();
  constexpr std::size_t kMaxReservedBins = 1 << 16;
  std::unordered_map<double, double, BinValueHash> weight_by_value;
  weight_by_value.reserve(std::min(bins, kMaxReservedBins));
  for (const ColumnRollup& p : parts) {
    if (p.count == 0) continue;
    for (const RollupBin& b : p.histogram) {
      const double v = m.exact || !p.exact ? b.value : rollup_bucket_value(rollup_bucket_key(b.value));
      weight_by_value[v] += b.weight_ns;
    }
  }
  m.histogram.reserve(weight_by_value.size());
  for (const auto& [value, weight_ns] : weight_by_value) m.histogram.push_back({value, weight_ns});
  std::sort(m.histogram.begin(), m.histogram.end(),
            [](const RollupBin& a, const RollupBin& b) { return a.value < b.value; });
  return m;
}

}  // namespace gpuwatch
