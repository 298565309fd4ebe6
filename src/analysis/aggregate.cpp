#include "analysis/aggregate.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace gpuwatch {

namespace {

constexpr std::int64_t kEnd = std::numeric_limits<std::int64_t>::max();

std::int64_t tick_until(std::int64_t tick_ns, std::int64_t tolerance_ns) {
  return tick_ns > kEnd - tolerance_ns ? kEnd : tick_ns + tolerance_ns;
}

// Ticks of sorted distinct times: each starts at the first time after the
// previous tick's reach.
std::vector<std::int64_t> ticks_of(std::span<const std::int64_t> times, std::int64_t tolerance_ns) {
  std::vector<std::int64_t> ticks;
  ticks.reserve(times.size());
  std::int64_t until = 0;
  for (const std::int64_t t : times) {
    if (!ticks.empty() && t <= until) continue;
    ticks.push_back(t);
    until = tick_until(t, tolerance_ns);
  }
  return ticks;
}

// Whether every element of `part` is in sorted distinct `whole` (when `part`
// is sorted; an unsorted one may be answered false).
bool all_within(std::span<const std::int64_t> part, std::span<const std::int64_t> whole) {
  auto it = whole.begin();
  for (const std::int64_t t : part) {
    while (it != whole.end() && *it < t) ++it;
    if (it == whole.end() || *it != t) return false;
  }
  return true;
}

}  // namespace

void mean_across(std::span<const TimedColumn> series, std::int64_t tick_tolerance_ns, std::int64_t max_age_ns,
                 std::vector<std::int64_t>& out_time_ns, std::vector<double>& out_values) {
  MeanAcross mean(tick_tolerance_ns, max_age_ns);
  for (const TimedColumn& s : series) mean.add(s);
  if (!mean.complete()) {
    mean.restart();
    for (const TimedColumn& s : series) mean.add(s);
  }
  mean.result(out_time_ns, out_values);
}

bool MeanAcross::fresh(std::int64_t tick_ns, std::int64_t read_ns) const {
  // In doubles: times from an imported file could be anything.
  return static_cast<double>(tick_ns) - static_cast<double>(read_ns) <= static_cast<double>(max_age_ns_);
}

bool MeanAcross::take_times(std::span<const std::int64_t> time_ns) {
  // The usual case, every GPU on the same ticks: nothing new, nothing to merge.
  if (all_within(time_ns, times_)) return true;
  std::vector<std::int64_t> added(time_ns.begin(), time_ns.end());
  if (!std::is_sorted(added.begin(), added.end())) std::sort(added.begin(), added.end());
  added.erase(std::unique(added.begin(), added.end()), added.end());
  if (times_.empty()) {
    times_ = std::move(added);
  } else {
    std::vector<std::int64_t> merged;
    merged.reserve(times_.size() + added.size());
    std::set_union(times_.begin(), times_.end(), added.begin(), added.end(), std::back_inserter(merged));
    times_ = std::move(merged);
  }
  std::vector<std::int64_t> ticks = ticks_of(times_, tolerance_ns_);

  // The old ticks must stand unchanged, side by side, in the new ones.
  const auto first = ticks_.empty() ? ticks.begin() : std::lower_bound(ticks.begin(), ticks.end(), ticks_.front());
  const bool kept = ticks_.empty() || (static_cast<std::size_t>(ticks.end() - first) >= ticks_.size() &&
                                       std::equal(ticks_.begin(), ticks_.end(), first));
  if (!kept) {
    ticks_ = std::move(ticks);
    sums_.assign(ticks_.size(), 0.0);
    counts_.assign(ticks_.size(), 0);
    return false;
  }
  // New ticks before the old ones come before every earlier series' first
  // read (and its look-ahead): those series add nothing there. New ticks
  // after them come after every earlier series' last read: those series
  // count with their last value while it is fresh.
  const auto before = static_cast<std::size_t>(first - ticks.begin());
  const std::size_t after = ticks.size() - before - ticks_.size();
  std::vector<double> sums(before, 0.0);
  std::vector<std::uint32_t> counts(before, 0);
  sums.reserve(ticks.size());
  counts.reserve(ticks.size());
  sums.insert(sums.end(), sums_.begin(), sums_.end());
  counts.insert(counts.end(), counts_.begin(), counts_.end());
  for (std::size_t j = ticks.size() - after; j < ticks.size(); ++j) {
    double sum = 0;
    std::uint32_t count = 0;
    for (const std::optional<Last>& last : last_) {
      if (!last || !fresh(ticks[j], last->time_ns)) continue;
      sum += last->value;
      ++count;
    }
    sums.push_back(sum);
    counts.push_back(count);
  }
  ticks_ = std::move(ticks);
  sums_ = std::move(sums);
  counts_ = std::move(counts);
  return true;
}

void MeanAcross::count(const TimedColumn& series, std::size_t n) {
  std::size_t next = 0;
  std::optional<Last> latest;
  for (std::size_t j = 0; j < ticks_.size(); ++j) {
    const std::int64_t until = tick_until(ticks_[j], tolerance_ns_);
    for (; next < n && series.time_ns[next] <= until; ++next) {
      const double v = series.values[next];
      if (std::isfinite(v)) latest = Last{v, series.time_ns[next]};
    }
    if (latest && fresh(ticks_[j], latest->time_ns)) {
      sums_[j] += latest->value;
      ++counts_[j];
    }
  }
  for (; next < n; ++next) {
    if (std::isfinite(series.values[next])) latest = Last{series.values[next], series.time_ns[next]};
  }
  last_.push_back(latest);
}

bool MeanAcross::add(const TimedColumn& series) {
  const std::size_t n = std::min(series.time_ns.size(), series.values.size());
  const bool ticks_kept = take_times(series.time_ns.first(n));
  complete_ = complete_ && ticks_kept;
  // Once inexact, counting is wasted until restart().
  if (complete_) count(series, n);
  return complete_;
}

void MeanAcross::restart() {
  sums_.assign(ticks_.size(), 0.0);
  counts_.assign(ticks_.size(), 0);
  last_.clear();
  complete_ = true;
}

void MeanAcross::result(std::vector<std::int64_t>& out_time_ns, std::vector<double>& out_values) const {
  out_time_ns = ticks_;
  out_values.resize(ticks_.size());
  for (std::size_t j = 0; j < ticks_.size(); ++j) {
    out_values[j] = counts_[j] > 0 ? sums_[j] / static_cast<double>(counts_[j])
                                   : std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace gpuwatch
