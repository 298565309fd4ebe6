// `gpuwatch record`: wraps a command (or attaches to a pid, or runs until
// Ctrl-C), samples GPUs and host while it runs, stores the run, explains it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/advisor/config.h"
#include "analysis/advisor/underuse_rules.h"
#include "annotate/annotation_socket.h"
#include "base/system_paths.h"
#include "record/hang_action.h"
#include "process/visible_devices.h"
#include "store/store.h"

namespace gpuwatch {

struct RecordOptions {
  std::vector<std::string> command;   // empty with attach_pid or "until Ctrl-C"
  std::optional<pid_t> attach_pid;
  std::string name;
  // The job the run belongs to (process/job_environment.h): the environment's,
  // with --job's id over it.
  JobInfo job;
  std::string host;                   // --host; empty: this machine's name
  double interval_s = 0.5;
  std::vector<int> gpus;              // --gpus; empty: all, or those the visible-devices variables show
  // The environment's visible-devices variables (CUDA_VISIBLE_DEVICES and
  // the AMD and Intel ones): without --gpus, record watches the GPUs the
  // command can see (process/visible_devices.h).
  GpuVisibilityVariables visibility;
  // gpuwatch's environment (NAME=VALUE), which the command inherits, and
  // where the annotation socket goes: cli/ reads both.
  std::vector<std::string> environment;
  SocketPlace socket_place;
  bool status_line = false;
  std::vector<std::string> annotate_regex;  // patterns over the command's output lines
  bool advise = false;                      // print advisories as they change
  double check_interval_s = 10;
  AdvisorConfig advisor;
  std::optional<double> kill_on_underuse_after_s;  // --on-underuse kill --after S
  UnderuseRules underuse_rules;                     // --rules
  std::optional<HangAction> on_hang;                // --on-hang kill | signal=NAME
  double hang_kill_after_s = 0;                     // --on-hang kill --after S
  double status_interval_s = 10;
  std::optional<std::filesystem::path> output_dir;
  std::filesystem::path store_path;
  bool summary = true;                // print the report at the end
  bool full_report = false;           // the full report there, not the short summary
  bool generate_graphs = false;       // <stem>_plot.png beside the seed files (needs output_dir)
  // A run to compare with at the end (it is the baseline, A; this run is B),
  // loaded before the command starts so that a bad reference fails early.
  std::optional<RunData> compare_with;
  // Where /sys and /proc are read from (GPUWATCH_SYSFS_ROOT and the other
  // variables): the command line reads the environment, not the library.
  SystemPaths paths;
};

// gpuwatch's exit status when --on-underuse kill stopped the command: sysexits'
// EX_TEMPFAIL, "try again" (with a larger batch, more loader workers).
inline constexpr int kUnderuseExitCode = 75;
// ... when --on-hang kill stopped it: the next code, distinct from underuse
// (a hung job needs its stacks looked at, not a larger batch).
inline constexpr int kHangExitCode = 76;

// Returns the process exit status for gpuwatch: the command's exit code, or
// 128 + N if signal N killed it; 0 when attached or stopped by Ctrl-C;
// kUnderuseExitCode when --on-underuse kill stopped it; kHangExitCode when
// --on-hang kill did.
// Problems before the command starts throw std::runtime_error.
int run_record(const RecordOptions& options);

}  // namespace gpuwatch
