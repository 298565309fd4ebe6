// Prometheus text exposition (format 0.0.4) of the live layer's latest
// values: what `gpuwatch exporter` serves at /metrics. Pure: a snapshot in,
// text out, so a scrape costs a string copy and never a driver call.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/run_status.h"
#include "core/sample.h"
#include "core/live_snapshot.h"

namespace gpuwatch {

enum class PrometheusNames {
  Native,      // gpuwatch_gpu_*_<base unit>, labels gpu/uuid/pci_bus_id/name/vendor/hostname
  DcgmCompat,  // dcgm-exporter's DCGM_FI_* names, units and labels (NVIDIA GPUs only)
};

// Whether one backend is sampling: a failing backend is a series, never a
// failed scrape.
struct CollectorStatus {
  std::string backend;  // "nvml", "amdgpu", "host", ...
  bool success = false;
};

// The errors a GPU's driver reported on its own (NVML's events, see
// core/device_event_kinds.h) since the feed started: counters, so that an
// alert sees each new one however seldom it scrapes.
struct DeviceErrorCounts {
  std::map<std::string, std::uint64_t> xid;  // by XID number ("79"; "unknown" where the driver did not say)
  std::uint64_t ecc_double_bit = 0;

  // Counts `event` if it is an XID or a double-bit ECC error.
  void add(const Event& event);
};

struct PrometheusInput {
  LiveSnapshot live;                // the latest values (history is not read)
  std::vector<DeviceInfo> devices;  // facts of the watched GPUs, any order
  std::string hostname;
  std::string version;
  std::vector<CollectorStatus> collectors;
  // The run `gpuwatch record` is recording on this machine, if any: its
  // gpuwatch_run_* families follow the GPUs' under either naming.
  std::optional<RunStatusReport> run;
  // Per-process series (`exporter --processes`), from live.processes.
  bool processes = false;
  // gpuwatch_gpu_xid_errors_total and gpuwatch_gpu_ecc_double_bit_errors_total
  // of the NVIDIA GPUs (native names), by gpuwatch device index; none: no
  // such series. A GPU missing from the map has had no error.
  std::optional<std::map<int, DeviceErrorCounts>> errors;
};

// The whole /metrics body. A metric a device lacks is left out, never 0.
std::string render_prometheus(const PrometheusInput& input, PrometheusNames names);

// Label values: backslash, double quote and newline escaped.
std::string prometheus_label_value(std::string_view value);

}  // namespace gpuwatch
