#include "import/run_builder.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "import/plausible.h"

namespace gpuwatch {

namespace {

// ~31 years, far beyond kMaxRunSeconds: keeps every difference of monotonic
// times within int64 whatever the timestamps say.
constexpr std::int64_t kMaxMonoNs = 1'000'000'000'000'000'000;

// The value, or NaN (counted in `out_of_range`) when it lies outside `range`.
double checked(double v, const ValueRange& range, std::size_t& out_of_range) {
  if (std::isnan(v) || range.contains(v)) return v;
  ++out_of_range;
  return kNaN;
}

template <typename T>
void keep_rows(std::vector<T>& column, const std::vector<bool>& keep_row) {
  std::size_t out = 0;
  for (std::size_t r = 0; r < column.size(); ++r) {
    if (!keep_row[r]) continue;
    if (out != r) column[out] = std::move(column[r]);  // a string moved onto itself would be emptied
    ++out;
  }
  column.resize(out);
}

std::int64_t median(std::vector<std::int64_t> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// Both in [0, kMaxMonoNs].
std::int64_t capped_add(std::int64_t a, std::int64_t b) { return a > kMaxMonoNs - b ? kMaxMonoNs : a + b; }

// Rows by time, file order among equal times (files are nearly always in order).
std::vector<std::size_t> rows_by_time(const std::vector<std::size_t>& time, const std::vector<std::int64_t>& mono) {
  std::vector<std::size_t> order(time.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return mono[time[a]] < mono[time[b]]; });
  return order;
}

bool identity(const std::vector<std::size_t>& order) {
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] != i) return false;
  }
  return true;
}

// The column in `order`; moved out when that is its own order (files nearly
// always are), so that the run does not hold every value twice.
std::vector<double> reordered(std::vector<double>& column, const std::vector<std::size_t>& order, bool in_order) {
  if (in_order && column.size() == order.size()) {
    column.shrink_to_fit();  // what push_back reserved beyond the end
    return std::move(column);
  }
  std::vector<double> out;
  out.reserve(order.size());
  for (const std::size_t r : order) out.push_back(r < column.size() ? column[r] : kNaN);
  return out;
}

bool has_value(const std::vector<double>& column) {
  return std::any_of(column.begin(), column.end(), [](double v) { return !std::isnan(v); });
}

// Median gap between distinct consecutive times, in seconds.
std::optional<double> median_interval_s(const std::vector<std::int64_t>& mono) {
  std::vector<std::int64_t> gaps;
  for (std::size_t i = 1; i < mono.size(); ++i) {
    if (mono[i] > mono[i - 1]) gaps.push_back(mono[i] - mono[i - 1]);
  }
  if (gaps.empty()) return std::nullopt;
  return std::round(static_cast<double>(median(std::move(gaps))) / 1e3) / 1e6;  // to the microsecond
}

}  // namespace

std::size_t RunBuilder::add_time(std::int64_t wall_ns, std::optional<double> elapsed_s) {
  if (elapsed_s && !(*elapsed_s >= 0 && *elapsed_s <= kMaxRunSeconds)) {
    elapsed_s.reset();
    ++elapsed_out_of_range_;
  }
  times_.push_back({wall_ns, elapsed_s});
  return times_.size() - 1;
}

void RunBuilder::add_device_sample(std::size_t time, int gpu_index, const DeviceValues& values) {
  DeviceColumns& d = devices_[gpu_index];
  d.time.push_back(time);
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    const auto metric = static_cast<DeviceMetric>(m);
    d.values[m].push_back(checked(values.value_or_nan(metric), plausible_range(metric), device_out_of_range_[m]));
  }
}

void RunBuilder::describe_device(int gpu_index, std::string_view name, std::string_view vendor) {
  DeviceColumns& d = devices_[gpu_index];
  if (d.name.empty()) d.name = name;
  if (d.vendor.empty()) d.vendor = vendor;
}

void RunBuilder::add_host_sample(std::size_t time, const HostValues& values, const std::vector<double>& core_percent) {
  const std::size_t row = host_.time.size();
  host_.time.push_back(time);
  for (std::size_t m = 0; m < kHostMetricCount; ++m) {
    const auto metric = static_cast<HostMetric>(m);
    host_.values[m].push_back(checked(values.value_or_nan(metric), plausible_range(metric), host_out_of_range_[m]));
  }
  if (core_percent.size() > host_.core_percent.size()) {
    host_.core_percent.resize(core_percent.size(), std::vector<double>(row, kNaN));
  }
  for (std::size_t c = 0; c < host_.core_percent.size(); ++c) {
    host_.core_percent[c].push_back(
        c < core_percent.size() ? checked(core_percent[c], kCorePercentRange, core_out_of_range_) : kNaN);
  }
}

void RunBuilder::add_event(std::size_t time, std::optional<int> device_index, std::string kind, std::string message) {
  events_.push_back({time, device_index, std::move(kind), std::move(message)});
}

void RunBuilder::absent_when_always_zero(DeviceMetric metric) { zero_means_absent_.push_back(metric); }

std::size_t RunBuilder::device_sample_count() const {
  std::size_t n = 0;
  for (const auto& [index, d] : devices_) n += d.time.size();
  return n;
}

void RunBuilder::drop_implausible_times(ImportNotes& notes) {
  if (times_.empty()) return;
  const bool all_elapsed =
      std::all_of(times_.begin(), times_.end(), [](const TimePoint& t) { return t.elapsed_s.has_value(); });
  // Where each point says the run started, or its own wall time.
  std::vector<std::int64_t> at;
  at.reserve(times_.size());
  for (const TimePoint& t : times_) {
    at.push_back(all_elapsed ? t.wall_ns - std::llround(*t.elapsed_s * 1e9) : t.wall_ns);
  }
  const std::int64_t middle = median(at);
  const std::int64_t tolerance =
      all_elapsed ? kMaxClockDisagreementNs : static_cast<std::int64_t>(kMaxRunSeconds * 1e9);
  std::vector<bool> keep(times_.size());
  for (std::size_t i = 0; i < at.size(); ++i) {
    // Both within [-1e9 s, 7.3e9 s] of the epoch: the difference fits.
    keep[i] = std::llabs(at[i] - middle) <= tolerance;
  }
  drop_times(keep, all_elapsed ? kClockDisagreement : "with a timestamp more than 366 days from the run's median time",
             notes);
}

void RunBuilder::drop_times(const std::vector<bool>& keep, std::string_view reason, ImportNotes& notes) {
  const auto dropped = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), false));
  if (dropped == 0) return;
  notes.unread(reason, dropped);
  std::vector<std::size_t> renumbered(times_.size());
  std::size_t next = 0;
  for (std::size_t i = 0; i < times_.size(); ++i) renumbered[i] = keep[i] ? next++ : 0;
  // Rows and events point at time points: keep theirs, renumbered.
  auto keep_table = [&](std::vector<std::size_t>& time, auto& columns) {
    std::vector<bool> keep_row(time.size());
    for (std::size_t r = 0; r < time.size(); ++r) keep_row[r] = keep[time[r]];
    for (auto& column : columns) keep_rows(column, keep_row);
    keep_rows(time, keep_row);
    for (std::size_t& t : time) t = renumbered[t];
  };
  for (auto& [index, d] : devices_) keep_table(d.time, d.values);
  // A GPU whose every row went is not in the run: nothing of it was read.
  std::erase_if(devices_, [](const auto& entry) { return entry.second.time.empty(); });
  std::vector<std::size_t> host_time = host_.time;
  keep_table(host_time, host_.core_percent);
  keep_table(host_.time, host_.values);
  std::vector<bool> keep_event(events_.size());
  for (std::size_t e = 0; e < events_.size(); ++e) keep_event[e] = keep[events_[e].time];
  keep_rows(events_, keep_event);
  for (PendingEvent& e : events_) e.time = renumbered[e.time];
  keep_rows(times_, keep);
}

void RunBuilder::warn_out_of_range(ImportNotes& notes) const {
  auto warn = [&notes](std::size_t n, std::string_view name, std::string_view range) {
    if (n) notes.warn(fmt::format("{} out of range for {} ({}): taken as absent", counted(n, "value was", "values were"), name, range));
  };
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    warn(device_out_of_range_[m], kDeviceMetrics[m].name, plausible_range(static_cast<DeviceMetric>(m)).shown);
  }
  for (std::size_t m = 0; m < kHostMetricCount; ++m) {
    warn(host_out_of_range_[m], fmt::format("host {}", kHostMetrics[m].name),
         plausible_range(static_cast<HostMetric>(m)).shown);
  }
  warn(core_out_of_range_, "host core_percent", kCorePercentRange.shown);
  if (elapsed_out_of_range_) {
    notes.warn(fmt::format("{} negative or beyond 366 days: ignored",
                           counted(elapsed_out_of_range_, "elapsed-seconds value was", "elapsed-seconds values were")));
  }
}

std::vector<std::int64_t> RunBuilder::monotonic_times(ImportNotes& notes) const {
  std::vector<std::int64_t> mono(times_.size(), 0);
  const auto has_elapsed = [](const TimePoint& t) { return t.elapsed_s.has_value(); };
  if (!times_.empty() && std::all_of(times_.begin(), times_.end(), has_elapsed)) {
    for (std::size_t i = 0; i < times_.size(); ++i) mono[i] = std::llround(*times_[i].elapsed_s * 1e9);
    return mono;
  }
  if (std::any_of(times_.begin(), times_.end(), has_elapsed)) {
    notes.warn("some samples have no elapsed seconds, so all times come from the timestamps");
  }
  // Importers keep wall times within years 1970..2200, so differences fit.
  std::vector<std::int64_t> gaps;
  for (std::size_t i = 1; i < times_.size(); ++i) {
    if (times_[i].wall_ns > times_[i - 1].wall_ns) gaps.push_back(times_[i].wall_ns - times_[i - 1].wall_ns);
  }
  const std::int64_t step = gaps.empty() ? 0 : median(std::move(gaps));
  std::size_t backwards = 0;
  for (std::size_t i = 1; i < times_.size(); ++i) {
    std::int64_t gap = times_[i].wall_ns - times_[i - 1].wall_ns;
    if (gap < 0) {
      ++backwards;
      gap = step;
    }
    mono[i] = capped_add(mono[i - 1], std::min(gap, kMaxMonoNs));
  }
  if (backwards) {
    notes.warn(fmt::format("timestamps went backwards {} time{} (a clock or daylight-saving change?); each such "
                           "step counts as one median interval ({} s)",
                           backwards, backwards == 1 ? "" : "s", static_cast<double>(step) / 1e9));
  }
  return mono;
}

// Every timestamp lies within kMaxRunSeconds of the median one, yet a file
// whose clock jumps back and forth by months adds up each forward jump (and
// each backward one counts as a median step): its tail would make a run
// longer than any run can be, and its timestamps would disagree with the
// run's clock by months. Exported (elapsed_s from monotonic time) and
// imported again, such a run must come back whole, so it must pass the rule
// that files with elapsed seconds pass: each sample's wall - monotonic
// within a day of their median. The median moves as samples go: repeated
// until it holds for every sample kept.
void RunBuilder::drop_inconsistent_times(std::vector<std::int64_t>& mono, ImportNotes& notes) {
  const auto longest_ns = static_cast<std::int64_t>(kMaxRunSeconds * 1e9);
  std::vector<bool> keep(mono.size());
  for (std::size_t i = 0; i < mono.size(); ++i) keep[i] = mono[i] <= longest_ns;
  drop_times(keep, "more than 366 days after the first sample (timestamps that jump back and forth)", notes);
  keep_rows(mono, keep);
  for (;;) {
    std::vector<std::int64_t> offsets(times_.size());
    for (std::size_t i = 0; i < times_.size(); ++i) offsets[i] = times_[i].wall_ns - mono[i];
    if (offsets.empty()) return;
    const std::int64_t middle = median(offsets);
    keep.assign(offsets.size(), true);
    bool all = true;
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      // Wall times within years 1970..2200 and monotonic ones within a year: the difference fits.
      keep[i] = std::llabs(offsets[i] - middle) <= kMaxClockDisagreementNs;
      all = all && keep[i];
    }
    if (all) return;
    drop_times(keep, "whose timestamp disagrees with the run's clock by more than a day", notes);
    keep_rows(mono, keep);
  }
}

RunData RunBuilder::build(const std::string& name, ImportNotes& notes) {
  warn_out_of_range(notes);
  std::vector<std::int64_t> mono = monotonic_times(notes);
  drop_inconsistent_times(mono, notes);
  RunData data;
  RunInfo& run = data.run;
  run.name = name;
  run.status = RunStatus::Finished;
  run.end_reason = "imported";
  run.start_mono_ns = 0;
  if (!times_.empty()) {
    std::vector<std::int64_t> offsets;
    offsets.reserve(times_.size());
    for (std::size_t i = 0; i < times_.size(); ++i) offsets.push_back(times_[i].wall_ns - mono[i]);
    // The median: robust to a clock step in the middle of a file.
    run.start_wall_ns = median(std::move(offsets));
    run.end_wall_ns = run.start_wall_ns + *std::max_element(mono.begin(), mono.end());
  }

  for (auto& [index, cols] : devices_) {
    DeviceSeries s;
    s.info.index = index;
    s.info.backend = "import";
    s.info.name = cols.name;
    s.info.vendor = cols.vendor;
    const std::vector<std::size_t> order = rows_by_time(cols.time, mono);
    const bool in_order = identity(order);
    for (const std::size_t r : order) {
      s.mono_ns.push_back(mono[cols.time[r]]);
      s.wall_ns.push_back(times_[cols.time[r]].wall_ns);
    }
    s.values.resize(kDeviceMetricCount);
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      const auto metric = static_cast<DeviceMetric>(m);
      std::vector<double> column = reordered(cols.values[m], order, in_order);
      const bool never_read =
          std::find(zero_means_absent_.begin(), zero_means_absent_.end(), metric) != zero_means_absent_.end() &&
          std::all_of(column.begin(), column.end(), [](double v) { return std::isnan(v) || v == 0; });
      if (never_read) std::fill(column.begin(), column.end(), kNaN);
      if (has_value(column)) {
        s.info.supported.push_back(metric);
        if (info(metric).cadence == Cadence::Static || metric == DeviceMetric::MemTotalBytes) {
          const auto last = std::find_if(column.rbegin(), column.rend(), [](double v) { return !std::isnan(v); });
          s.info.static_values.set(metric, *last);
        }
      }
      s.values[m] = std::move(column);
    }
    data.devices.push_back(std::move(s));
  }

  if (!host_.time.empty()) {
    const std::vector<std::size_t> order = rows_by_time(host_.time, mono);
    const bool in_order = identity(order);
    HostSeries& h = data.host;
    for (const std::size_t r : order) {
      h.mono_ns.push_back(mono[host_.time[r]]);
      h.wall_ns.push_back(times_[host_.time[r]].wall_ns);
    }
    for (auto& column : host_.values) h.values.push_back(reordered(column, order, in_order));
    for (auto& column : host_.core_percent) h.core_percent.push_back(reordered(column, order, in_order));
  } else {
    data.host.values.resize(kHostMetricCount);
  }

  std::vector<std::size_t> event_order(events_.size());
  std::iota(event_order.begin(), event_order.end(), std::size_t{0});
  std::stable_sort(event_order.begin(), event_order.end(), [&](std::size_t a, std::size_t b) {
    return mono[events_[a].time] < mono[events_[b].time];
  });
  for (const std::size_t e : event_order) {
    const PendingEvent& p = events_[e];
    data.events.push_back(Event{{mono[p.time], times_[p.time].wall_ns}, p.device_index, p.kind, p.message});
  }

  std::optional<double> interval;
  for (const DeviceSeries& s : data.devices) {
    if ((interval = median_interval_s(s.mono_ns))) break;
  }
  if (!interval) interval = median_interval_s(data.host.mono_ns);
  // One sample says nothing of the period; 1 s is what gputop.py used.
  run.interval_s = interval.value_or(1.0);
  data.processes = std::move(processes_);
  return data;
}

}  // namespace gpuwatch
