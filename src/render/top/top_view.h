// What `gpuwatch top` shows, gathered in one value: a snapshot of the live
// window, the processes on the GPUs joined with what procfs says of them, and
// the view's own state (selection, sort, focus). The screen and the JSON
// snapshot are pure functions of it, so every layout is testable without a
// terminal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_status.h"
#include "core/sample.h"
#include "core/live_snapshot.h"
#include "core/process_attribution.h"

namespace gpuwatch {

// One process on one GPU, as the process table lists it.
struct TopProcess {
  std::uint32_t pid = 0;
  int gpu = 0;
  std::optional<std::uint64_t> gpu_memory_bytes;  // absent when the driver hides it
  std::optional<double> gpu_percent;              // where the driver gives it
  std::string kind;                               // "compute", "graphics", "mps"
  std::optional<std::uint32_t> uid;  // who may signal it
  std::optional<std::uint64_t> start_ticks;  // with pid, this process and not a later one
  std::string user;
  std::optional<double> cpu_percent;  // % of one core
  std::optional<std::uint64_t> rss_bytes;
  std::string command;
  ProcessAttribution attribution;   // its job, container, pod or unit
  bool other_pid_namespace = false;  // not in this /proc: of a PID namespace gpuwatch cannot see
};

enum class ProcessSort { GpuMemory, GpuPercent, CpuPercent, Pid };
std::string_view to_string(ProcessSort sort);
ProcessSort next(ProcessSort sort);
// Largest first, pid ascending to break ties (and for Pid itself); absent
// values last.
void sort_processes(std::vector<TopProcess>& processes, ProcessSort sort);

struct TopView {
  std::string hostname;
  std::int64_t now_mono_ns = 0;
  std::int64_t now_wall_ns = 0;
  double interval_s = 1.0;
  std::vector<DeviceInfo> devices;  // the watched GPUs, in the machine's order
  LiveSnapshot live;
  // Every process on the watched GPUs, sorted as `sort` says; `processes`
  // are those shown (show_processes(): the focused GPU's that match the
  // filter), which the selection and the kill key index.
  std::vector<TopProcess> all_processes;
  std::vector<TopProcess> processes;
  // Other users' processes whose GPU use cannot be read without root
  // (hidden_processes(const BackendSet&)): said under the table, so that
  // a short list is not taken for all there is.
  std::size_t hidden_processes = 0;
  ProcessSort sort = ProcessSort::GpuMemory;
  // One row per owner (Slurm job, container, pod, unit, user) instead of
  // one per process: the `o` key, `--group-by owner`.
  bool by_owner = false;
  std::size_t selected = 0;      // row in `processes`, or in their owner groups when by_owner
  std::optional<int> focus_gpu;  // one GPU shown alone, large, with its processes only
  // The `/` filter: processes whose pid, user, owner or command contain it
  // (case ignored); `editing_filter` while it is typed.
  std::string filter;
  bool editing_filter = false;
  bool paused = false;
  bool help = false;
  std::string message;                // one line at the bottom: a prompt, what a kill did
  std::vector<std::string> notes;     // why there is no GPU (no driver, ...), shown in place of panels
  // A gpuwatch record run beside the GPUs (top --run, or the store's
  // recording run); run_error says why it could not be read.
  std::optional<RunStatusReport> run;
  std::string run_error;
};

}  // namespace gpuwatch
