// The import's clock from spilled time points: medians found in passes over
// them, and rows out of order sorted, as when every value was in memory.
#include "import/time_line.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "import/import.h"

namespace gpuwatch {
namespace {

std::optional<std::int64_t> median_of(const std::vector<std::int64_t>& values) {
  return streaming_median([&](const auto& f) {
    for (const std::int64_t v : values) f(v);
  });
}

std::int64_t nth(std::vector<std::int64_t> values) {
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

TEST(StreamingMedian, IsTheValueNthElementFinds) {
  EXPECT_FALSE(median_of({}).has_value());
  EXPECT_EQ(median_of({7}), 7);
  EXPECT_EQ(median_of({5, 5, 5, 5}), 5);
  EXPECT_EQ(median_of({1, 2}), 2);  // the upper one of two, as nth_element at n/2
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  const std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(median_of({lo, hi, 0}), 0);
  EXPECT_EQ(median_of({lo, lo, hi}), lo);
  std::mt19937_64 random(22);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::int64_t> values(1 + random() % 300);
    // Clustered (timestamps a few ms apart), spread over the whole range, or few distinct values.
    const std::uint64_t spread = round % 3 == 0 ? 5'000'000 : (round % 3 == 1 ? ~std::uint64_t{0} : 4);
    // Added as unsigned, which wraps (signed overflow is undefined: UBSan), then read back as signed.
    const std::uint64_t base = random();
    for (auto& v : values) v = static_cast<std::int64_t>(base + random() % (spread | 1));
    ASSERT_EQ(median_of(values), nth(values)) << "round " << round;
  }
}

// Elapsed seconds that go backwards (a file whose records are out of order):
// each GPU's rows come out sorted, from the spill file as from memory.
TEST(TimeLine, RowsOutOfOrderAreSortedByTime) {
  const std::string text =
      "{\"type\":\"device\",\"wall_ns\":1736937000300000000,\"elapsed_s\":0.3,\"gpu_index\":0,\"power_watts\":3}\n"
      "{\"type\":\"device\",\"wall_ns\":1736937000100000000,\"elapsed_s\":0.1,\"gpu_index\":0,\"power_watts\":1}\n"
      "{\"type\":\"device\",\"wall_ns\":1736937000100000000,\"elapsed_s\":0.1,\"gpu_index\":1,\"power_watts\":11}\n"
      "{\"type\":\"device\",\"wall_ns\":1736937000200000000,\"elapsed_s\":0.2,\"gpu_index\":0,\"power_watts\":2}\n"
      "{\"type\":\"device\",\"wall_ns\":1736937000000000000,\"elapsed_s\":0.0,\"gpu_index\":0,\"power_watts\":0}\n"
      "{\"type\":\"device\",\"wall_ns\":1736937000200000000,\"elapsed_s\":0.2,\"gpu_index\":1,\"power_watts\":12}\n";
  const ImportResult r = import_text(text, "shuffled");
  ASSERT_EQ(r.data.devices.size(), 2u);
  const DeviceSeries& gpu0 = r.data.devices[0];
  EXPECT_EQ(gpu0.mono_ns, (std::vector<std::int64_t>{0, 100'000'000, 200'000'000, 300'000'000}));
  const auto& power = gpu0.values[static_cast<std::size_t>(DeviceMetric::PowerWatts)];
  EXPECT_EQ(power, (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(r.data.devices[1].mono_ns, (std::vector<std::int64_t>{100'000'000, 200'000'000}));
  EXPECT_DOUBLE_EQ(r.data.run.interval_s, 0.1);
  for (const std::size_t chunk : {1, 5, 64}) {
    const ImportResult c = import_text_in_chunks(text, "shuffled", chunk);
    EXPECT_EQ(c.data.devices[0].mono_ns, gpu0.mono_ns);
    EXPECT_EQ(c.data.devices[0].values[static_cast<std::size_t>(DeviceMetric::PowerWatts)], power);
  }
}

}  // namespace
}  // namespace gpuwatch
