// Collects the samples an importer reads, in file order, and turns them into
// a run as the store holds them. The importers only say what each record
// holds; times, columns and the run's facts are decided here, once.
//
// Times: every record of a file refers to one time point (a multi-GPU tick
// is one point for all its GPUs). A point has the wall time the file wrote
// and, where the file has it, the seconds since the run started; the rules
// that make the run's clock of them are TimeLine's (time_line.h).
//
// Memory: the points and the samples go to a SpillFile (a temporary file,
// or a string for text in memory) as they are read; what stays in memory is
// two bits per point and each GPU's name. The run is then handed to a
// RunSink one row at a time, each series in time order: into columns
// (build(), for commands that read a file as RUN) or into the store
// (write(), for `gpuwatch import`, which so needs the same memory for a
// file of any size).
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics.h"
#include "core/run.h"
#include "import/import_notes.h"
#include "import/spill.h"
#include "import/time_line.h"

namespace gpuwatch {

// How many rows a run brings, so that columns are allocated once.
struct RunShape {
  std::vector<std::size_t> device_rows;  // per GPU, in the order begin() lists them
  std::size_t host_rows = 0;
  std::size_t host_cores = 0;  // the most cores a host row has
};

// Where a finished import goes, a row at a time.
class RunSink {
 public:
  virtual ~RunSink() = default;
  // First, with the run's facts and its GPUs (index order).
  virtual void begin(RunInfo& run, const std::vector<DeviceInfo>& devices, const RunShape& shape) = 0;
  // The rows of each series (each GPU, the host, the events) in time order;
  // series interleave. Processes come in file order.
  virtual void device(const DeviceSample& sample) = 0;
  virtual void host(const HostSample& sample) = 0;
  virtual void event(const Event& event) = 0;
  virtual void process(const ProcessRecord& process) = 0;
};

class RunBuilder {
 public:
  // Spilled to memory: for text that is in memory already.
  RunBuilder();
  // Spilled to a temporary file in `spill_dir`.
  explicit RunBuilder(const std::filesystem::path& spill_dir);

  // A new time point; elapsed_s outside [0, kMaxRunSeconds] or not finite is
  // ignored (and counted).
  std::size_t add_time(std::int64_t wall_ns, std::optional<double> elapsed_s);
  // Values outside their metric's plausible range (plausible.h) become
  // absent and are counted per metric.
  void add_device_sample(std::size_t time, int gpu_index, const DeviceValues& values);
  // The first non-empty name and vendor of a GPU win.
  void describe_device(int gpu_index, std::string_view name, std::string_view vendor);
  void add_host_sample(std::size_t time, const HostValues& values, const std::vector<double>& core_percent);
  void add_event(std::size_t time, std::optional<int> device_index, std::string_view kind, std::string_view message);
  void add_process(const ProcessRecord& process);
  // For metrics that a file writes as 0 when it could not read them
  // (gputop.py's fan speed): all zeros on a GPU means never read.
  void absent_when_always_zero(DeviceMetric metric);

  // The time points, for rules of one format (CSV's wall times).
  [[nodiscard]] TimeLine& times() { return times_; }
  // Drops the samples whose time cannot be right (TimeLine::drop_implausible).
  // Call before build() or write().
  void drop_implausible_times(ImportNotes& notes) { times_.drop_implausible(notes); }

  // The run: status finished, end reason "imported", named `name`, into
  // `sink`. Call once, last.
  void write(const std::string& name, ImportNotes& notes, RunSink& sink);
  // The same as columns in memory.
  [[nodiscard]] RunData build(const std::string& name, ImportNotes& notes);

 private:
  struct DeviceFacts {
    std::string name;
    std::string vendor;
  };
  class Rows;  // run_writer.cpp
  using MetricSet = std::bitset<kDeviceMetricCount>;

  void warn_out_of_range(ImportNotes& notes) const;
  // The GPUs with rows kept, as the run lists them, and the run's shape.
  std::vector<DeviceInfo> device_infos(Rows& rows, RunShape& shape, std::map<int, MetricSet>& never_read);
  [[nodiscard]] RunInfo run_info(const std::string& name, Rows& rows, const std::vector<DeviceInfo>& devices);

  SpillFile spill_;  // rows, events and processes, in file order
  TimeLine times_;
  std::map<int, DeviceFacts> devices_;
  std::vector<DeviceMetric> zero_means_absent_;
  // Values taken as absent because they were out of range.
  std::array<std::size_t, kDeviceMetricCount> device_out_of_range_{};
  std::array<std::size_t, kHostMetricCount> host_out_of_range_{};
  std::size_t core_out_of_range_ = 0;
  std::size_t elapsed_out_of_range_ = 0;
};

}  // namespace gpuwatch
