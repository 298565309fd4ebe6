#include "render/status_line.h"

#include <gtest/gtest.h>

#include "render/units.h"

namespace gpuwatch {
namespace {

DeviceSample gpu(int index, double util, double used_gib, double total_gib) {
  DeviceSample s;
  s.device_index = index;
  s.values.set(DeviceMetric::GpuUtilPercent, util);
  s.values.set(DeviceMetric::MemUsedBytes, used_gib * kGiB);
  s.values.set(DeviceMetric::MemTotalBytes, total_gib * kGiB);
  return s;
}

HostValues host(double cpu, double used_gib, double total_gib) {
  HostValues h;
  h.set(HostMetric::CpuPercent, cpu);
  h.set(HostMetric::MemUsedBytes, used_gib * kGiB);
  h.set(HostMetric::MemTotalBytes, total_gib * kGiB);
  return h;
}

TEST(StatusLine, MatchesSeed004ForOneGpu) {
  // 12.29/24 GiB = 51.2 %, 18.43/64 GiB = 28.8 %: the seed's example line.
  EXPECT_EQ(format_status_line({gpu(0, 85, 12.29, 24.0)}, host(45.2, 18.43, 64.0)),
            "GPU: 85% | VRAM:12.3/24.0GB(51.2%) | CPU: 45.2% | RAM:18.4/64.0GB(28.8%)");
}

TEST(StatusLine, NumbersEachGpuWhenThereAreSeveral) {
  EXPECT_EQ(format_status_line({gpu(0, 85, 12.29, 24.0), gpu(1, 10, 1.0, 24.0)}, host(45.2, 18.43, 64.0)),
            "GPU0: 85% | VRAM0:12.3/24.0GB(51.2%) | GPU1: 10% | VRAM1:1.0/24.0GB(4.2%) | "
            "CPU: 45.2% | RAM:18.4/64.0GB(28.8%)");
}

TEST(StatusLine, SaysNaForWhatIsNotKnownYet) {
  DeviceSample s;
  EXPECT_EQ(format_status_line({s}, HostValues{}), "GPU: n/a | VRAM:n/a | CPU: n/a | RAM:n/a");
}

}  // namespace
}  // namespace gpuwatch
