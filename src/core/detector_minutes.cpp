#include "core/detector_minutes.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>

#include "core/rollup.h"

namespace gpuwatch {
// Named, not anonymous: DetectorMinutesBuilder::State (declared in the
// header) holds these types, which GCC refuses from an anonymous namespace
// in the unity build (-Wsubobject-linkage).
namespace detector_minutes_detail {

std::int64_t minute_index(std::int64_t t, std::int64_t start) {
  const std::int64_t d = t - start;
  return d >= 0 ? d / kRollupMinuteNs : -((-d + kRollupMinuteNs - 1) / kRollupMinuteNs);
}

// A column's present samples with their time weights (half_gap_weights_ns's:
// integer halves of each gap, each capped), one sample late: a sample's
// weight needs its right neighbour.
template <typename Payload>
class WeightedStream {
 public:
  using Emit = std::function<void(std::int64_t, const Payload&, double)>;
  WeightedStream(std::int64_t cap_ns, Emit emit) : cap_ns_(cap_ns), emit_(std::move(emit)) {}

  void add(std::int64_t t, const Payload& p) {
    std::int64_t half = 0;
    if (pending_) {
      half = std::min((t - pending_time_ns_) / 2, cap_ns_);
      emit_(pending_time_ns_, *pending_, static_cast<double>(left_ns_ + half) / 1e9);
    }
    pending_ = p;
    pending_time_ns_ = t;
    left_ns_ = half;
  }
  void finish() {
    if (pending_) emit_(pending_time_ns_, *pending_, static_cast<double>(left_ns_) / 1e9);
    pending_.reset();
  }
  // The time of the sample still waiting for its weight, if any.
  [[nodiscard]] std::optional<std::int64_t> pending_time_ns() const {
    return pending_ ? std::optional(pending_time_ns_) : std::nullopt;
  }

 private:
  std::int64_t cap_ns_;
  Emit emit_;
  std::optional<Payload> pending_;
  std::int64_t pending_time_ns_ = 0;
  std::int64_t left_ns_ = 0;
};

struct LinkRow {
  int gen = 0;
  int width = 0;
  double util = 0;  // NaN: unknown
};

// The trapezoid between two power samples, as analysis/energy.cpp computes it.
double trapezoid_j(const TimedValue& a, const TimedValue& b) {
  const double slope = (b.value - a.value) / static_cast<double>(b.time_ns - a.time_ns);
  const double pb = a.value + slope * static_cast<double>(b.time_ns - a.time_ns);
  return 0.5 * (a.value + pb) * static_cast<double>(b.time_ns - a.time_ns) / 1e9;
}

void keep_longest(std::vector<GapRecord>& longest, const GapRecord& gap) {
  // Stable: among equal durations the earlier gap stays first, as find_idle_gaps's stable_sort.
  const auto at = std::upper_bound(longest.begin(), longest.end(), gap,
                                   [](const GapRecord& a, const GapRecord& b) { return a.duration_s > b.duration_s; });
  longest.insert(at, gap);
  if (longest.size() > kLongestGapsKept) longest.pop_back();
}

void add_period(IdleMinute& m, double period_s) {
  m.period_sum_s += period_s;
  m.period_sum_sq_s2 += period_s * period_s;
  const std::int64_t key = rollup_bucket_key(period_s);
  const auto at = std::lower_bound(m.periods.begin(), m.periods.end(), key,
                                   [](const PeriodBin& b, std::int64_t k) { return b.key < k; });
  if (at != m.periods.end() && at->key == key) {
    ++at->count;
  } else {
    m.periods.insert(at, {key, 1});
  }
}

// Weighted running means and co-moment (West's update), t from the minute's start.
void add_memory(MemoryMinute& m, std::int64_t t, std::int64_t minute_start_ns, double bytes, double w_s) {
  if (m.samples++ == 0) {
    m.first_ns = t;
    m.min_bytes = m.max_bytes = bytes;
  }
  m.last_ns = t;
  m.min_bytes = std::min(m.min_bytes, bytes);
  m.max_bytes = std::max(m.max_bytes, bytes);
  if (w_s <= 0) return;
  const double t_s = static_cast<double>(t - minute_start_ns) / 1e9;
  m.weight_s += w_s;
  const double dt = t_s - m.mean_t_s;
  m.mean_t_s += dt * w_s / m.weight_s;
  m.mean_bytes += (bytes - m.mean_bytes) * w_s / m.weight_s;
  m.m2_t += w_s * dt * (t_s - m.mean_t_s);
  m.c_tv += w_s * dt * (bytes - m.mean_bytes);
}

void add_link(LinkMinute& m, const LinkRow& row, double w_s) {
  m.max_gen = std::max(m.max_gen, row.gen);
  m.max_width = std::max(m.max_width, row.width);
  if (std::isnan(row.util) || row.util < kLinkBusyPercent) return;
  const auto at = std::find_if(m.busy.begin(), m.busy.end(),
                               [&](const LinkBusyTime& b) { return b.gen == row.gen && b.width == row.width; });
  if (at != m.busy.end()) {
    at->busy_s += w_s;
    return;
  }
  m.busy.push_back({row.gen, row.width, w_s});
  std::sort(m.busy.begin(), m.busy.end(), [](const LinkBusyTime& a, const LinkBusyTime& b) {
    return a.gen != b.gen ? a.gen < b.gen : a.width < b.width;
  });
}

double value_at(const DeviceSeries& piece, DeviceMetric m, std::size_t i) {
  const auto& column = piece.values[static_cast<std::size_t>(m)];
  return column.size() == piece.mono_ns.size() ? column[i] : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace detector_minutes_detail

using namespace detector_minutes_detail;

struct DetectorMinutesBuilder::State {
  std::int64_t start_mono_ns;
  std::deque<DetectorMinute> minutes;  // not yet emitted, ascending
  DetectorMinutesBuilder::Emit emit;
  std::vector<DetectorMinute> kept;  // without an emit of the caller's
  WeightedStream<double> util;
  WeightedStream<double> memory;
  WeightedStream<LinkRow> link;
  // Idle gaps across minutes.
  bool seen_busy = false;
  std::int64_t prev_util_ns = 0;
  std::optional<GapRecord> open_gap;
  std::optional<std::int64_t> prev_gap_start_ns;
  // The last power sample and counter reading, whatever their minute.
  std::optional<TimedValue> power;
  std::optional<TimedValue> counter;

  State(std::int64_t start, DetectorCaps caps, DetectorMinutesBuilder::Emit out)
      : start_mono_ns(start),
        emit(out ? std::move(out) : [this](DetectorMinute&& m) { kept.push_back(std::move(m)); }),
        util(caps.util_half_gap_ns, [this](std::int64_t t, double v, double w) { on_util(t, v, w); }),
        memory(caps.memory_half_gap_ns,
               [this](std::int64_t t, double v, double w) {
                 DetectorMinute& m = at(t);
                 if (!m.memory) m.memory.emplace();
                 add_memory(*m.memory, t, start_mono_ns + m.minute * kRollupMinuteNs, v, w);
               }),
        link(caps.link_half_gap_ns, [this](std::int64_t t, const LinkRow& row, double w) {
          DetectorMinute& m = at(t);
          if (!m.link) m.link.emplace();
          add_link(*m.link, row, w);
        }) {}

  // The minute of `t`, made when new (times come nearly in order).
  DetectorMinute& at(std::int64_t t) {
    const std::int64_t k = minute_index(t, start_mono_ns);
    if (!minutes.empty() && minutes.back().minute == k) return minutes.back();
    const auto it = std::lower_bound(minutes.begin(), minutes.end(), k,
                                     [](const DetectorMinute& m, std::int64_t x) { return m.minute < x; });
    if (it != minutes.end() && it->minute == k) return *it;
    DetectorMinute fresh;
    fresh.minute = k;
    return *minutes.insert(it, std::move(fresh));
  }

  // Emits the minutes before the earliest one a later row can still reach:
  // a waiting sample's minute, or the row's (an energy reading's time is
  // the row's less its read age, under a minute: one minute of margin).
  void emit_settled(std::int64_t row_ns) {
    std::int64_t reach_ns = row_ns;
    for (const auto& waiting : {util.pending_time_ns(), memory.pending_time_ns(), link.pending_time_ns()}) {
      if (waiting) reach_ns = std::min(reach_ns, *waiting);
    }
    const std::int64_t settled = minute_index(reach_ns, start_mono_ns) - 1;
    while (!minutes.empty() && minutes.front().minute < settled) {
      emit(std::move(minutes.front()));
      minutes.pop_front();
    }
  }

  void on_util(std::int64_t t, double util_percent, double w_s);
  void on_power(std::int64_t t, double watts);
  void on_counter(std::int64_t t, double joules);
  void add_row(const DeviceSeries& piece, std::size_t i);
};

void DetectorMinutesBuilder::State::on_util(std::int64_t t, double util_percent, double w_s) {
  DetectorMinute& minute = at(t);
  if (!minute.idle) minute.idle.emplace();
  IdleMinute& m = *minute.idle;
  if (util_percent < kIdleBelowPercent) {
    m.idle_s += w_s;
    if (m.busy_samples == 0) m.idle_before_busy_s += w_s;
    m.idle_after_busy_s += w_s;
    if (seen_busy) {
      // As find_idle_gaps: the gap began half-way from the busy sample before.
      if (!open_gap) open_gap = GapRecord{t - (t - prev_util_ns) / 2, 0};
      open_gap->duration_s += w_s;
    }
  } else {
    if (m.busy_samples++ == 0) m.first_busy_ns = t;
    m.last_busy_ns = t;
    m.idle_after_busy_s = 0;
    if (open_gap) {
      ++m.gaps;
      m.gap_total_s += open_gap->duration_s;
      keep_longest(m.longest, *open_gap);
      if (prev_gap_start_ns) add_period(m, static_cast<double>(open_gap->start_ns - *prev_gap_start_ns) / 1e9);
      prev_gap_start_ns = open_gap->start_ns;
      open_gap.reset();
    }
    seen_busy = true;
  }
  prev_util_ns = t;
}

void DetectorMinutesBuilder::State::on_power(std::int64_t t, double watts) {
  const TimedValue sample{t, watts};
  DetectorMinute& m = at(t);
  if (!m.energy.power_first) {
    m.energy.power_first = sample;
  } else if (power && t > power->time_ns && t - power->time_ns <= kEnergyPowerBridgeNs) {
    m.energy.power_joules += trapezoid_j(*power, sample);
  }
  m.energy.power_last = sample;
  power = sample;
}

void DetectorMinutesBuilder::State::on_counter(std::int64_t t, double joules) {
  DetectorMinute& m = at(t);
  if (!m.energy.counter_first) {
    m.energy.counter_first = TimedValue{t, joules};
  } else if (counter) {
    // A counter that went backwards was reset and has counted from zero since.
    m.energy.counter_increase_j += joules >= counter->value ? joules - counter->value : joules;
  }
  m.energy.counter_last = TimedValue{t, joules};
  counter = TimedValue{t, joules};
}

void DetectorMinutesBuilder::State::add_row(const DeviceSeries& piece, std::size_t i) {
  const std::int64_t t = piece.mono_ns[i];
  DetectorMinute& m = at(t);
  ++m.rows;
  m.last_row_ns = std::max(m.last_row_ns, t);
  const double util_percent = value_at(piece, DeviceMetric::GpuUtilPercent, i);
  if (!std::isnan(util_percent)) util.add(t, util_percent);
  if (const double v = value_at(piece, DeviceMetric::MemUsedBytes, i); !std::isnan(v)) memory.add(t, v);
  if (const double v = value_at(piece, DeviceMetric::PowerWatts, i); !std::isnan(v)) on_power(t, v);
  if (const double v = value_at(piece, DeviceMetric::EnergyJoules, i); !std::isnan(v)) {
    // The counter was read slightly before the tick that carries it.
    const double age_s = value_at(piece, DeviceMetric::SlowReadAgeSeconds, i);
    on_counter(std::isnan(age_s) ? t : t - std::llround(age_s * 1e9), v);
  }
  const double gen = value_at(piece, DeviceMetric::PcieLinkGen, i);
  const double width = value_at(piece, DeviceMetric::PcieLinkWidth, i);
  if (!std::isnan(gen) && !std::isnan(width)) link.add(t, LinkRow{static_cast<int>(gen), static_cast<int>(width), util_percent});
}

DetectorMinutesBuilder::DetectorMinutesBuilder(std::int64_t start_mono_ns, DetectorCaps caps, Emit emit)
    : state_(std::make_unique<State>(start_mono_ns, caps, std::move(emit))) {}
DetectorMinutesBuilder::DetectorMinutesBuilder(std::int64_t start_mono_ns, DetectorCaps caps)
    : DetectorMinutesBuilder(start_mono_ns, caps, nullptr) {}
DetectorMinutesBuilder::~DetectorMinutesBuilder() = default;
DetectorMinutesBuilder::DetectorMinutesBuilder(DetectorMinutesBuilder&&) noexcept = default;
DetectorMinutesBuilder& DetectorMinutesBuilder::operator=(DetectorMinutesBuilder&&) noexcept = default;

void DetectorMinutesBuilder::add(const DeviceSeries& piece) {
  if (piece.values.size() < kDeviceMetricCount) return;
  for (std::size_t i = 0; i < piece.mono_ns.size(); ++i) state_->add_row(piece, i);
  if (!piece.mono_ns.empty()) state_->emit_settled(piece.mono_ns.back());
}

std::vector<DetectorMinute> DetectorMinutesBuilder::finish() {
  state_->util.finish();
  state_->memory.finish();
  state_->link.finish();
  for (DetectorMinute& m : state_->minutes) state_->emit(std::move(m));
  state_->minutes.clear();
  return std::move(state_->kept);
}

}  // namespace gpuwatch
