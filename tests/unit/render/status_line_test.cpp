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

TEST(StatusLine, TheSeedsLineWhenItFits) {
  const std::string full = "GPU: 85% | VRAM:12.3/24.0GB(51.2%) | CPU: 45.2% | RAM:18.4/64.0GB(28.8%)";
  EXPECT_EQ(format_status_line({gpu(0, 85, 12.29, 24.0)}, host(45.2, 18.43, 64.0), full.size()), full);
  EXPECT_EQ(format_status_line({gpu(0, 85, 12.29, 24.0)}, host(45.2, 18.43, 64.0), 0), full);  // no limit
}

TEST(StatusLine, FourGpusOnEightyColumnsGetTheCompactLine) {
  const std::vector<DeviceSample> four{gpu(0, 85, 12.29, 24.0), gpu(1, 10, 1.0, 24.0), gpu(2, 99, 23.0, 24.0),
                                       gpu(3, 0, 0.5, 24.0)};
  const std::string line = format_status_line(four, host(45.2, 18.43, 64.0), 80);
  EXPECT_EQ(line, "GPU 85% 10% 99% 0% | VRAM 51% 4% 96% 2% | CPU 45% | RAM 29%");
  EXPECT_LE(line.size(), 80u);
}

TEST(StatusLine, SixteenGpusOnEightyColumnsAreSummedUp) {
  std::vector<DeviceSample> sixteen;
  for (int i = 0; i < 16; ++i) sixteen.push_back(gpu(i, 10.0 + 5 * i, 6.0, 24.0));  // 10..85 %, a quarter full
  const std::string line = format_status_line(sixteen, host(45.2, 18.43, 64.0), 80);
  EXPECT_EQ(line, "16 GPUs: 48% (10-85%) | VRAM 25% | CPU 45% | RAM 29%");
}

TEST(StatusLine, WhatStillDoesNotFitIsCut) {
  const std::string line = format_status_line({gpu(0, 85, 12.29, 24.0), gpu(1, 10, 1.0, 24.0)},
                                              host(45.2, 18.43, 64.0), 20);
  EXPECT_EQ(line.size(), 20u);
  EXPECT_EQ(line, std::string("2 GPUs: 48% (10-85%) | VRAM 28% | CPU 45% | RAM 29%").substr(0, 20));
}

TEST(StatusLine, TheCompactLinesSayNaForWhatIsNotKnown) {
  DeviceSample unknown;
  unknown.device_index = 1;
  EXPECT_EQ(format_status_line({gpu(0, 50, 12.0, 24.0), unknown}, HostValues{}, 50),
            "GPU 50% n/a | VRAM 50% n/a | CPU n/a | RAM n/a");
}

TEST(StatusLine, EpochAndStepFollowWhenTheTrainingSaidThem) {
  const std::string seed = "GPU: 85% | VRAM:12.3/24.0GB(51.2%) | CPU: 45.2% | RAM:18.4/64.0GB(28.8%)";
  EXPECT_EQ(format_status_line({gpu(0, 85, 12.29, 24.0)}, host(45.2, 18.43, 64.0), 0, {3, 1200}),
            seed + " | epoch 3 step 1200");
  EXPECT_EQ(format_status_line({gpu(0, 85, 12.29, 24.0)}, host(45.2, 18.43, 64.0), 0, {std::nullopt, 7}),
            seed + " | step 7");
  // Too wide with the seed's line: the compact one keeps the progress.
  EXPECT_EQ(format_status_line({gpu(0, 85, 12.29, 24.0)}, host(45.2, 18.43, 64.0), 80, {3, 1200}),
            "GPU 85% | VRAM 51% | CPU 45% | RAM 29% | epoch 3 step 1200");
}

}  // namespace
}  // namespace gpuwatch
