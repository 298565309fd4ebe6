// A run as the program holds it in memory: what was recorded about it and
// its samples as columns. The store reads and writes it; analysis and render
// work on it without knowing where it came from.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

enum class RunStatus { Recording, Finished, Interrupted };
std::string_view to_string(RunStatus s);

// The distributed job a run belongs to and the recorder's place in it
// (process/job_environment.h): from `record --job`, torchelastic's or
// Slurm's environment. Every field is absent for a run on its own.
struct JobInfo {
  std::string id;                  // Slurm's "77" or "77_3" (array task), a torchelastic run id, --job
  std::string source;              // "flag", "torchelastic" or "slurm"; empty with no id
  std::optional<int> rank;         // global rank: RANK, else SLURM_PROCID
  std::optional<int> local_rank;   // LOCAL_RANK, else SLURM_LOCALID
  std::optional<int> world_size;   // WORLD_SIZE, else SLURM_NTASKS
  std::optional<int> node_rank;    // GROUP_RANK or NODE_RANK, else SLURM_NODEID
  std::optional<int> node_count;   // SLURM_JOB_NUM_NODES (SLURM_NNODES)
  [[nodiscard]] bool empty() const {
    return id.empty() && !rank && !local_rank && !world_size && !node_rank && !node_count;
  }
  bool operator==(const JobInfo&) const = default;
};

struct RunInfo {
  std::int64_t row_id = 0;          // internal key
  std::string id;                   // public id: 12 lowercase hex characters
  std::string name;
  std::vector<std::string> command; // argv; empty for --pid / no command
  std::string cwd;
  std::string host;
  JobInfo job;
  std::int64_t start_wall_ns = 0;
  std::int64_t start_mono_ns = 0;
  std::optional<std::int64_t> end_wall_ns;
  std::optional<int> exit_code;
  std::optional<int> exit_signal;
  double interval_s = 0.5;
  // How often slow metrics (temperatures, clocks) were read: the sampler's
  // max(interval, 1 s), or a bench's own; 0 where not stored (runs recorded
  // before schema 4, imported files).
  double slow_interval_s = 0;
  // slow_interval_s, or the sampler's rule where it is unknown.
  [[nodiscard]] double slow_interval_or_default_s() const {
    return slow_interval_s > 0 ? slow_interval_s : std::max(interval_s, 1.0);
  }
  std::string version;
  RunStatus status = RunStatus::Recording;
  std::int64_t recorder_pid = 0;
  std::string recorder_boot_id;     // with the pid, tells whether the recorder still lives
  // The recorder's start time (clock ticks since boot, /proc/PID/stat field
  // 22): tells the recorder from a process that got its pid after it died.
  std::optional<std::uint64_t> recorder_start_ticks;
  std::optional<std::uint32_t> attached_pid;  // record --pid
  std::string end_reason;           // "exited", "signal", "interrupted", "stopped"
  JitterStats jitter;
  // Wall time of the recorder's last commit (set by the store): how fresh a
  // recording run's data is; for an interrupted run, about when it died.
  std::int64_t heartbeat_wall_ns = 0;
};

struct ProcessRecord {
  int device_index = 0;
  std::uint32_t pid = 0;
  std::string name;
  std::int64_t first_seen_wall_ns = 0;
  std::int64_t last_seen_wall_ns = 0;
  std::optional<std::uint64_t> max_used_memory_bytes;
  // Its GPU use as the driver gave it (NVML's per-process SM share, the DRM
  // clients' busiest engine for AMD and Intel), over the process lists that
  // had a value; none where the driver gives none (ROCm's KFD processes).
  std::optional<double> max_gpu_percent;
  double gpu_percent_sum = 0;
  std::int64_t gpu_percent_reads = 0;
  ProcessAttribution attribution;  // its owner, as last seen
  [[nodiscard]] std::optional<double> mean_gpu_percent() const {
    if (gpu_percent_reads <= 0) return std::nullopt;
    return gpu_percent_sum / static_cast<double>(gpu_percent_reads);
  }
};

// Column-oriented view of one device's samples, for analysis.
struct DeviceSeries {
  DeviceInfo info;
  std::vector<std::int64_t> mono_ns;
  std::vector<std::int64_t> wall_ns;  // as long as mono_ns, or empty where not loaded (DeviceColumns)
  // values[metric][i]; NaN where absent.
  std::vector<std::vector<double>> values;  // kDeviceMetricCount columns
  std::optional<std::int64_t> lost_at_wall_ns;
};

struct HostSeries {
  std::vector<std::int64_t> mono_ns;
  std::vector<std::int64_t> wall_ns;
  std::vector<std::vector<double>> values;      // kHostMetricCount columns
  std::vector<std::vector<double>> core_percent;  // [core][i]
};

struct RunData {
  RunInfo run;
  std::vector<DeviceSeries> devices;
  HostSeries host;
  std::vector<ProcessRecord> processes;
  std::vector<Event> events;
};

// `run` with a series of every column, and no rows, for each of `devices`:
// what append_sample() fills (the live advisor's window, its peak history).
RunData run_without_samples(const RunInfo& run, const std::vector<DeviceInfo>& devices);

// One row of a series back as a sample (core/run.cpp).
DeviceSample device_sample_at(const DeviceSeries& series, std::size_t i);
HostSample host_sample_at(const HostSeries& series, std::size_t i);
// Appends a sample as a row of its series: the device series with the
// sample's index (a sample of a device `data` does not list is dropped), or
// the host series. Series must have their full set of columns.
void append_sample(RunData& data, const DeviceSample& sample);
void append_sample(RunData& data, const HostSample& sample);
// Removes the samples before `mono_ns` from every series (events stay).
void drop_samples_before(RunData& data, std::int64_t mono_ns);
// Removes the samples after `mono_ns`.
void drop_samples_after(RunData& data, std::int64_t mono_ns);

}  // namespace gpuwatch
