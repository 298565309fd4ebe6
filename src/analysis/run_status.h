// `gpuwatch status`: a short verdict on a live or finished run, for a person
// or an agent polling it (seed 002): what the GPUs do now, how that moved
// since the last check, and the advisories.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/advisor/advisory.h"
#include "analysis/run_report.h"
#include "analysis/step_timing.h"

namespace gpuwatch {

// Time-weighted means over a window (absent when the window had no value).
struct GpuWindow {
  std::optional<double> util_percent;
  std::optional<double> mem_used_bytes;
  std::optional<double> mem_total_bytes;
  std::optional<double> power_watts;
  std::optional<double> temp_celsius;
  std::optional<double> temp_junction_celsius;  // cards with a junction sensor only
};

struct GpuStatus {
  int index = 0;
  std::string name;
  GpuWindow now;
  std::optional<GpuWindow> before;  // the reference window, when there is one
  bool job = true;                  // one of the job's GPUs (judged by the advisor)
};

struct HostWindow {
  std::optional<double> cpu_percent;
  std::optional<double> tree_cpu_percent;
  std::optional<double> tree_rss_bytes;
};

// The training's own progress at the end of a window (from annotations).
struct Progress {
  std::optional<std::int64_t> step;
  std::optional<std::string> epoch;
  std::optional<double> loss;
};

// The latest step, epoch and loss annotated at or before `end_mono_ns`
// (events in time order).
Progress progress_at(const std::vector<Event>& events, std::int64_t end_mono_ns);

struct RunStatusReport {
  RunInfo run;
  bool live = false;
  double age_s = 0;        // start to the end of the data
  double window_s = 0;     // what "now" covers
  std::optional<double> reference_end_ago_s;  // how long before the end the "before" window ended
  std::vector<GpuStatus> gpus;
  JobGpus job_gpus;  // which of them are the job's; Unknown for older runs
  HostWindow host_now;
  std::optional<HostWindow> host_before;
  Progress progress_now;
  Progress progress_before;
  std::optional<double> steps_per_second;  // between the two
  // The loop's own measurement of its wait for data (step_timing.h): over
  // the window (the messages from its start on) and over the whole run.
  std::optional<StepTiming> step_timing_now;
  std::optional<StepTiming> step_timing_run;
  std::vector<Advisory> advisories;
  std::string verdict;   // "ok", or the highest severity among the advisories
};

struct RunStatusInput {
  const RunReport& now;                 // build_report() over the window
  const RunReport* before = nullptr;    // over the reference window
  std::int64_t now_end_mono_ns = 0;
  std::optional<std::int64_t> before_end_mono_ns;
  const std::vector<Event>& events;     // the whole run's
  std::vector<Advisory> advisories;
  double age_s = 0;
  double window_s = 0;
  bool live = false;
};

RunStatusReport build_run_status(const RunStatusInput& in);

}  // namespace gpuwatch
