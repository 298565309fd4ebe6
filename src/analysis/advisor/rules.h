// Inside the advisor: what every rule family sees, and the families. Each
// family appends its advisories; advise() orders them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/advisor/advisor.h"
#include "analysis/step_timing.h"
#include "core/bytes.h"

namespace gpuwatch::advisor_rules {

struct DeviceView {
  const DeviceReport* report = nullptr;
  const DeviceSeries* series = nullptr;  // the window's samples; null if the caller had none
  std::optional<double> total_bytes;     // the device's memory
};

struct ModelVerdict {
  ModelSize size = ModelSize::Auto;  // Auto: unknown
  std::optional<double> params;      // from the model_params annotation
};

struct Context {
  const AdvisorInput& in;
  const AdvisorConfig& config;
  bool warmed_up = false;
  // The devices the run uses (see in_use() in advisor.cpp), in device order.
  std::vector<DeviceView> devices;
  ModelVerdict model;
  // Samples must cover at least this much of the window for a verdict on it.
  double min_coverage_s = 0;
  // The client's step timing over the window (core/step_timing.h), when it
  // covers at least data_wait_min_steps steps: the loop's own measurement of
  // its wait for data, which util.input_bound takes over the indirect signs.
  std::optional<StepTiming> step_timing;
};

void memory_rules(const Context& ctx, std::vector<Advisory>& out);       // matrix, leak, growing, drop
void utilization_rules(const Context& ctx, std::vector<Advisory>& out);  // util.*, balance.*
void hardware_rules(const Context& ctx, std::vector<Advisory>& out);     // throttle.*, pcie.degraded
void kernel_rules(const Context& ctx, std::vector<Advisory>& out);       // util.launch_bound, util.tensor_idle

// Utilization well above the SMs' activity over the window (SM active from
// GPM): kernels too small to fill the GPU. Null without SM activity.
struct LaunchBound {
  double util_mean_percent = 0;
  double sm_active_mean_percent = 0;
  double window_s = 0;
};
std::optional<LaunchBound> launch_bound(const Context& ctx, const DeviceView& d);

// The share of the window (percent) below util_low_percent when utilization
// is low in util.low's sense (low on average and most of the time); null
// otherwise. util.launch_bound asks it too, so a launch-bound job that low
// is underuse on GPM GPUs as util.low makes it elsewhere.
std::optional<double> sustained_low_share(const Context& ctx, const DeviceView& d);

// One metric's column of the window's samples; empty when absent.
std::span<const double> column(const DeviceSeries& series, DeviceMetric metric);

// Text pieces shared by the families.
std::string gib(double bytes);       // "12.3 GiB"
std::string percent(double value);   // "38 %"
std::string seconds(double value);   // "60 s", "1.5 s"

}  // namespace gpuwatch::advisor_rules
