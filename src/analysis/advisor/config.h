// The advisor's thresholds, and the small file they are read from:
//
//   # comment
//   window_s = 60
//   model_size = large
//
// Defaults are the seeds' numbers (002: the memory matrix, 004: low
// utilization under 30 %). One table in config.cpp describes every key; the
// parser, the range checks and format_advisor_config() all read it.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuwatch {

enum class ModelSize { Auto, Small, Large };
std::string_view to_string(ModelSize size);  // "auto", "small", "large"

struct AdvisorConfig {
  double window_s = 60;   // the sliding window the rules look at
  double warmup_s = 60;   // no memory or utilization verdict before the run is this old
  ModelSize model_size = ModelSize::Auto;  // auto: from the model_params annotation
  double large_model_params = 25e6;        // at least this many parameters is "large" (roughly)

  // Seed 002's matrix, on the window's p95 of memory used / total.
  double memory_low_percent = 50;   // below: the batch is too small, try ~2x
  double memory_good_percent = 70;  // low..good: optionally ~1.5x (large models)
  double memory_high_percent = 90;  // above: near out-of-memory

  // Seed 004: utilization below util_low_percent, for most of the window.
  double util_low_percent = 30;
  double util_low_share_percent = 60;  // share of the window's time below the threshold
  int input_idle_gaps = 3;             // this many idle gaps in the window: input-bound
  double input_tree_cpu_percent = 90;  // the process tree's CPU, % of one core
  double input_read_mib_per_s = 100;   // the process tree's storage reads
  double host_cpu_percent = 90;        // all cores: host-bound
  // The client's measured data wait (core/step_timing.h): direct evidence.
  double data_wait_warning_percent = 10;   // the loop waits above this % of each step: input-bound
  double data_wait_critical_percent = 20;  // ... above this: critical
  int data_wait_min_steps = 20;            // timed steps the window needs before the share counts

  // Leaks: per completed epoch, else the window's trend.
  int leak_min_epochs = 3;                // epochs in a row whose peaks grow
  double leak_epoch_growth_mib = 64;      // each by more than this
  double leak_total_growth_percent = 2;   // and together by more than this % of the device memory
  double growing_min_percent = 2;         // window growth, % of the device memory
  double growing_min_mib_per_min = 256;   // and its trend
  double drop_min_percent = 5;            // a drop this large, % of the device memory

  double throttle_power_percent = 20;    // of the sampled time
  double throttle_thermal_percent = 5;
  double imbalance_cv_percent = 20;      // CV of per-GPU mean utilization (seed's "poor" band)
  double straggler_gap_percent = 20;     // one GPU this many points from the others' mean
  double pcie_degraded_percent = 50;     // of the time the GPU is busy
  double pcie_min_busy_s = 10;

  // SM-level counters (GPM): launch-bound and tensor cores left idle.
  double launch_bound_util_percent = 10;      // utilization at least this (window mean)...
  double launch_bound_sm_share_percent = 25;  // ... with SM active below this % of it
  double tensor_idle_sm_active_percent = 50;  // SMs this busy...
  double tensor_idle_fp32_percent = 10;       // ... the FP32 pipes at least this...
  double tensor_idle_max_percent = 1;         // ... and the tensor cores below this

  // Distributed jobs (rules_distributed.cpp): a GPU waiting in a collective
  // reads utilization ~100 % with its SMs ~20 % active (H200, NCCL).
  double collective_wait_util_percent = 90;  // utilization at least this...
  // ... with the SMs active less than this % of it (a balanced ResNet-50 DDP
  // step on 2 x H200: 60-67 %; ranks waiting for a peer: 24 % and 43 %)...
  double collective_wait_sm_share_percent = 50;
  // ... and a peer less busy by straggler_gap_percent, or one as busy whose
  // SMs are active at least this % more (3x the batch on one rank: 87 % against 43 %).
  double collective_wait_peer_sm_excess_percent = 50;
  double link_silent_mib_per_s = 64;         // NVLink (and PCIe) tx + rx below this: silent
  double hang_after_s = 60;                  // no progress this long: job.hung
};

// Seconds of samples the advisor needs: the window, or the hang rule's
// stretch and a margin when that is longer (the loaders read this much and
// give the rest of the rules the last window_s of it).
double advisor_span_s(const AdvisorConfig& config);

class AdvisorConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Keys not in the text keep their defaults. Throws AdvisorConfigError with
// "line N: ..." on an unknown or repeated key, a value that is not a number
// (or not auto/small/large for model_size), or one out of range.
AdvisorConfig parse_advisor_config(std::string_view text);

// `config` as a file parse_advisor_config() reads back, every key with a
// comment saying what it is: `--print-advisor-config`, and docs/advisor.md.
std::string format_advisor_config(const AdvisorConfig& config = {});

}  // namespace gpuwatch
