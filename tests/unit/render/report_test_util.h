// RunReports built by hand for the text renderers' tests.
#pragma once

#include "analysis/run_report.h"
#include "render/units.h"

namespace gpuwatch::report_test {

inline Summary summary_of(double mean, double max) {
  Summary s;
  s.count = 100;
  s.span_s = 100;
  s.mean = mean;
  s.min = 0;
  s.max = max;
  s.p50 = mean;
  s.p95 = max;
  return s;
}

inline DeviceReport device(int index, double util_mean, double mem_peak_bytes, double power_mean) {
  DeviceReport d;
  d.info.index = index;
  d.info.name = "NVIDIA H100 80GB HBM3";
  d.info.static_values.set(DeviceMetric::MemTotalBytes, 80 * kGiB);
  d.samples = 100;
  d.metrics.push_back({DeviceMetric::GpuUtilPercent, summary_of(util_mean, 100)});
  d.metrics.push_back({DeviceMetric::MemUsedBytes, summary_of(mem_peak_bytes / 2, mem_peak_bytes)});
  d.metrics.push_back({DeviceMetric::PowerWatts, summary_of(power_mean, power_mean + 50)});
  return d;
}

inline RunReport report(double seconds) {
  RunReport r;
  r.run.id = "0123456789ab";
  r.run.name = "train";
  r.run.status = RunStatus::Finished;
  r.run.exit_code = 0;
  r.run.end_reason = "exited";
  r.wall_duration_s = seconds;
  r.devices.push_back(device(0, 78, 60 * kGiB, 412));
  return r;
}

}  // namespace gpuwatch::report_test
