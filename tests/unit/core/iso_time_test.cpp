#include "core/iso_time.h"

#include <gtest/gtest.h>

#include "../import/zone_guard.h"

namespace gpuwatch {
namespace {

constexpr std::int64_t kS = 1'000'000'000;

TEST(IsoTime, UtcAndOffsets) {
  // 2025-08-29T04:35:11Z is 1756442111 s after the epoch.
  EXPECT_EQ(parse_iso_time_ns("2025-08-29T04:35:11.660455Z"), 1756442111 * kS + 660'455'000);
  EXPECT_EQ(parse_iso_time_ns("2025-08-29T06:35:11.660455+02:00"), 1756442111 * kS + 660'455'000);
  EXPECT_EQ(parse_iso_time_ns("2025-08-29 00:05:11-04:30"), 1756442111 * kS);
  EXPECT_EQ(parse_iso_time_ns("1970-01-01T00:00:00.000000001Z"), 1);
  EXPECT_EQ(parse_iso_time_ns("2024-02-29T00:00:00Z"), 1709164800 * kS);
}

TEST(IsoTime, WithoutZoneIsLocalTimeOfTz) {
  // Central European time without the tz database: UTC+1, UTC+2 in summer.
  ZoneGuard zone("CET-1CEST,M3.5.0,M10.5.0/3");
  EXPECT_EQ(parse_iso_time_ns("2025-08-29T06:35:11.660455"), 1756442111 * kS + 660'455'000);
  EXPECT_EQ(parse_iso_time_ns("2025-01-15T10:30:00"), parse_iso_time_ns("2025-01-15T09:30:00Z"));
}

TEST(IsoTime, RejectsWhatIsNoTime) {
  ZoneGuard zone("UTC0");
  for (const char* bad : {"", "yesterday", "2025-08-29", "2025-08-29T04:35", "2025-02-29T00:00:00",
                          "2025-13-01T00:00:00", "2025-08-29T24:00:00", "2025-08-29T04:35:11.",
                          "2025-08-29T04:35:11.1234567890", "1969-12-31T23:59:59", "2201-01-01T00:00:00",
                          "2025-08-29T04:35:11+2:00", "2025-08-29T04:35:11 junk", "2025-08-29X04:35:11",
                          "1970-01-01T00:30:00+01:00"}) {
    EXPECT_EQ(parse_iso_time_ns(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace gpuwatch
