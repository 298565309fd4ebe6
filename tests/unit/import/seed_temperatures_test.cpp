// Per-sensor temperatures through the seed files: gpuwatch writes gputop.py's
// `temperatures` object with the card's own sensor names, and reads it back
// into temp_gpu/junction/mem_celsius.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "analysis/run_report.h"
#include "import/import.h"
#include "render/report.h"
#include "render/seed_files.h"
#include "render/units.h"
#include "zone_guard.h"

namespace gpuwatch {
namespace {

using DM = DeviceMetric;
constexpr std::int64_t kS = 1'000'000'000;

struct Temps {
  double gpu = kNaN;
  double junction = kNaN;
  double mem = kNaN;
};

// One GPU sampled once a second with the given temperatures.
RunData run_of(const std::string& name, const std::string& vendor, const std::vector<Temps>& rows) {
  RunData run;
  run.run.name = "temps";
  run.run.start_mono_ns = 5 * kS;
  run.run.start_wall_ns = 1'756'000'000 * kS;
  DeviceSeries s;
  s.info.name = name;
  s.info.vendor = vendor;
  s.values.assign(kDeviceMetricCount, std::vector<double>(rows.size(), kNaN));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto t = static_cast<std::int64_t>(i) * kS;
    s.mono_ns.push_back(run.run.start_mono_ns + t);
    s.wall_ns.push_back(run.run.start_wall_ns + t);
    s.values[static_cast<std::size_t>(DM::GpuUtilPercent)][i] = 63.6;
    s.values[static_cast<std::size_t>(DM::MemTotalBytes)][i] = 49152 * kMiB;
    s.values[static_cast<std::size_t>(DM::MemUsedBytes)][i] = 1424.3 * kMiB;
    s.values[static_cast<std::size_t>(DM::PowerWatts)][i] = 164.6;
    s.values[static_cast<std::size_t>(DM::TempGpuCelsius)][i] = rows[i].gpu;
    s.values[static_cast<std::size_t>(DM::TempJunctionCelsius)][i] = rows[i].junction;
    s.values[static_cast<std::size_t>(DM::TempMemCelsius)][i] = rows[i].mem;
  }
  run.devices.push_back(std::move(s));
  return run;
}

// The W7900 of gputop.py's README (VENDORS.md, "Realistic values, AMD"):
// edge 56.3/73 °C average/maximum, junction 72.7/94, memory 69.1/85. Two
// samples a second apart weigh the same, so each pair averages to those.
RunData w7900_run() {
  return run_of("AMD Radeon Pro W7900", "AMD", {{39.6, 51.4, 53.2}, {73, 94, 85}});
}

std::string single_json(const RunData& run) {
  std::string text;
  write_seed_single_json(run, std::nullopt, [&text](std::string_view s) { text += s; });
  return text;
}

std::string multi_json(const RunData& run) {
  std::string text;
  write_seed_multi_json(run, [&text](std::string_view s) { text += s; });
  return text;
}

double at(const DeviceSeries& s, DM m, std::size_t i) { return s.values[static_cast<std::size_t>(m)][i]; }

class SeedTemperatures : public ::testing::Test {
  ZoneGuard zone_{"UTC0"};
};

TEST_F(SeedTemperatures, AmdCardWritesGputopsSensorNamesAndGpuType) {
  const std::string out = single_json(w7900_run());
  EXPECT_NE(out.find(R"("gpu_type":"amd")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("temperature":73,"temperatures":{"Edge":73,"Junction":94,"Memory":85})"), std::string::npos)
      << out;
}

TEST_F(SeedTemperatures, Mi300xHasNoEdgeToWrite) {
  // No edge sensor: the GPU temperature is the junction's (amdgpu backend).
  const std::string out = single_json(run_of("AMD Instinct MI300X OAM", "AMD", {{49, 49, 43}}));
  EXPECT_NE(out.find(R"("temperature":49,"temperatures":{"Junction":49,"Memory":43})"), std::string::npos) << out;
}

TEST_F(SeedTemperatures, OneSensorWritesNoObjectAndOtherVendorsNameTheirsGpu) {
  const std::string one = single_json(run_of("NVIDIA A10G", "NVIDIA", {{60, kNaN, kNaN}}));
  EXPECT_EQ(one.find("temperatures"), std::string::npos) << one;
  EXPECT_NE(one.find(R"("gpu_type":"nvidia")"), std::string::npos) << one;
  const std::string intel = single_json(run_of("Intel Arc Pro B50", "Intel", {{59, kNaN, 52}}));
  EXPECT_NE(intel.find(R"("gpu_type":"intel")"), std::string::npos) << intel;
  EXPECT_NE(intel.find(R"("temperatures":{"GPU":59,"Memory":52})"), std::string::npos) << intel;
}

TEST_F(SeedTemperatures, W7900SummaryIsProducedAndReadBack) {
  const RunData run = w7900_run();
  for (const std::string& format : {std::string("gputop-json"), std::string("gputop-multi-json")}) {
    const ImportResult r = import_text(format == "gputop-json" ? single_json(run) : multi_json(run), "w7900");
    EXPECT_EQ(r.format, format);
    EXPECT_EQ(r.samples_dropped, 0u);
    ASSERT_EQ(r.data.devices.size(), 1u);
    const DeviceSeries& s = r.data.devices[0];
    EXPECT_EQ(s.info.vendor, "AMD");  // from gpu_type "amd"
    ASSERT_EQ(s.mono_ns.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      for (DM m : {DM::TempGpuCelsius, DM::TempJunctionCelsius, DM::TempMemCelsius}) {
        EXPECT_DOUBLE_EQ(at(s, m, i), at(run.devices[0], m, i)) << format << " " << info(m).name << " row " << i;
      }
    }
    const RunReport report = build_report(r.data);
    ASSERT_EQ(report.devices.size(), 1u);
    const DeviceReport& d = report.devices[0];
    const Summary* edge = d.find(DM::TempGpuCelsius);
    const Summary* junction = d.find(DM::TempJunctionCelsius);
    const Summary* mem = d.find(DM::TempMemCelsius);
    ASSERT_TRUE(edge && junction && mem) << format;
    EXPECT_NEAR(edge->mean, 56.3, 1e-9);
    EXPECT_EQ(edge->max, 73);
    EXPECT_NEAR(junction->mean, 72.7, 1e-9);
    EXPECT_EQ(junction->max, 94);
    EXPECT_NEAR(mem->mean, 69.1, 1e-9);
    EXPECT_EQ(mem->max, 85);
    const std::string text = render_report_text(report);
    EXPECT_NE(text.find("junction temp °C  72.7  51.4  94.0"), std::string::npos) << text;
  }
}

TEST_F(SeedTemperatures, Mi300xRoundTripKeepsTheJunctionAsGpuTemperature) {
  const ImportResult r = import_text(single_json(run_of("AMD Instinct MI300X OAM", "AMD", {{49, 49, 43}})), "mi300x");
  ASSERT_EQ(r.data.devices.size(), 1u);
  const DeviceSeries& s = r.data.devices[0];
  EXPECT_EQ(at(s, DM::TempGpuCelsius, 0), 49);
  EXPECT_EQ(at(s, DM::TempJunctionCelsius, 0), 49);
  EXPECT_EQ(at(s, DM::TempMemCelsius, 0), 43);
}

TEST_F(SeedTemperatures, HotspotIsTheJunctionAndNoSensorIsInvented) {
  const ImportResult r = import_text(R"([
    {"timestamp": "2025-08-27T01:42:18.120034", "gpu_type": "amd", "temperatures": {"Hotspot": 43.0, "Memory": 62.0}},
    {"timestamp": "2025-08-27T01:42:19.120034", "gpu_type": "nvidia_desktop", "gpu_index": 1,
     "temperatures": {"GPU": 60.0}}
  ])", "hotspot");
  ASSERT_EQ(r.data.devices.size(), 2u);
  const DeviceSeries& amd = r.data.devices[0];
  EXPECT_EQ(at(amd, DM::TempJunctionCelsius, 0), 43);
  EXPECT_EQ(at(amd, DM::TempGpuCelsius, 0), 43);  // no edge: the hotspot stands for the GPU
  EXPECT_EQ(at(amd, DM::TempMemCelsius, 0), 62);
  const DeviceSeries& nvidia = r.data.devices[1];
  EXPECT_EQ(at(nvidia, DM::TempGpuCelsius, 0), 60);
  for (DM m : nvidia.info.supported) EXPECT_NE(m, DM::TempJunctionCelsius);
  for (const std::string& w : r.warnings) EXPECT_EQ(w.find("Hotspot"), std::string::npos) << w;
}

}  // namespace
}  // namespace gpuwatch
