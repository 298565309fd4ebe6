// record --advise's memory of the whole run stays bounded (issue 25) and
// gives the epochs the same peaks as one point per second did.
#include "record/peak_history.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/advisor/advisor.h"
#include "core/durations.h"
#include "record/live_advisor.h"

namespace gpuwatch {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr std::int64_t kStartNs = 1'000 * kSecondNs;

DeviceInfo gpu(int index) {
  DeviceInfo d;
  d.index = index;
  d.name = "GPU " + std::to_string(index);
  return d;
}

RunInfo run_info() {
  RunInfo run;
  run.id = "long";
  run.start_mono_ns = kStartNs;
  run.start_wall_ns = kStartNs;
  return run;
}

// A training whose memory climbs by 100 MiB an epoch (a leak), with a
// wobble inside each epoch so that the peak is not at its end.
DeviceSample memory_sample(int device, std::int64_t t_ns, double epoch_s) {
  DeviceSample s;
  s.device_index = device;
  s.time = {t_ns, t_ns};
  const double t_s = static_cast<double>(t_ns - kStartNs) / 1e9;
  const double epoch = std::floor(t_s / epoch_s);
  const double wobble = std::fmod(t_s * 7.3, 13.0) * 1024 * 1024;
  s.values.set(DeviceMetric::MemUsedBytes, 10 * kGiB + epoch * 100 * 1024 * 1024 + wobble + device);
  s.values.set(DeviceMetric::MemTotalBytes, 80 * kGiB);
  s.values.set(DeviceMetric::GpuUtilPercent, 95);
  return s;
}

Event epoch_event(std::int64_t t_ns, int epoch) { return Event{{t_ns, t_ns}, std::nullopt, "epoch", std::to_string(epoch)}; }

void expect_same_peaks(const std::vector<EpochPeak>& got, const std::vector<EpochPeak>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t e = 0; e < want.size(); ++e) {
    EXPECT_EQ(got[e].label, want[e].label);
    ASSERT_EQ(got[e].devices.size(), want[e].devices.size()) << e;
    for (std::size_t d = 0; d < want[e].devices.size(); ++d) {
      EXPECT_EQ(got[e].devices[d].peak_bytes, want[e].devices[d].peak_bytes) << "epoch " << e << " gpu " << d;
    }
  }
}

TEST(PeakHistory, FoldedGivesTheEpochsTheSamePeaksAsEverySecond) {
  const std::vector<DeviceInfo> gpus{gpu(0), gpu(1)};
  PeakHistory folded(run_info(), gpus);
  PeakHistory every_second(run_info(), gpus);
  constexpr double kEpochS = 617;  // not a multiple of the fold's period
  const std::int64_t step_ns = kSecondNs / 4;
  int epoch = -1;
  for (std::int64_t t = kStartNs; t < kStartNs + 6 * 3600 * kSecondNs; t += step_ns) {
    const int now_epoch = static_cast<int>(static_cast<double>(t - kStartNs) / 1e9 / kEpochS);
    if (now_epoch != epoch) {
      epoch = now_epoch;
      for (PeakHistory* h : {&folded, &every_second}) {
        h->add_epoch(epoch_event(t, epoch));
        h->add_epoch(epoch_event(t + kSecondNs, epoch));  // said again: no new boundary
      }
    }
    for (int d = 0; d < 2; ++d) {
      folded.add_sample(memory_sample(d, t, kEpochS));
      every_second.add_sample(memory_sample(d, t, kEpochS));
    }
    if ((t - kStartNs) % (10 * kSecondNs) == 0) folded.fold_before(t - 60 * kSecondNs);
  }
  expect_same_peaks(epoch_peaks(folded.data()), epoch_peaks(every_second.data()));
  EXPECT_EQ(folded.data().events.size(), every_second.data().events.size());
  EXPECT_EQ(folded.data().events.size(), static_cast<std::size_t>(epoch + 1));
  // Six hours: 21,600 points a GPU before; now one per epoch stretch and the last minute's.
  EXPECT_EQ(every_second.point_count(), 2u * 6 * 3600);
  EXPECT_LE(folded.point_count(), 2u * (static_cast<std::size_t>(epoch) + 2 + 70));
}

TEST(PeakHistory, WithoutEpochsKeepsOnlyTheRecentSpan) {
  PeakHistory h(run_info(), {gpu(0)});
  for (std::int64_t t = kStartNs; t < kStartNs + 3600 * kSecondNs; t += kSecondNs) {
    h.add_sample(memory_sample(0, t, 1e9));
    h.fold_before(t - 60 * kSecondNs);
  }
  EXPECT_LE(h.point_count(), 62u);
  EXPECT_TRUE(epoch_peaks(h.data()).empty());
}

TEST(LiveAdvisorMemory, ALongRunKeepsBoundedPointsAndStillFindsTheLeak) {
  LiveAdvisorOptions options;
  options.print = false;
  options.check_interval_s = 60;
  const std::vector<DeviceInfo> gpus{gpu(0), gpu(1)};
  LiveAdvisor advisor(options, run_info(), gpus, [](const std::string&) {});
  constexpr double kEpochS = 1800;
  constexpr int kHours = 12;
  int epoch = -1;
  std::vector<Event> changes;
  for (std::int64_t t = kStartNs; t <= kStartNs + kHours * 3600 * kSecondNs; t += kSecondNs) {
    const int now_epoch = static_cast<int>(static_cast<double>(t - kStartNs) / 1e9 / kEpochS);
    if (now_epoch != epoch) advisor.on_event(epoch_event(t, epoch = now_epoch));
    for (int d = 0; d < 2; ++d) advisor.on_device_sample(memory_sample(d, t, kEpochS));
    for (Event& e : advisor.on_tick({t, t})) changes.push_back(std::move(e));
  }
  // 12 hours at one point a GPU a second were 86,400 points; the bound is
  // the epochs' stretches and the recent span, whatever the run's length.
  const std::size_t epochs = kHours * 3600 / static_cast<std::size_t>(kEpochS);
  EXPECT_LE(advisor.kept_peak_points(), 2 * (epochs + 2 + 2 * 60 + 60));
  const bool leak = std::any_of(changes.begin(), changes.end(), [](const Event& e) {
    return e.message.find("memory.leak") != std::string::npos;
  });
  EXPECT_TRUE(leak);
}

}  // namespace
}  // namespace gpuwatch
