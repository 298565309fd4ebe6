// CSV's values are written as fmt's "{}" writes a double (the shortest form
// that reads back the same); whole numbers take a faster path that must give
// the very same text, at its edges too: -0, 10^15, 10^16, the largest
// integers a double holds exactly.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "render/sample_format.h"

namespace gpuwatch {
namespace {

// The cell of `v` in a CSV row (power_watts's column).
std::string cell(double v) {
  auto csv = make_sample_formatter(OutputFormat::csv);
  DeviceSample s;
  s.time = {1'000'000'000, 1'700'000'000'000'000'000};
  s.values.set(DeviceMetric::PowerWatts, v);
  std::string row;
  csv->device(row, s, DeviceInfo{}, 0);
  const std::size_t at = static_cast<std::size_t>(DeviceMetric::PowerWatts);
  std::size_t from = 0;
  for (std::size_t commas = 0; commas < 4 + at; ++commas) from = row.find(',', from) + 1;
  return row.substr(from, row.find(',', from) - from);
}

TEST(CsvNumbers, EveryValueReadsAsFmtWritesIt) {
  for (const double v : {0.0, -0.0, 1.0, -3.0, 2.5, 1980.0, 85520809984.0, 1e15 - 1, 1e15, -1e15, 1e16, 9007199254740992.0,
                         123456789012345.0, 0.1, 1e-7, -1234.5}) {
    EXPECT_EQ(cell(v), fmt::format("{}", v)) << v;
  }
}

}  // namespace
}  // namespace gpuwatch
