// Inside the advisor: what every rule family sees, and the families. Each
// family appends its advisories; advise() orders them.
#pragma once

#include <array>
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
  const DeviceSeries* series = nullptr;  // the window's samples; null if the caller had none (or `columns`)
  std::optional<double> total_bytes;     // the device's memory
  // Samples at the end of what is judged (when it ended, the last sample's
  // time): `series`, or with AdvisorInput::columns the hang span's.
  const DeviceSeries* end = nullptr;
  const DeviceColumns* columns = nullptr;  // AdvisorInput::columns
};

// The samples of one metric the rules judge a device by: the window's, or
// for a finished run judged from its columns, that column read now.
class JudgedSamples {
 public:
  JudgedSamples(const DeviceView& d, DeviceMetric metric);
  // Null when there are none to judge.
  [[nodiscard]] const DeviceSeries* get() const { return loaded_ ? &*loaded_ : series_; }

 private:
  const DeviceSeries* series_ = nullptr;
  std::optional<DeviceSeries> loaded_;
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
// util.collective_wait, the straggler's cause, job.hung; after utilization_rules
// (it names the cause of their balance.straggler, or adds the one the waits point at).
void distributed_rules(const Context& ctx, std::vector<Advisory>& out);

// Utilization well above the SMs' activity over the window (SM active from
// GPM): kernels too small to fill the GPU. Null without SM activity.
struct LaunchBound {
  double util_mean_percent = 0;
  double sm_active_mean_percent = 0;
  double window_s = 0;
};
std::optional<LaunchBound> launch_bound(const Context& ctx, const DeviceView& d);
// The same shape with other thresholds: utilization at least min_util_percent
// with the SMs active less than sm_share_percent of it.
std::optional<LaunchBound> sm_light(const Context& ctx, const DeviceView& d, double min_util_percent,
                                    double sm_share_percent);

// A GPU of a multi-GPU job waiting in a collective (NCCL spins: utilization
// ~100 %, SMs ~20 % active): launch-bound's shape at high utilization while
// a peer is clearly less busy (the rank it waits for), or while the links
// are silent and every peer has the same shape. Null otherwise; then
// util.launch_bound may hold.
// A GPU's links, each as its transmit and receive counters: what "the
// links are silent" reads (the larger of the two links' tx + rx), in
// util.collective_wait over the window and in job.hung sample by sample.
struct LinkCounters {
  DeviceMetric tx;
  DeviceMetric rx;
};
inline constexpr std::array<LinkCounters, 2> kLinkCounters{{
    {DeviceMetric::NvlinkTxBytesPerSec, DeviceMetric::NvlinkRxBytesPerSec},
    {DeviceMetric::PcieTxBytesPerSec, DeviceMetric::PcieRxBytesPerSec},
}};

// A GPU's typical utilization and SM activity over the window: medians, so
// that a window holding the job's start or end (a finished run's) keeps the
// shape of its steady part.
struct TypicalShape {
  double util_median_percent = 0;
  double sm_active_median_percent = 0;
  double window_s = 0;
};

struct CollectiveWait {
  TypicalShape shape;
  std::optional<int> waits_for;            // the least busy peer, when one stands out
  std::optional<double> peer_util_percent;  // its utilization
  // Its SM activity, when the wait shows in the SMs (a peer as busy with
  // more to compute: uneven shards) rather than in utilization.
  std::optional<double> peer_sm_percent;
  std::optional<double> link_bytes_per_s;   // NVLink and PCIe tx + rx, when read
};
std::optional<CollectiveWait> collective_wait(const Context& ctx, const DeviceView& d);

// job.hung (rules_hang.cpp): the job's GPUs in a collective with no
// progress for longer than hang_after_s, over AdvisorInput::hang_span.
void job_hung(const Context& ctx, std::vector<Advisory>& out);

// Seconds since the last process the driver listed on the GPU was seen,
// when that is long enough to call it gone; null when it is there, or the
// run has no process lists (the live window has none).
std::optional<double> process_gone_s(const Context& ctx, const DeviceView& d);

// balance.straggler for the GPU at `index`; cv_percent when the balance
// detector found it.
Advisory straggler_advisory(int index, double util_percent, double others_percent, std::size_t others,
                            std::optional<double> cv_percent);

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
