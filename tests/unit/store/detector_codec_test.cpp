// The detector minutes' blob (store/detector_codec.h): a round trip keeps
// every field, and what is not such a blob is refused with a reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "store/detector_codec.h"

namespace gpuwatch {
namespace {

std::vector<DetectorMinute> sample_minutes() {
  std::vector<DetectorMinute> minutes(3);
  const std::int64_t start = 123'456'789'000;
  for (std::size_t i = 0; i < minutes.size(); ++i) {
    DetectorMinute& m = minutes[i];
    m.minute = static_cast<std::int64_t>(i * 2) - 1;  // minute -1 (a sample before the start), 1, 3
    m.rows = 600 + i;
    m.last_row_ns = start + m.minute * 60'000'000'000 + 59'900'000'000;
  }
  IdleMinute idle;
  idle.first_busy_ns = minutes[0].last_row_ns - 50'000'000'000;
  idle.last_busy_ns = minutes[0].last_row_ns;
  idle.busy_samples = 540;
  idle.idle_s = 6.25;
  idle.idle_before_busy_s = 0.5;
  idle.gaps = 20;
  idle.gap_total_s = 5.75;
  idle.longest = {{idle.first_busy_ns + 3, 0.4}, {idle.first_busy_ns - 9, 0.3}};
  idle.period_sum_s = 57;
  idle.period_sum_sq_s2 = 171.5;
  idle.periods = {{-4, 1}, {200'000, 18}};
  minutes[0].idle = idle;
  MemoryMinute mem{600, minutes[1].last_row_ns - 59'000'000'000, minutes[1].last_row_ns, 59.9, 29.95, 3e10, 179.6,
                   -1.5e9, 2.9e10, 3.1e10};
  minutes[1].memory = mem;
  minutes[1].energy.power_first = TimedValue{minutes[1].last_row_ns - 59'000'000'000, 612.5};
  minutes[1].energy.power_last = TimedValue{minutes[1].last_row_ns, 98.25};
  minutes[1].energy.power_joules = 31'000.5;
  minutes[2].energy.counter_first = TimedValue{minutes[2].last_row_ns - 50'000'400'000, 1e6};
  minutes[2].energy.counter_last = TimedValue{minutes[2].last_row_ns - 400'000, 1.03e6};
  minutes[2].energy.counter_increase_j = 3e4;
  minutes[2].link = LinkMinute{5, 16, {{1, 16, 0.5}, {5, 16, 52.25}}};
  return minutes;
}

TEST(DetectorCodec, RoundTripKeepsEveryField) {
  const std::vector<DetectorMinute> minutes = sample_minutes();
  const std::vector<std::uint8_t> blob = encode_detector_minutes(minutes);
  EXPECT_EQ(blob.front(), kDetectorFormat);
  const auto back = decode_detector_minutes(blob);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, minutes);
  const auto none = decode_detector_minutes(encode_detector_minutes({}));
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST(DetectorCodec, RefusesWhatIsNotABlobWithAReason) {
  const std::vector<std::uint8_t> good = encode_detector_minutes(sample_minutes());
  std::string error;
  std::vector<std::uint8_t> other_format = good;
  other_format[0] = kDetectorFormat + 1;
  EXPECT_FALSE(decode_detector_minutes(other_format, &error));
  EXPECT_EQ(error, "unknown detector minutes format");
  for (std::size_t cut = 1; cut < good.size(); cut += 7) {
    error.clear();
    EXPECT_FALSE(decode_detector_minutes(std::span(good).first(cut), &error)) << cut;
    EXPECT_FALSE(error.empty()) << cut;
  }
  std::vector<std::uint8_t> trailing = good;
  trailing.push_back(0);
  EXPECT_FALSE(decode_detector_minutes(trailing, &error));
  EXPECT_EQ(error, "trailing bytes");
}

}  // namespace
}  // namespace gpuwatch
