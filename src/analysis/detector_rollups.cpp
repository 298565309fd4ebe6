#include "analysis/detector_rollups.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "analysis/memory_minutes.h"

namespace gpuwatch {
namespace {

// The minutes are built with the detectors' own thresholds.
static_assert(kLinkBusyPercent == kBusyUtilPercent);
static_assert(IdleGapOptions{}.idle_below_percent == kIdleBelowPercent);

// The upper median (find_idle_gaps's nth_element at n / 2) of the bucketed periods.
double median_period_s(std::span<const DetectorMinute> minutes, std::uint64_t n) {
  std::map<std::int64_t, std::uint64_t> bins;
  for (const DetectorMinute& m : minutes) {
    if (!m.idle) continue;
    for (const PeriodBin& b : m.idle->periods) bins[b.key] += b.count;
  }
  std::uint64_t seen = 0;
  for (const auto& [key, count] : bins) {
    seen += count;
    if (seen > n / 2) return rollup_bucket_value(key);
  }
  return bins.empty() ? 0 : rollup_bucket_value(bins.rbegin()->first);
}

void add_periods(IdleGapReport& r, std::span<const DetectorMinute> minutes) {
  std::uint64_t n = 0;
  double sum = 0;
  double sum_sq = 0;
  for (const DetectorMinute& m : minutes) {
    if (!m.idle) continue;
    for (const PeriodBin& b : m.idle->periods) n += b.count;
    sum += m.idle->period_sum_s;
    sum_sq += m.idle->period_sum_sq_s2;
  }
  if (r.count < kMinIdleGapsForPeriod || n == 0) return;
  const double count = static_cast<double>(n);
  const double mean = sum / count;
  r.typical_period_s = median_period_s(minutes, n);
  r.period_cv = mean > 0 ? std::sqrt(std::max(0.0, sum_sq / count - mean * mean)) / mean : 0.0;
  r.regular = *r.period_cv < kRegularPeriodCv;
}

std::optional<IdleGapReport> idle_from_minutes(std::span<const DetectorMinute> minutes) {
  const auto busy = [](const DetectorMinute& m) { return m.idle && m.idle->busy_samples > 0; };
  const auto first = std::find_if(minutes.begin(), minutes.end(), busy);
  if (first == minutes.end()) return std::nullopt;
  const auto last = std::find_if(minutes.rbegin(), minutes.rend(), busy);
  IdleGapReport r;
  r.first_busy_ns = first->idle->first_busy_ns;
  r.last_busy_ns = last->idle->last_busy_ns;
  r.busy_span_s = static_cast<double>(r.last_busy_ns - r.first_busy_ns) / 1e9;
  for (auto m = minutes.begin(); m != first; ++m) r.leading_idle_s += m->idle ? m->idle->idle_s : 0;
  r.leading_idle_s += first->idle->idle_before_busy_s;
  r.trailing_idle_s = last->idle->idle_after_busy_s;
  for (auto m = minutes.rbegin(); m != last; ++m) r.trailing_idle_s += m->idle ? m->idle->idle_s : 0;
  std::vector<IdleGap> longest;
  for (const DetectorMinute& m : minutes) {
    if (!m.idle) continue;
    r.count += m.idle->gaps;
    r.total_s += m.idle->gap_total_s;
    for (const GapRecord& g : m.idle->longest) longest.push_back({g.start_ns, g.duration_s});
  }
  std::stable_sort(longest.begin(), longest.end(),
                   [](const IdleGap& a, const IdleGap& b) { return a.duration_s > b.duration_s; });
  longest.resize(std::min<std::size_t>(longest.size(), kLongestGapsKept));
  if (!longest.empty()) r.longest_s = longest.front().duration_s;
  r.longest = std::move(longest);
  add_periods(r, minutes);
  return r;
}

// The integral of the pair (a, b) clipped to [from, to], as energy.cpp's.
double clipped_pair_j(const TimedValue& a, const TimedValue& b, std::int64_t from, std::int64_t to) {
  const std::int64_t lo = std::max(a.time_ns, from);
  const std::int64_t hi = std::min(b.time_ns, to);
  if (hi <= lo) return 0;
  const double slope = (b.value - a.value) / static_cast<double>(b.time_ns - a.time_ns);
  const double pa = a.value + slope * static_cast<double>(lo - a.time_ns);
  const double pb = a.value + slope * static_cast<double>(hi - a.time_ns);
  return 0.5 * (pa + pb) * static_cast<double>(hi - lo) / 1e9;
}

bool bridged(const TimedValue& a, const TimedValue& b) {
  return b.time_ns > a.time_ns && b.time_ns - a.time_ns <= kEnergyPowerBridgeNs;
}

// The integral of a minute's own pairs within [from, to]: all of them when
// the minute lies inside, else from its samples, else shared by time.
double minute_power_j(const EnergyMinute& e, std::int64_t from, std::int64_t to, const ColumnWindowRead& read) {
  const std::int64_t a = e.power_first->time_ns;
  const std::int64_t b = e.power_last->time_ns;
  const std::int64_t lo = std::max(a, from);
  const std::int64_t hi = std::min(b, to);
  if (lo == a && hi == b) return e.power_joules;
  if (!read) return e.power_joules * static_cast<double>(hi - lo) / static_cast<double>(b - a);
  const WindowSamples s = read(DeviceMetric::PowerWatts, a, b + 1);
  double joules = 0;
  for (std::size_t i = 1; i < s.time_ns.size(); ++i) {
    const TimedValue p0{s.time_ns[i - 1], s.values[i - 1]};
    const TimedValue p1{s.time_ns[i], s.values[i]};
    if (bridged(p0, p1)) joules += clipped_pair_j(p0, p1, from, to);
  }
  return joules;
}

// The power integral over [from, to]: each minute's own pairs, and the
// pairs across minutes exactly.
std::optional<double> power_integral(std::span<const DetectorMinute> minutes, std::int64_t from, std::int64_t to,
                                     const ColumnWindowRead& read) {
  double joules = 0;
  bool any = false;
  const TimedValue* last = nullptr;
  for (const DetectorMinute& m : minutes) {
    const EnergyMinute& e = m.energy;
    if (!e.power_first || !e.power_last) continue;
    if (last && bridged(*last, *e.power_first) && std::min(e.power_first->time_ns, to) > std::max(last->time_ns, from)) {
      joules += clipped_pair_j(*last, *e.power_first, from, to);
      any = true;
    }
    if (e.power_last->time_ns > e.power_first->time_ns &&
        std::min(e.power_last->time_ns, to) > std::max(e.power_first->time_ns, from)) {
      joules += minute_power_j(e, from, to, read);
      any = true;
    }
    last = &*e.power_last;
  }
  if (!any) return std::nullopt;
  return joules;
}

EnergyEstimate energy_from_minutes(std::span<const DetectorMinute> minutes, const ColumnWindowRead& read) {
  EnergyEstimate e;
  const TimedValue* first = nullptr;
  const TimedValue* last = nullptr;
  double sum = 0;
  bool increased = false;
  for (const DetectorMinute& m : minutes) {
    const EnergyMinute& em = m.energy;
    if (!em.counter_first || !em.counter_last) continue;
    if (!first) first = &*em.counter_first;
    if (last) {
      const double v = em.counter_first->value;
      sum += v >= last->value ? v - last->value : v;
      increased = true;
    }
    sum += em.counter_increase_j;
    increased = increased || em.counter_last->time_ns != em.counter_first->time_ns;
    last = &*em.counter_last;
  }
  constexpr std::int64_t kAll = std::numeric_limits<std::int64_t>::max();
  e.integrated_joules = power_integral(minutes, -kAll, kAll, read);
  if (increased) {
    e.counter_joules = sum;
    e.integrated_counter_span_joules = power_integral(minutes, first->time_ns, last->time_ns, read);
  }
  return e;
}

std::optional<PcieLinkReport> link_from_minutes(const MinuteDetectorInput& in) {
  PcieLinkReport r;
  r.max_gen = in.max_link_gen.value_or(0);
  r.max_width = in.max_link_width.value_or(0);
  bool any = false;
  for (const DetectorMinute& m : in.minutes) {
    if (!m.link) continue;
    any = true;
    if (!in.max_link_gen) r.max_gen = std::max(r.max_gen, m.link->max_gen);
    if (!in.max_link_width) r.max_width = std::max(r.max_width, m.link->max_width);
  }
  if (!any || r.max_gen <= 0 || r.max_width <= 0) return std::nullopt;
  for (const DetectorMinute& m : in.minutes) {
    if (!m.link) continue;
    for (const LinkBusyTime& b : m.link->busy) {
      r.busy_s += b.busy_s;
      r.worst_busy_gen = r.worst_busy_gen == 0 ? b.gen : std::min(r.worst_busy_gen, b.gen);
      r.worst_busy_width = r.worst_busy_width == 0 ? b.width : std::min(r.worst_busy_width, b.width);
      if (b.gen < r.max_gen || b.width < r.max_width) r.degraded_busy_s += b.busy_s;
    }
  }
  r.degraded_percent = r.busy_s > 0 ? r.degraded_busy_s / r.busy_s * 100 : 0;
  return r;
}

}  // namespace

bool long_enough_for_minutes(std::span<const DetectorMinute> minutes) {
  std::uint64_t rows = 0;
  for (const DetectorMinute& m : minutes) rows += m.rows;
  return rows >= kMinuteDetectorsMinSamples;
}

MinuteDetectors detectors_from_minutes(const MinuteDetectorInput& in) {
  MinuteDetectors d;
  for (const DetectorMinute& m : in.minutes) {
    d.samples += m.rows;
    d.last_row_ns = std::max(d.last_row_ns, m.last_row_ns);
  }
  d.idle_gaps = idle_from_minutes(in.minutes);
  d.memory = memory_trend_from_minutes(in, d.idle_gaps);
  d.energy = energy_from_minutes(in.minutes, in.read_window);
  d.pcie_link = link_from_minutes(in);
  return d;
}

}  // namespace gpuwatch
