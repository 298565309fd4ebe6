#include "core/time_weights.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace gpuwatch {

std::int64_t default_half_gap_cap_ns(std::span<const std::int64_t> time_ns) {
  std::int64_t median = 0;
  if (time_ns.size() >= 2) {
    std::vector<std::int64_t> gaps;
    gaps.reserve(time_ns.size() - 1);
    for (std::size_t i = 1; i < time_ns.size(); ++i) gaps.push_back(time_ns[i] - time_ns[i - 1]);
    auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
    std::nth_element(gaps.begin(), mid, gaps.end());
    median = *mid;
  }
  return std::max<std::int64_t>(median * 3 / 2, 1);
}

std::vector<double> half_gap_weights_ns(std::span<const std::int64_t> time_ns, std::int64_t max_half_gap_ns) {
  std::vector<double> weights(time_ns.size(), 0.0);
  if (time_ns.size() < 2) return weights;
  const std::int64_t cap = max_half_gap_ns > 0 ? max_half_gap_ns : default_half_gap_cap_ns(time_ns);
  for (std::size_t i = 1; i < time_ns.size(); ++i) {
    const auto half = static_cast<double>(std::min((time_ns[i] - time_ns[i - 1]) / 2, cap));
    weights[i - 1] += half;
    weights[i] += half;
  }
  return weights;
}

namespace {

// First pass: gaps below 2^11 ns exactly, larger ones by their bit length and
// the 10 bits after the leading one (55 Ki buckets); later passes: 64 Ki.
constexpr int kMantissaBits = 10;
constexpr std::uint64_t kExactBelow = std::uint64_t{1} << (kMantissaBits + 1);
constexpr std::size_t kFirstPassBuckets = kExactBelow + (64 - (kMantissaBits + 1)) * (std::size_t{1} << kMantissaBits);
constexpr std::uint64_t kLinearBuckets = std::uint64_t{1} << 16;
constexpr std::uint64_t kMantissas = std::uint64_t{1} << kMantissaBits;

std::uint64_t distance(std::int64_t from, std::int64_t to) {
  return static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from);
}

// The bucket holding the k-th gap (0-based) and how many gaps come before
// it; `start` gaps come before bucket 0.
std::pair<std::size_t, std::uint64_t> bucket_of_rank(const std::vector<std::uint64_t>& counts, std::uint64_t start,
                                                     std::uint64_t k) {
  std::uint64_t before = start;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (before + counts[i] > k) return {i, before};
    before += counts[i];
  }
  return {counts.size() - 1, before};  // only when the passes saw different times
}

}  // namespace

std::size_t MedianGapFinder::bucket_of(std::int64_t gap_ns) const {
  if (!first_pass_) return static_cast<std::size_t>(distance(lo_ns_, gap_ns) / bucket_width_ns_);
  const auto g = static_cast<std::uint64_t>(gap_ns);
  if (g < kExactBelow) return static_cast<std::size_t>(g);
  const int shift = std::bit_width(g) - (kMantissaBits + 1);  // 1 for gaps of 12 bits
  const std::uint64_t mantissa = (g >> shift) - kMantissas;
  return static_cast<std::size_t>(kExactBelow + (static_cast<std::uint64_t>(shift) - 1) * kMantissas + mantissa);
}

void MedianGapFinder::add(std::int64_t time_ns) {
  if (done_) return;
  const bool had_prev = std::exchange(has_prev_, true);
  const std::int64_t gap = time_ns - std::exchange(prev_ns_, time_ns);
  if (!had_prev) return;
  if (counts_.empty()) {
    const std::uint64_t buckets = first_pass_ ? kFirstPassBuckets : distance(lo_ns_, hi_ns_) / bucket_width_ns_ + 1;
    counts_.assign(static_cast<std::size_t>(buckets), 0);
  }
  if (first_pass_) {
    min_gap_ns_ = gaps_ == 0 ? gap : std::min(min_gap_ns_, gap);
    ++gaps_;
    if (gap < 0) {
      ++negative_gaps_;
      return;
    }
  } else if (gap < lo_ns_ || gap > hi_ns_) {
    return;
  }
  ++counts_[bucket_of(gap)];
}

bool MedianGapFinder::end_pass() {
  if (done_) return true;
  has_prev_ = false;
  if (first_pass_) {
    narrow_after_first_pass();
    first_pass_ = false;
  } else {
    narrow_after_linear_pass();
  }
  counts_ = {};
  if (!done_ && lo_ns_ == hi_ns_) {
    done_ = true;
    median_ns_ = lo_ns_;
  }
  if (!done_) bucket_width_ns_ = (distance(lo_ns_, hi_ns_) / kLinearBuckets) + 1;
  return done_;
}

void MedianGapFinder::narrow_after_first_pass() {
  if (gaps_ == 0) {  // fewer than two times: the cap is never used
    done_ = true;
    return;
  }
  const std::uint64_t k = gaps_ / 2;  // as nth_element at size() / 2
  if (k < negative_gaps_) {
    lo_ns_ = min_gap_ns_;
    hi_ns_ = -1;
    below_ = 0;
    return;
  }
  const auto [i, before] = bucket_of_rank(counts_, negative_gaps_, k);
  below_ = before;
  if (i < kExactBelow) {
    lo_ns_ = hi_ns_ = static_cast<std::int64_t>(i);
    return;
  }
  const std::uint64_t shift = (i - kExactBelow) / kMantissas + 1;
  const std::uint64_t mantissa = (i - kExactBelow) % kMantissas + kMantissas;
  lo_ns_ = static_cast<std::int64_t>(mantissa << shift);
  hi_ns_ = static_cast<std::int64_t>(((mantissa + 1) << shift) - 1);
}

void MedianGapFinder::narrow_after_linear_pass() {
  if (counts_.empty()) {  // no gap this pass: the column changed between passes; keep what is known
    hi_ns_ = lo_ns_;
    return;
  }
  const auto [i, before] = bucket_of_rank(counts_, below_, gaps_ / 2);
  below_ = before;
  const std::int64_t lo = lo_ns_ + static_cast<std::int64_t>(i * bucket_width_ns_);
  hi_ns_ = distance(lo, hi_ns_) < bucket_width_ns_ ? hi_ns_ : lo + static_cast<std::int64_t>(bucket_width_ns_ - 1);
  lo_ns_ = lo;
}

std::int64_t MedianGapFinder::half_gap_cap_ns() const { return std::max<std::int64_t>(median_ns_ * 3 / 2, 1); }

}  // namespace gpuwatch
