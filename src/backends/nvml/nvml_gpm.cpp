#include "backends/nvml/nvml_gpm.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "core/bytes.h"
#include "core/sample.h"

namespace gpuwatch {

namespace {

struct GpmMetricSource {
  unsigned id;          // nvmlGpmMetricId_t
  DeviceMetric metric;
  double to_stored;     // GPM's unit to the catalogue's
  bool percent;
};

constexpr double kMiBPerSecToBytes = 1024.0 * 1024.0;  // GPM's NVLink rates are MiB/s

constexpr GpmMetricSource kGpmSources[] = {
    {nvml::kGpmSmUtil, DeviceMetric::SmActivePercent, 1, true},
    {nvml::kGpmSmOccupancy, DeviceMetric::SmOccupancyPercent, 1, true},
    {nvml::kGpmAnyTensorUtil, DeviceMetric::TensorActivePercent, 1, true},
    {nvml::kGpmDramBwUtil, DeviceMetric::DramBwUtilPercent, 1, true},
    {nvml::kGpmFp64Util, DeviceMetric::Fp64ActivePercent, 1, true},
    {nvml::kGpmFp32Util, DeviceMetric::Fp32ActivePercent, 1, true},
    {nvml::kGpmFp16Util, DeviceMetric::Fp16ActivePercent, 1, true},
    {nvml::kGpmNvlinkTotalTxPerSec, DeviceMetric::NvlinkTxBytesPerSec, kMiBPerSecToBytes, false},
    {nvml::kGpmNvlinkTotalRxPerSec, DeviceMetric::NvlinkRxBytesPerSec, kMiBPerSecToBytes, false},
};
static_assert(std::size(kGpmSources) <= nvml::kGpmMetricsEveryDriverTakes);

std::int64_t monotonic_ns() { return now().mono_ns; }

}  // namespace

std::vector<DeviceMetric> NvmlGpm::metrics() {
  std::vector<DeviceMetric> out;
  for (const GpmMetricSource& s : kGpmSources) out.push_back(s.metric);
  std::sort(out.begin(), out.end());
  return out;
}

NvmlGpm::NvmlGpm(const NvmlLibrary::Functions& f, nvml::Device device, GpmClock clock)
    : fn_(f), device_(device), clock_(clock ? std::move(clock) : GpmClock(monotonic_ns)),
      request_(std::make_unique<nvml::GpmMetricsGet>()) {}

NvmlGpm::~NvmlGpm() {
  if (previous_ != nullptr) fn_.gpm_sample_free(previous_);
  if (next_ != nullptr) fn_.gpm_sample_free(next_);
}

std::unique_ptr<NvmlGpm> NvmlGpm::open(const NvmlLibrary::Functions& f, nvml::Device device,
                                       GpmClock clock, bool& lost) {
  if (f.gpm_query_device_support == nullptr || f.gpm_sample_alloc == nullptr ||
      f.gpm_sample_free == nullptr || f.gpm_sample_get == nullptr || f.gpm_metrics_get == nullptr) {
    return nullptr;  // a driver older than GPM
  }
  nvml::GpmSupport support{};
  support.version = nvml::kGpmSupportVersion;
  nvml::Return rc = f.gpm_query_device_support(device, &support);
  if (rc == nvml::kErrorGpuIsLost) lost = true;
  if (rc != nvml::kSuccess || support.is_supported_device == 0) return nullptr;

  std::unique_ptr<NvmlGpm> gpm(new NvmlGpm(f, device, std::move(clock)));
  if (f.gpm_sample_alloc(&gpm->previous_) != nvml::kSuccess) gpm->previous_ = nullptr;
  if (f.gpm_sample_alloc(&gpm->next_) != nvml::kSuccess) gpm->next_ = nullptr;
  if (gpm->previous_ == nullptr || gpm->next_ == nullptr) return nullptr;
  // The first sample proves the device can be sampled (a MIG-enabled GPU, for
  // one, may refuse) and starts the first window.
  gpm->previous_ns_ = gpm->clock_();
  rc = f.gpm_sample_get(device, gpm->previous_);
  if (rc == nvml::kErrorGpuIsLost) lost = true;
  if (rc != nvml::kSuccess) return nullptr;
  return gpm;
}

NvmlGpm::Status NvmlGpm::read(DeviceValues& out) {
  const std::lock_guard lock(mutex_);
  if (off_) return Status::Off;
  const std::int64_t at_ns = clock_();
  // Too soon: keep the previous sample, so that the next read's window is
  // the longer one; never a sample that would make an invalid window.
  if (at_ns - previous_ns_ < kGpmMinWindowNs) return Status::NoWindow;

  nvml::Return rc = fn_.gpm_sample_get(device_, next_);
  if (rc == nvml::kErrorGpuIsLost) return Status::Lost;
  if (rc != nvml::kSuccess) {
    off_ = nvml_refused_for_good(rc);  // e.g. MIG enabled since
    return off_ ? Status::Off : Status::Failed;
  }

  nvml::GpmMetricsGet& request = *request_;
  request.version = nvml::kGpmMetricsGetVersion;
  request.num_metrics = static_cast<unsigned>(std::size(kGpmSources));
  request.sample1 = previous_;
  request.sample2 = next_;
  for (std::size_t i = 0; i < std::size(kGpmSources); ++i) {
    request.metrics[i] = nvml::GpmMetric{};
    request.metrics[i].metric_id = kGpmSources[i].id;
    request.metrics[i].nvml_return = nvml::kErrorUnknown;  // unless the driver says otherwise
  }
  rc = fn_.gpm_metrics_get(&request);
  // The new sample starts the next window whatever this one gave.
  std::swap(previous_, next_);
  previous_ns_ = at_ns;
  if (rc == nvml::kErrorGpuIsLost) return Status::Lost;
  if (rc != nvml::kSuccess) {
    // "Invalid argument" is not final here: the driver may judge a window
    // too short by its own clock where ours said 100 ms had passed.
    off_ = nvml_refused_for_good(rc) && rc != nvml::kErrorInvalidArgument;
    return off_ ? Status::Off : Status::Failed;
  }

  // The driver may answer for fewer metrics than asked; each entry is
  // matched by its id, not its position.
  const std::size_t answered = std::min<std::size_t>(request.num_metrics, std::size(kGpmSources));
  for (std::size_t i = 0; i < answered; ++i) {
    const nvml::GpmMetric& m = request.metrics[i];
    if (m.nvml_return != nvml::kSuccess || !std::isfinite(m.value) || m.value < 0) continue;
    const auto source = std::find_if(std::begin(kGpmSources), std::end(kGpmSources),
                                     [&](const GpmMetricSource& s) { return s.id == m.metric_id; });
    if (source == std::end(kGpmSources)) continue;
    // A share cannot pass 100 %; the driver's own rounding can.
    const double value = source->percent ? std::min(m.value, 100.0) : m.value * source->to_stored;
    out.set(source->metric, value);
  }
  return Status::Ok;
}

}  // namespace gpuwatch
