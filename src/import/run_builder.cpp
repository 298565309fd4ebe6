#include "import/run_builder.h"

#include <cmath>

#include <fmt/format.h>

#include "import/plausible.h"
#include "import/spilled_records.h"

namespace gpuwatch {

namespace {

// The value, or NaN (counted in `out_of_range`) when it lies outside `range`.
double checked(double v, const ValueRange& range, std::size_t& out_of_range) {
  if (std::isnan(v) || range.contains(v)) return v;
  ++out_of_range;
  return kNaN;
}

template <typename Metric, typename Values, std::size_t N>
Values checked_values(const Values& values, std::array<std::size_t, N>& out_of_range) {
  Values out;
  for (std::size_t m = 0; m < N; ++m) {
    const auto metric = static_cast<Metric>(m);
    const double v = checked(values.value_or_nan(metric), plausible_range(metric), out_of_range[m]);
    if (!std::isnan(v)) out.set(metric, v);
  }
  return out;
}

}  // namespace

RunBuilder::RunBuilder() : times_(SpillFile()) {}

RunBuilder::RunBuilder(const std::filesystem::path& spill_dir) : spill_(spill_dir), times_(SpillFile(spill_dir)) {}

std::size_t RunBuilder::add_time(std::int64_t wall_ns, std::optional<double> elapsed_s) {
  if (elapsed_s && !(*elapsed_s >= 0 && *elapsed_s <= kMaxRunSeconds)) {
    elapsed_s.reset();
    ++elapsed_out_of_range_;
  }
  return times_.add(wall_ns, elapsed_s);
}

void RunBuilder::add_device_sample(std::size_t time, int gpu_index, const DeviceValues& values) {
  spill_device_row(spill_, time, gpu_index, checked_values<DeviceMetric>(values, device_out_of_range_));
}

void RunBuilder::describe_device(int gpu_index, std::string_view name, std::string_view vendor) {
  DeviceFacts& d = devices_[gpu_index];
  if (d.name.empty()) d.name = name;
  if (d.vendor.empty()) d.vendor = vendor;
}

void RunBuilder::add_host_sample(std::size_t time, const HostValues& values, const std::vector<double>& core_percent) {
  std::vector<double> cores;
  cores.reserve(core_percent.size());
  for (const double c : core_percent) cores.push_back(checked(c, kCorePercentRange, core_out_of_range_));
  spill_host_row(spill_, time, checked_values<HostMetric>(values, host_out_of_range_), cores);
}

void RunBuilder::add_event(std::size_t time, std::optional<int> device_index, std::string_view kind,
                           std::string_view message) {
  spill_event(spill_, time, device_index.value_or(-1), kind, message);
}

void RunBuilder::add_process(const ProcessRecord& process) { spill_process(spill_, process); }

void RunBuilder::absent_when_always_zero(DeviceMetric metric) { zero_means_absent_.push_back(metric); }

void RunBuilder::warn_out_of_range(ImportNotes& notes) const {
  auto warn = [&notes](std::size_t n, std::string_view name, std::string_view range) {
    if (n) {
      notes.warn(fmt::format("{} out of range for {} ({}): taken as absent", counted(n, "value was", "values were"),
                             name, range));
    }
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

}  // namespace gpuwatch
