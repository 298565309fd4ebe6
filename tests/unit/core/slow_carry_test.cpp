#include "core/slow_carry.h"

#include <gtest/gtest.h>

namespace gpuwatch {
namespace {

constexpr std::int64_t kTick = 200'000'000;  // 0.2 s

DeviceSample row(int device, std::int64_t mono_ns) {
  DeviceSample s;
  s.device_index = device;
  s.time = {mono_ns, mono_ns + 1'000'000'000'000};
  s.values.set(DeviceMetric::PowerWatts, 120);
  return s;
}

// A row that carries a slow read made `age_s` before it, as the sampler
// delivers one (with the costly energy counter when that was read too).
DeviceSample read_row(int device, std::int64_t mono_ns, double temp, double age_s, bool costly = false) {
  DeviceSample s = row(device, mono_ns);
  s.values.set(DeviceMetric::TempGpuCelsius, temp);
  s.values.set(DeviceMetric::SmClockMhz, 1980);
  s.values.set(DeviceMetric::SlowReadAgeSeconds, age_s);
  if (costly) s.values.set(DeviceMetric::EnergyJoules, 5000);
  return s;
}

TEST(SlowCarry, RowsBetweenReadsRepeatTheLastReadWithItsAge) {
  SlowCarry carry;
  DeviceSample first = read_row(0, 0, 61, 0.05, true);
  EXPECT_FALSE(carry.fill(first));
  EXPECT_EQ(first.values.get(DeviceMetric::SlowReadAgeSeconds), 0.05);  // its own read, untouched

  for (int k = 1; k <= 4; ++k) {
    DeviceSample between = row(0, k * kTick);
    ASSERT_TRUE(carry.fill(between)) << k;
    EXPECT_EQ(between.values.get(DeviceMetric::TempGpuCelsius), 61);
    EXPECT_EQ(between.values.get(DeviceMetric::SmClockMhz), 1980);
    EXPECT_NEAR(*between.values.get(DeviceMetric::SlowReadAgeSeconds), 0.05 + 0.2 * k, 1e-9);
    EXPECT_EQ(between.values.get(DeviceMetric::PowerWatts), 120);  // the row's own values stay
    // A counter repeated would read as a new measurement.
    EXPECT_FALSE(between.values.has(DeviceMetric::EnergyJoules));
  }

  DeviceSample next = read_row(0, 5 * kTick, 63, 0.01);
  EXPECT_FALSE(carry.fill(next));
  DeviceSample after = row(0, 6 * kTick);
  ASSERT_TRUE(carry.fill(after));
  EXPECT_EQ(after.values.get(DeviceMetric::TempGpuCelsius), 63);
  EXPECT_NEAR(*after.values.get(DeviceMetric::SlowReadAgeSeconds), 0.21, 1e-9);
}

TEST(SlowCarry, NothingBeforeTheFirstReadAndDevicesApart) {
  SlowCarry carry;
  DeviceSample early = row(1, 0);
  EXPECT_FALSE(carry.fill(early));
  EXPECT_FALSE(early.values.has(DeviceMetric::TempGpuCelsius));
  EXPECT_FALSE(early.values.has(DeviceMetric::SlowReadAgeSeconds));

  DeviceSample read = read_row(1, kTick, 70, 0);
  carry.fill(read);
  DeviceSample other = row(3, 2 * kTick);  // another GPU has had no read yet
  EXPECT_FALSE(carry.fill(other));
  EXPECT_FALSE(other.values.has(DeviceMetric::TempGpuCelsius));
  DeviceSample same = row(1, 2 * kTick);
  EXPECT_TRUE(carry.fill(same));
}

TEST(SlowCarry, CarriedBackTheFirstReadFillsTheRowsBeforeIt) {
  SlowCarry carry;
  const DeviceSample first_read = read_row(0, 2 * kTick, 61, 0.3);  // read at 0.1 s
  carry.carry_back(first_read);
  DeviceSample early = row(0, 0);
  ASSERT_TRUE(carry.fill(early));
  EXPECT_EQ(early.values.get(DeviceMetric::TempGpuCelsius), 61);
  EXPECT_NEAR(*early.values.get(DeviceMetric::SlowReadAgeSeconds), -0.1, 1e-9);
  DeviceSample own = first_read;
  EXPECT_FALSE(carry.fill(own));
  DeviceSample other = row(1, 0);  // only the device of the read
  EXPECT_FALSE(carry.fill(other));

  // A read without its age (an imported file) cannot be placed in time.
  SlowCarry ageless;
  DeviceSample no_age = read_row(0, kTick, 61, 0);
  no_age.values.clear(DeviceMetric::SlowReadAgeSeconds);
  ageless.carry_back(no_age);
  DeviceSample before = row(0, 0);
  EXPECT_FALSE(ageless.fill(before));
}

TEST(SlowCarry, ValuesWithoutAnAgeStopTheCarrying) {
  // An imported file with a temperature but no read time: how old a copy of
  // it would be is unknown, so the rows after it stay as they are.
  SlowCarry carry;
  DeviceSample read = read_row(0, 0, 61, 0.05);
  carry.fill(read);
  DeviceSample ageless = row(0, kTick);
  ageless.values.set(DeviceMetric::TempGpuCelsius, 62);
  EXPECT_FALSE(carry.fill(ageless));
  EXPECT_EQ(ageless.values.get(DeviceMetric::TempGpuCelsius), 62);
  DeviceSample after = row(0, 2 * kTick);
  EXPECT_FALSE(carry.fill(after));
  EXPECT_FALSE(after.values.has(DeviceMetric::TempGpuCelsius));
}

TEST(SlowCarry, ImporterDropsExactlyWhatWasRepeated) {
  DeviceSample s = read_row(0, 0, 61, 0.4, true);
  s.values.set(DeviceMetric::PerfState, 0);
  drop_carried_slow_values(s.values);
  EXPECT_FALSE(s.values.has(DeviceMetric::TempGpuCelsius));
  EXPECT_FALSE(s.values.has(DeviceMetric::SmClockMhz));
  EXPECT_FALSE(s.values.has(DeviceMetric::PerfState));
  EXPECT_FALSE(s.values.has(DeviceMetric::SlowReadAgeSeconds));
  EXPECT_EQ(s.values.get(DeviceMetric::EnergyJoules), 5000);  // never repeated, so never dropped
  EXPECT_EQ(s.values.get(DeviceMetric::PowerWatts), 120);
}

}  // namespace
}  // namespace gpuwatch
