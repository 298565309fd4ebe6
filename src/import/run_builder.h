// Collects the samples an importer reads, in file order, and turns them into
// a RunData that looks like a stored run. The importers only say what each
// record holds; times, columns and the run's facts are decided here, once.
//
// Times: every record of a file refers to one time point (a multi-GPU tick
// is one point for all its GPUs). A point has the wall time the file wrote
// and, where the file has it, the seconds since the run started. Monotonic
// time comes from those seconds when every point has them (they survive
// daylight-saving jumps of local timestamps); otherwise from the differences
// of wall times in file order, where a step backwards counts as one median
// interval. The run starts at monotonic 0.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics.h"
#include "import/import_notes.h"
#include "store/store.h"

namespace gpuwatch {

class RunBuilder {
 public:
  // A new time point; elapsed_s outside [0, kMaxRunSeconds] or not finite is
  // ignored (and counted).
  std::size_t add_time(std::int64_t wall_ns, std::optional<double> elapsed_s);
  // Values outside their metric's plausible range (plausible.h) become
  // absent and are counted per metric.
  void add_device_sample(std::size_t time, int gpu_index, const DeviceValues& values);
  // The first non-empty name and vendor of a GPU win.
  void describe_device(int gpu_index, std::string_view name, std::string_view vendor);
  void add_host_sample(std::size_t time, const HostValues& values, const std::vector<double>& core_percent);
  void add_event(std::size_t time, std::optional<int> device_index, std::string kind, std::string message);
  void add_process(ProcessRecord process) { processes_.push_back(std::move(process)); }
  // For metrics that a file writes as 0 when it could not read them
  // (gputop.py's fan speed): all zeros on a GPU means never read.
  void absent_when_always_zero(DeviceMetric metric);

  [[nodiscard]] std::size_t time_count() const { return times_.size(); }
  // Replaces a time point's wall time (CSV rows: once every row is known).
  void set_wall(std::size_t time, std::int64_t wall_ns) { times_[time].wall_ns = wall_ns; }
  // Drops the time points whose keep[time] is false, with their samples and
  // events; each was one record read, now counted as dropped for `reason`.
  void drop_times(const std::vector<bool>& keep, std::string_view reason, ImportNotes& notes);
  // Drops the samples whose time cannot be right, each time point being one
  // record read: where every point has elapsed seconds, those whose
  // timestamp disagrees with the run's start plus their elapsed seconds by
  // more than kMaxClockDisagreementNs; otherwise those whose timestamp lies
  // more than kMaxRunSeconds from the median one. Call before build().
  void drop_implausible_times(ImportNotes& notes);

  [[nodiscard]] std::size_t device_sample_count() const;
  [[nodiscard]] std::size_t host_sample_count() const { return host_.time.size(); }

  // The run: status finished, end reason "imported", named `name`. Moves
  // the columns out: call once, last.
  [[nodiscard]] RunData build(const std::string& name, ImportNotes& notes);

 private:
  struct TimePoint {
    std::int64_t wall_ns;
    std::optional<double> elapsed_s;
  };
  // Columns as they arrive, with the time point of each row.
  struct DeviceColumns {
    std::string name;
    std::string vendor;
    std::vector<std::size_t> time;
    std::vector<std::vector<double>> values = std::vector<std::vector<double>>(kDeviceMetricCount);
  };
  struct HostColumns {
    std::vector<std::size_t> time;
    std::vector<std::vector<double>> values = std::vector<std::vector<double>>(kHostMetricCount);
    std::vector<std::vector<double>> core_percent;  // [core][row]
  };
  struct PendingEvent {
    std::size_t time;
    std::optional<int> device_index;
    std::string kind;
    std::string message;
  };

  [[nodiscard]] std::vector<std::int64_t> monotonic_times(ImportNotes& notes) const;
  // Drops the time points (and their entries of `mono`) more than
  // kMaxRunSeconds after the first once clock steps are undone, then those
  // whose wall time disagrees with the run's clock by more than a day.
  void drop_inconsistent_times(std::vector<std::int64_t>& mono, ImportNotes& notes);
  void warn_out_of_range(ImportNotes& notes) const;

  std::vector<TimePoint> times_;
  std::map<int, DeviceColumns> devices_;
  HostColumns host_;
  std::vector<PendingEvent> events_;
  std::vector<ProcessRecord> processes_;
  std::vector<DeviceMetric> zero_means_absent_;
  // Values taken as absent because they were out of range.
  std::array<std::size_t, kDeviceMetricCount> device_out_of_range_{};
  std::array<std::size_t, kHostMetricCount> host_out_of_range_{};
  std::size_t core_out_of_range_ = 0;
  std::size_t elapsed_out_of_range_ = 0;
};

}  // namespace gpuwatch
