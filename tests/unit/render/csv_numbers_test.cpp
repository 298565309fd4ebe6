// CSV's values are written as fmt's "{}" writes a double (the shortest form
// that reads back the same); whole numbers take a faster path that must give
// the very same text, at its edges too: -0, 10^15, 10^16, the largest
// integers a double holds exactly.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "render/sample_format.h"
#include "render/units.h"

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

// A row's first four cells as the format string "{},{},{},{}" wrote them
// before rows reused the second's text and the device's name cell: across
// second boundaries, with a name that needs quoting and one that changes.
TEST(CsvNumbers, TimeGpuAndNameCellsReadAsBefore) {
  auto csv = make_sample_formatter(OutputFormat::csv);
  const std::int64_t start_mono_ns = 5'000'000'000;
  const std::int64_t first_wall_ns = 1'700'000'000'998'000'000;
  const std::int64_t steps_ns[] = {0, 1'000'000, 2'500'000, 999'000'000, 1'000'000'000, 60'004'000'000};
  for (const std::int64_t step_ns : steps_ns) {
    for (const std::string name : {"NVIDIA H200", "GPU \"7\", spare", "NVIDIA H200"}) {
      DeviceSample s;
      s.device_index = 3;
      s.time = {start_mono_ns + step_ns, first_wall_ns + step_ns};
      DeviceInfo info;
      info.name = name;
      std::string row;
      csv->device(row, s, info, start_mono_ns);
      const std::string quoted = name.find(',') == std::string::npos ? name : "\"GPU \"\"7\"\", spare\"";
      const std::string expected = fmt::format("{},{},{},{},", iso_utc_ms(s.time.wall_ns),
                                               static_cast<double>(step_ns) / 1e9, 3, quoted);
      EXPECT_EQ(row.substr(0, expected.size()), expected) << step_ns << " " << name;
    }
  }
}

}  // namespace
}  // namespace gpuwatch
