// `report`'s detectors from per-minute detector rollups (analysis/detector_rollups.h)
// against the same detectors over the samples, on a run long enough to take
// the rollup path: what a report of a run of weeks promises (issue 25).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "analysis/detector_rollups.h"
#include "analysis/rollup_stats.h"
#include "analysis/run_report.h"
#include "core/detector_minutes.h"
#include "core/device_columns.h"
#include "core/rollup.h"
#include "core/time_weights.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kStart = 4000 * kSec;
constexpr double kHz = 10;
constexpr double kHours = 3.2;  // 115,200 rows: above kMinuteDetectorsMinSamples

double noise(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) / 9007199254740992.0;
}

void set(DeviceSeries& d, DeviceMetric m, double v) { d.values[static_cast<std::size_t>(m)].back() = v; }

// A training loop with what each detector looks for: idle lead-in and
// tail, an input stall every 3 s, one 40 s hang, memory loaded at the start,
// creeping, and dropping by 8 GB once, a power hole longer than the bridge,
// an energy counter that resets, and a PCIe link that drops to gen 3 for
// twenty minutes while busy. Times jitter by a few ms.
RunData long_run() {
  RunData data;
  data.run.id = "long";
  data.run.start_mono_ns = kStart;
  data.run.start_wall_ns = 1'700'000'000 * kSec;
  data.run.interval_s = 1 / kHz;
  data.run.status = RunStatus::Finished;
  data.host.values.assign(kHostMetricCount, {});
  DeviceSeries d;
  d.info.index = 0;
  d.info.static_values.set(DeviceMetric::PcieLinkGenMax, 5);
  d.info.static_values.set(DeviceMetric::PcieLinkWidthMax, 16);
  d.info.static_values.set(DeviceMetric::MemTotalBytes, 80e9);
  d.values.assign(kDeviceMetricCount, {});
  std::uint64_t rng = 11;
  double energy_j = 5e5;
  const auto ticks = static_cast<std::int64_t>(kHours * 3600 * kHz);
  for (std::int64_t tick = 0; tick < ticks; ++tick) {
    const double t_s = static_cast<double>(tick) / kHz;
    d.mono_ns.push_back(kStart + tick * 100'000'000 + static_cast<std::int64_t>(noise(rng) * 4e6));
    for (auto& column : d.values) column.push_back(kNaN);
    const bool lead = t_s < 20 || t_s > kHours * 3600 - 15;
    const bool hang = t_s > 5000 && t_s < 5040;
    const bool stall = std::fmod(t_s, 3.0) < 0.3 + noise(rng) * 0.05;
    const double util = lead || hang || stall ? std::round(noise(rng) * 3) : std::round(90 + noise(rng) * 10);
    set(d, DeviceMetric::GpuUtilPercent, util);
    const bool dropped = t_s > 7000 && t_s < 7100;
    const double mem = t_s < 25 ? 5e8 : 3e10 + t_s * 3e3 - (dropped ? 8e9 : 0) + noise(rng) * 3e7;
    set(d, DeviceMetric::MemUsedBytes, std::round(mem));
    const double power = 90 + util * 5.6 + noise(rng) * 20;
    energy_j += power / kHz;
    if (!(t_s > 3000 && t_s < 3010)) set(d, DeviceMetric::PowerWatts, power);
    if (tick % 10 == 0) {
      const bool slow_link = t_s > 8000 && t_s < 9200;
      set(d, DeviceMetric::PcieLinkGen, util > 50 ? (slow_link ? 3 : 5) : 1);
      set(d, DeviceMetric::PcieLinkWidth, 16);
      set(d, DeviceMetric::SlowReadAgeSeconds, 0.0004);
      set(d, DeviceMetric::ClockEventReasons, power > 600 ? 4 : 0);
    }
    if (tick % 100 == 0) {
      if (t_s > 6000 && t_s < 6010) energy_j = 0;  // the driver reloaded
      set(d, DeviceMetric::EnergyJoules, std::round(energy_j * 1000) / 1000);
    }
  }
  data.devices.push_back(std::move(d));
  return data;
}

std::int64_t cap_of(const DeviceSeries& d, DeviceMetric m) {
  std::vector<std::int64_t> present;
  const auto& column = d.values[static_cast<std::size_t>(m)];
  for (std::size_t i = 0; i < d.mono_ns.size(); ++i) {
    if (!std::isnan(column[i])) present.push_back(d.mono_ns[i]);
  }
  return default_half_gap_cap_ns(present);
}

// The device's rows in pieces of `rows`, as the store's chunks come.
std::vector<DeviceSeries> pieces_of(const DeviceSeries& d, std::size_t rows) {
  std::vector<DeviceSeries> pieces;
  for (std::size_t begin = 0; begin < d.mono_ns.size(); begin += rows) {
    const auto from = static_cast<std::ptrdiff_t>(begin);
    const auto to = static_cast<std::ptrdiff_t>(std::min(d.mono_ns.size(), begin + rows));
    DeviceSeries& piece = pieces.emplace_back();
    piece.mono_ns.assign(d.mono_ns.begin() + from, d.mono_ns.begin() + to);
    for (const auto& column : d.values) piece.values.emplace_back(column.begin() + from, column.begin() + to);
  }
  return pieces;
}

// The rollups the store's finish builds, made in memory: every column's, and
// the detector minutes fed in three pieces as the chunks would come.
class MemoryRollups final : public RollupSource {
 public:
  explicit MemoryRollups(const RunData& data) {
    const DeviceSeries& d = data.devices.front();
    rollups_.metrics.resize(kDeviceMetricCount);
    for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
      if (kDeviceMetrics[m].cadence == Cadence::Static) continue;
      rollups_.metrics[m] = rollup_column(d.mono_ns, d.values[m], kStart, kDeviceMetrics[m].scale);
    }
    DetectorMinutesBuilder builder(kStart, {cap_of(d, DeviceMetric::GpuUtilPercent), cap_of(d, DeviceMetric::MemUsedBytes),
                                            cap_of(d, DeviceMetric::PcieLinkGen)});
    for (const DeviceSeries& piece : pieces_of(d, d.mono_ns.size() / 3 + 7)) builder.add(piece);
    rollups_.detectors = builder.finish();
  }
  [[nodiscard]] std::optional<DeviceRollups> rollups(int) const override { return rollups_; }

 private:
  DeviceRollups rollups_;
};

void expect_rel(double rolled, double raw, double tolerance) {
  EXPECT_NEAR(rolled, raw, tolerance * std::max(1.0, std::abs(raw)));
}

class DetectorRollups : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    data_ = new RunData(long_run());
    raw_ = new RunReport(build_report(*data_));
    const RunDataColumns columns(*data_);
    rolled_ = new RunReport(build_report(run_base(*data_), columns, MemoryRollups(*data_)));
  }
  static void TearDownTestSuite() {
    delete rolled_;
    delete raw_;
    delete data_;
  }
  static const DeviceReport& raw() { return raw_->devices.front(); }
  static const DeviceReport& rolled() { return rolled_->devices.front(); }

  static RunData* data_;
  static RunReport* raw_;
  static RunReport* rolled_;
};

RunData* DetectorRollups::data_ = nullptr;
RunReport* DetectorRollups::raw_ = nullptr;
RunReport* DetectorRollups::rolled_ = nullptr;

TEST_F(DetectorRollups, TheRunTakesTheRollupPath) {
  ASSERT_TRUE(MemoryRollups(*data_).rollups(0)->detectors.has_value());
  EXPECT_TRUE(long_enough_for_minutes(*MemoryRollups(*data_).rollups(0)->detectors));
  EXPECT_EQ(rolled().samples, raw().samples);
}

TEST_F(DetectorRollups, IdleGapsAreTheSamples) {
  ASSERT_TRUE(raw().idle_gaps && rolled().idle_gaps);
  const IdleGapReport& a = *raw().idle_gaps;
  const IdleGapReport& b = *rolled().idle_gaps;
  EXPECT_GT(a.count, 3000u);
  EXPECT_EQ(b.count, a.count);
  EXPECT_EQ(b.first_busy_ns, a.first_busy_ns);
  EXPECT_EQ(b.last_busy_ns, a.last_busy_ns);
  expect_rel(b.total_s, a.total_s, 1e-9);
  expect_rel(b.leading_idle_s, a.leading_idle_s, 1e-9);
  expect_rel(b.trailing_idle_s, a.trailing_idle_s, 1e-9);
  EXPECT_EQ(b.longest_s, a.longest_s);
  ASSERT_EQ(b.longest.size(), a.longest.size());
  for (std::size_t i = 0; i < a.longest.size(); ++i) {
    EXPECT_EQ(b.longest[i].start_ns, a.longest[i].start_ns);
    EXPECT_EQ(b.longest[i].duration_s, a.longest[i].duration_s);
  }
  ASSERT_TRUE(a.typical_period_s && b.typical_period_s);
  EXPECT_NEAR(*b.typical_period_s, *a.typical_period_s, kRollupRelativeError * *a.typical_period_s);
  expect_rel(*b.period_cv, *a.period_cv, 1e-6);
  EXPECT_EQ(b.regular, a.regular);
}

TEST_F(DetectorRollups, MemoryTrendIsTheSamples) {
  ASSERT_TRUE(raw().memory && rolled().memory);
  const MemoryTrend& a = *raw().memory;
  const MemoryTrend& b = *rolled().memory;
  EXPECT_EQ(b.span_s, a.span_s);
  expect_rel(b.slope_bytes_per_hour, a.slope_bytes_per_hour, 1e-3);
  // The tenths are whole minutes: within a minute's creep and noise.
  expect_rel(b.first_tenth_mean_bytes, a.first_tenth_mean_bytes, 1e-3);
  expect_rel(b.last_tenth_mean_bytes, a.last_tenth_mean_bytes, 1e-3);
  EXPECT_EQ(b.leak_suspected, a.leak_suspected);
  ASSERT_GE(a.drops.size(), 1u);  // down by 8 GB at 7000 s
  ASSERT_EQ(b.drops.size(), a.drops.size());
  for (std::size_t i = 0; i < a.drops.size(); ++i) {
    EXPECT_EQ(b.drops[i].time_ns, a.drops[i].time_ns);
    EXPECT_EQ(b.drops[i].from_bytes, a.drops[i].from_bytes);
    EXPECT_EQ(b.drops[i].to_bytes, a.drops[i].to_bytes);
  }
}

TEST_F(DetectorRollups, EnergyIsTheSamples) {
  const EnergyEstimate& a = raw().energy;
  const EnergyEstimate& b = rolled().energy;
  ASSERT_TRUE(a.counter_joules && b.counter_joules);
  expect_rel(*b.counter_joules, *a.counter_joules, 1e-9);
  ASSERT_TRUE(a.integrated_joules && b.integrated_joules);
  expect_rel(*b.integrated_joules, *a.integrated_joules, 1e-9);
  ASSERT_TRUE(a.integrated_counter_span_joules && b.integrated_counter_span_joules);
  // The span's edge minutes are shared by time.
  expect_rel(*b.integrated_counter_span_joules, *a.integrated_counter_span_joules, 1e-4);
  ASSERT_TRUE(raw_->total_energy_joules && rolled_->total_energy_joules);
  expect_rel(*rolled_->total_energy_joules, *raw_->total_energy_joules, 1e-9);
}

TEST_F(DetectorRollups, PcieLinkIsTheSamples) {
  ASSERT_TRUE(raw().pcie_link && rolled().pcie_link);
  const PcieLinkReport& a = *raw().pcie_link;
  const PcieLinkReport& b = *rolled().pcie_link;
  EXPECT_GT(a.degraded_busy_s, 500);
  expect_rel(b.busy_s, a.busy_s, 1e-9);
  expect_rel(b.degraded_busy_s, a.degraded_busy_s, 1e-9);
  expect_rel(b.degraded_percent, a.degraded_percent, 1e-9);
  EXPECT_EQ(b.max_gen, a.max_gen);
  EXPECT_EQ(b.max_width, a.max_width);
  EXPECT_EQ(b.worst_busy_gen, a.worst_busy_gen);
  EXPECT_EQ(b.worst_busy_width, a.worst_busy_width);
}

TEST_F(DetectorRollups, ThrottlingAndStatisticsAreUnchanged) {
  ASSERT_TRUE(raw().throttle && rolled().throttle);
  expect_rel(rolled().throttle->sampled_s, raw().throttle->sampled_s, 1e-9);
  ASSERT_EQ(rolled().metrics.size(), raw().metrics.size());
}

// The finish streams the minutes out as they settle: the same minutes, and
// most of them before the last row (the builder holds a few, not all).
TEST_F(DetectorRollups, MinutesAreEmittedAsTheySettle) {
  const DeviceSeries& d = data_->devices.front();
  const DetectorCaps caps{cap_of(d, DeviceMetric::GpuUtilPercent), cap_of(d, DeviceMetric::MemUsedBytes),
                          cap_of(d, DeviceMetric::PcieLinkGen)};
  std::vector<DetectorMinute> streamed;
  DetectorMinutesBuilder builder(kStart, caps, [&streamed](DetectorMinute&& m) { streamed.push_back(std::move(m)); });
  for (const DeviceSeries& piece : pieces_of(d, d.mono_ns.size() / 10)) builder.add(piece);
  const std::size_t emitted_early = streamed.size();
  EXPECT_TRUE(builder.finish().empty());
  EXPECT_EQ(streamed, *MemoryRollups(*data_).rollups(0)->detectors);
  EXPECT_GT(emitted_early, streamed.size() * 8 / 10);
}

TEST(DetectorMinutes, AShortDeviceKeepsTheSamplePath) {
  std::vector<DetectorMinute> minutes(3);
  for (DetectorMinute& m : minutes) m.rows = 600;
  EXPECT_FALSE(long_enough_for_minutes(minutes));
  minutes[1].rows = kMinuteDetectorsMinSamples;
  EXPECT_TRUE(long_enough_for_minutes(minutes));
}

}  // namespace
}  // namespace gpuwatch
