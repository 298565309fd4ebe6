#include "render/prometheus/prometheus_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device_event_kinds.h"

namespace gpuwatch {
namespace {

DeviceInfo device(int index, std::string name, std::string vendor) {
  DeviceInfo d;
  d.index = index;
  d.backend = "nvml";
  d.vendor = std::move(vendor);
  d.name = std::move(name);
  d.uuid = "GPU-" + std::to_string(index);
  d.pci_bus_id = "00000000:0" + std::to_string(index) + ":00.0";
  return d;
}

LiveDevice live_device(int index, std::initializer_list<std::pair<DeviceMetric, double>> values) {
  LiveDevice d;
  d.index = index;
  for (const auto& [metric, value] : values) d.latest.values.set(metric, value);
  return d;
}

// Two GPUs: the first with a name that needs escaping and every metric the
// test reads, the second without power or a memory temperature.
PrometheusInput fixed_input() {
  PrometheusInput in;
  in.hostname = "node-1";
  in.version = "0.9.0";
  in.collectors = {{"nvml", true}, {"amdgpu", false}};
  in.devices = {device(1, "NVIDIA B200", "NVIDIA"), device(0, "NVIDIA \"H100\" \\ 80GB\nHBM3", "NVIDIA")};
  in.devices[1].static_values.set(DeviceMetric::MemTotalBytes, 85899345920.0);
  in.live.devices = {live_device(1, {{DeviceMetric::GpuUtilPercent, 7},
                                      {DeviceMetric::MemUsedBytes, 0},
                                      {DeviceMetric::MemTotalBytes, 2147483648.0},
                                      {DeviceMetric::TempGpuCelsius, 40},
                                      // read but no number: left out too
                                      {DeviceMetric::PowerWatts, kNaN}}),
                     live_device(0, {{DeviceMetric::GpuUtilPercent, 42},
                                      {DeviceMetric::MemUsedBytes, 1073741824.0},
                                      {DeviceMetric::PowerWatts, 300.5},
                                      {DeviceMetric::EnergyJoules, 12345.678},
                                      {DeviceMetric::TempGpuCelsius, 55},
                                      {DeviceMetric::TempMemCelsius, 61},
                                      {DeviceMetric::SmClockMhz, 1980},
                                      {DeviceMetric::SmActivePercent, 37.5},
                                      {DeviceMetric::SlowReadAgeSeconds, 0.25}})};
  in.live.host.latest.values.set(HostMetric::CpuPercent, 12.5);
  in.live.host.latest.values.set(HostMetric::MemTotalBytes, 68719476736.0);
  return in;
}

TEST(PrometheusText, EscapesLabelValues) {
  EXPECT_EQ(prometheus_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(prometheus_label_value("plain"), "plain");
}

TEST(PrometheusText, LabelValuesAreValidUtf8) {
  // A process may be named with any bytes; Prometheus refuses a scrape with
  // one label that is not UTF-8. Valid characters stay, others become U+FFFD.
  EXPECT_EQ(prometheus_label_value("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(prometheus_label_value("a\xff" "b"), "a\xef\xbf\xbd" "b");
  EXPECT_EQ(prometheus_label_value("\xc3"), "\xef\xbf\xbd");                    // cut short
  EXPECT_EQ(prometheus_label_value("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong
  EXPECT_EQ(prometheus_label_value("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
}

TEST(PrometheusText, NativeNamesUnitsAndLabels) {
  const std::string g0 =
      R"(gpu="0",uuid="GPU-0",pci_bus_id="00000000:00:00.0",name="NVIDIA \"H100\" \\ 80GB\nHBM3",vendor="NVIDIA",hostname="node-1")";
  const std::string g1 =
      R"(gpu="1",uuid="GPU-1",pci_bus_id="00000000:01:00.0",name="NVIDIA B200",vendor="NVIDIA",hostname="node-1")";
  const std::string expected =
      "# HELP gpuwatch_up Whether gpuwatch is sampling (1)\n"
      "# TYPE gpuwatch_up gauge\n"
      "gpuwatch_up 1\n"
      "# HELP gpuwatch_build_info gpuwatch's version, as a label\n"
      "# TYPE gpuwatch_build_info gauge\n"
      "gpuwatch_build_info{version=\"0.9.0\"} 1\n"
      "# HELP gpuwatch_collector_success Whether the backend's last sampling succeeded (1) or not (0)\n"
      "# TYPE gpuwatch_collector_success gauge\n"
      "gpuwatch_collector_success{backend=\"nvml\"} 1\n"
      "gpuwatch_collector_success{backend=\"amdgpu\"} 0\n"
      "# HELP gpuwatch_gpu_info A GPU's facts, as labels (always 1)\n"
      "# TYPE gpuwatch_gpu_info gauge\n"
      "gpuwatch_gpu_info{" + g0 + "} 1\n"
      "gpuwatch_gpu_info{" + g1 + "} 1\n"
      "# HELP gpuwatch_gpu_utilization_ratio GPU utilization (0-1, of time a kernel ran)\n"
      "# TYPE gpuwatch_gpu_utilization_ratio gauge\n"
      "gpuwatch_gpu_utilization_ratio{" + g0 + "} 0.42\n"
      "gpuwatch_gpu_utilization_ratio{" + g1 + "} 0.07\n"
      "# HELP gpuwatch_gpu_memory_used_bytes Memory used (B)\n"
      "# TYPE gpuwatch_gpu_memory_used_bytes gauge\n"
      "gpuwatch_gpu_memory_used_bytes{" + g0 + "} 1073741824\n"
      "gpuwatch_gpu_memory_used_bytes{" + g1 + "} 0\n"
      "# HELP gpuwatch_gpu_memory_total_bytes Memory total (B)\n"
      "# TYPE gpuwatch_gpu_memory_total_bytes gauge\n"
      "gpuwatch_gpu_memory_total_bytes{" + g0 + "} 85899345920\n"
      "gpuwatch_gpu_memory_total_bytes{" + g1 + "} 2147483648\n"
      "# HELP gpuwatch_gpu_power_watts Power (W)\n"
      "# TYPE gpuwatch_gpu_power_watts gauge\n"
      "gpuwatch_gpu_power_watts{" + g0 + "} 300.5\n"
      "# HELP gpuwatch_gpu_energy_joules_total Energy counter (J, since the driver loaded)\n"
      "# TYPE gpuwatch_gpu_energy_joules_total counter\n"
      "gpuwatch_gpu_energy_joules_total{" + g0 + "} 12345.678\n"
      "# HELP gpuwatch_gpu_temperature_celsius Temperature by sensor (°C)\n"
      "# TYPE gpuwatch_gpu_temperature_celsius gauge\n"
      "gpuwatch_gpu_temperature_celsius{" + g0 + ",sensor=\"gpu\"} 55\n"
      "gpuwatch_gpu_temperature_celsius{" + g1 + ",sensor=\"gpu\"} 40\n"
      "gpuwatch_gpu_temperature_celsius{" + g0 + ",sensor=\"memory\"} 61\n"
      "# HELP gpuwatch_gpu_sm_clock_hertz SM clock (Hz)\n"
      "# TYPE gpuwatch_gpu_sm_clock_hertz gauge\n"
      "gpuwatch_gpu_sm_clock_hertz{" + g0 + "} 1980000000\n"
      "# HELP gpuwatch_gpu_sm_active_ratio SM active (0-1)\n"
      "# TYPE gpuwatch_gpu_sm_active_ratio gauge\n"
      "gpuwatch_gpu_sm_active_ratio{" + g0 + "} 0.375\n"
      "# HELP gpuwatch_host_cpu_utilization_ratio Host CPU (0-1, all cores)\n"
      "# TYPE gpuwatch_host_cpu_utilization_ratio gauge\n"
      "gpuwatch_host_cpu_utilization_ratio{hostname=\"node-1\"} 0.125\n"
      "# HELP gpuwatch_host_memory_total_bytes Host memory total (B)\n"
      "# TYPE gpuwatch_host_memory_total_bytes gauge\n"
      "gpuwatch_host_memory_total_bytes{hostname=\"node-1\"} 68719476736\n";
  EXPECT_EQ(render_prometheus(fixed_input(), PrometheusNames::Native), expected);
}

TEST(PrometheusText, DcgmCompatNamesUnitsAndLabels) {
  const std::string out = render_prometheus(fixed_input(), PrometheusNames::DcgmCompat);
  const std::string g0 =
      R"(gpu="0",UUID="GPU-0",pci_bus_id="00000000:00:00.0",device="nvidia0",modelName="NVIDIA \"H100\" \\ 80GB\nHBM3",hostname="node-1")";
  const std::string g1 =
      R"(gpu="1",UUID="GPU-1",pci_bus_id="00000000:01:00.0",device="nvidia1",modelName="NVIDIA B200",hostname="node-1")";
  for (const std::string& line : std::vector<std::string>{
           "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n",
           "DCGM_FI_DEV_GPU_UTIL{" + g0 + "} 42\n",
           "DCGM_FI_DEV_GPU_UTIL{" + g1 + "} 7\n",
           "DCGM_FI_DEV_FB_USED{" + g0 + "} 1024\n",
           "DCGM_FI_DEV_FB_FREE{" + g0 + "} 80896\n",
           "DCGM_FI_DEV_FB_FREE{" + g1 + "} 2048\n",
           "DCGM_FI_DEV_POWER_USAGE{" + g0 + "} 300.5\n",
           "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n",
           "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" + g0 + "} 12345678\n",
           "DCGM_FI_DEV_GPU_TEMP{" + g1 + "} 40\n",
           "DCGM_FI_DEV_MEMORY_TEMP{" + g0 + "} 61\n",
           "DCGM_FI_DEV_SM_CLOCK{" + g0 + "} 1980\n",
           "DCGM_FI_PROF_SM_ACTIVE{" + g0 + "} 0.375\n",
           "gpuwatch_up 1\n",
       }) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\nin:\n" << out;
  }
  // Absent, never 0: the second GPU has no power and no memory temperature.
  EXPECT_EQ(out.find("DCGM_FI_DEV_POWER_USAGE{" + g1), std::string::npos) << out;
  EXPECT_EQ(out.find("DCGM_FI_DEV_MEMORY_TEMP{" + g1), std::string::npos) << out;
  // No native GPU series in this mode; no family without a sample.
  EXPECT_EQ(out.find("gpuwatch_gpu_"), std::string::npos) << out;
  EXPECT_EQ(out.find("DCGM_FI_PROF_DRAM_ACTIVE"), std::string::npos) << out;
}

// DCGM gives framebuffer sizes as whole MiB; its dashboards divide them as
// integers. 1 GiB + 0.7 MiB used of 80 GiB: 1024 used, 80895 free.
TEST(PrometheusText, DcgmCompatMebibytesAreWholeAsDcgmGivesThem) {
  PrometheusInput in = fixed_input();
  for (LiveDevice& d : in.live.devices) {
    if (d.index == 0) d.latest.values.set(DeviceMetric::MemUsedBytes, 1073741824.0 + 0.7 * 1048576.0);
  }
  const std::string out = render_prometheus(in, PrometheusNames::DcgmCompat);
  EXPECT_NE(out.find("DCGM_FI_DEV_FB_USED{gpu=\"0\""), std::string::npos) << out;
  EXPECT_NE(out.find("} 1024\n"), std::string::npos) << out;
  EXPECT_NE(out.find("} 80895\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("1024.7"), std::string::npos) << out;
  const std::string native = render_prometheus(in, PrometheusNames::Native);
  EXPECT_NE(native.find(" 1074475827.2\n"), std::string::npos) << "native bytes stay exact: " << native;
}

TEST(PrometheusText, DcgmCompatLeavesOutOtherVendors) {
  PrometheusInput in = fixed_input();
  in.devices[0].vendor = "AMD";
  const std::string out = render_prometheus(in, PrometheusNames::DcgmCompat);
  EXPECT_EQ(out.find("gpu=\"1\""), std::string::npos) << out;
  EXPECT_NE(out.find("gpu=\"0\""), std::string::npos) << out;
}

TEST(PrometheusText, EngineClassesAreOneFamilyWithAnEngineLabel) {
  PrometheusInput in = fixed_input();
  in.devices[1].vendor = "Intel";  // gpu 0, whose live values are live.devices[1]
  in.live.devices[1].latest.values.set(DeviceMetric::EngineGraphicsPercent, 90);
  in.live.devices[1].latest.values.set(DeviceMetric::EngineVideoEnhancePercent, 25);
  const std::string native = render_prometheus(in, PrometheusNames::Native);
  const std::string g0 = "gpu=\"0\"";
  const std::size_t help = native.find("# HELP gpuwatch_gpu_engine_utilization_ratio ");
  ASSERT_NE(help, std::string::npos) << native;
  EXPECT_EQ(native.find("# HELP gpuwatch_gpu_engine_utilization_ratio ", help + 1), std::string::npos);  // once
  const std::size_t graphics = native.find("gpuwatch_gpu_engine_utilization_ratio{" + g0);
  ASSERT_NE(graphics, std::string::npos) << native;
  EXPECT_NE(native.find(",engine=\"graphics\"} 0.9\n", graphics), std::string::npos) << native;
  EXPECT_NE(native.find(",engine=\"video_enhance\"} 0.25\n", graphics), std::string::npos) << native;
  EXPECT_EQ(native.find("engine=\"compute\""), std::string::npos) << native;  // absent, not 0
  EXPECT_EQ(render_prometheus(in, PrometheusNames::DcgmCompat).find("engine="), std::string::npos);
}

TEST(PrometheusText, LostDeviceKeepsOnlyItsInfo) {
  PrometheusInput in = fixed_input();
  in.live.devices[0].lost = Timestamp{};
  const std::string out = render_prometheus(in, PrometheusNames::Native);
  EXPECT_NE(out.find("gpuwatch_gpu_info{gpu=\"1\""), std::string::npos) << out;
  EXPECT_EQ(out.find("gpuwatch_gpu_utilization_ratio{gpu=\"1\""), std::string::npos) << out;
}

Event device_event(std::string_view kind, std::string message) {
  return Event{Timestamp{}, 0, std::string(kind), std::move(message)};
}

TEST(PrometheusText, DeviceErrorCountsReadTheXidFromTheMessage) {
  DeviceErrorCounts c;
  c.add(device_event(kXidEventKind, "XID 79: GPU has fallen off the bus"));
  c.add(device_event(kXidEventKind, "XID 79: GPU has fallen off the bus (GPU instance 1)"));
  c.add(device_event(kXidEventKind, "XID 154"));
  c.add(device_event(kXidEventKind, "XID error (the driver did not say which)"));
  c.add(device_event(kEccDoubleBitEventKind, "double-bit ECC error"));
  c.add(device_event(kEccSingleBitEventKind, "single-bit ECC error"));  // corrected: not counted
  c.add(device_event(kGpuLostEventKind, "XID 1"));                     // not an XID event
  const std::map<std::string, std::uint64_t> want{{"79", 2}, {"154", 1}, {"unknown", 1}};
  EXPECT_EQ(c.xid, want);
  EXPECT_EQ(c.ecc_double_bit, 1U);
}

TEST(PrometheusText, ErrorCountersOfNvidiaGpusOnly) {
  PrometheusInput in = fixed_input();
  in.devices.push_back(device(2, "AMD Instinct MI300X", "AMD"));
  const std::string without = render_prometheus(in, PrometheusNames::Native);
  EXPECT_EQ(without.find("_errors_total"), std::string::npos) << without;  // off unless asked for
  in.errors = std::map<int, DeviceErrorCounts>{};
  (*in.errors)[0].xid["79"] = 2;
  (*in.errors)[0].ecc_double_bit = 1;
  const std::string out = render_prometheus(in, PrometheusNames::Native);
  EXPECT_NE(out.find("# TYPE gpuwatch_gpu_xid_errors_total counter\n"), std::string::npos) << out;
  EXPECT_NE(out.find("gpuwatch_gpu_xid_errors_total{gpu=\"0\",uuid=\"GPU-0\""), std::string::npos) << out;
  EXPECT_NE(out.find("hostname=\"node-1\",xid=\"79\"} 2\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("gpuwatch_gpu_xid_errors_total{gpu=\"1\""), std::string::npos) << out;  // none yet
  EXPECT_NE(out.find("# TYPE gpuwatch_gpu_ecc_double_bit_errors_total counter\n"), std::string::npos) << out;
  EXPECT_NE(out.find("gpuwatch_gpu_ecc_double_bit_errors_total{gpu=\"0\""), std::string::npos) << out;
  // 0 before the first: increase() needs the series before the error.
  EXPECT_NE(out.find("gpuwatch_gpu_ecc_double_bit_errors_total{gpu=\"1\""), std::string::npos) << out;
  EXPECT_EQ(out.find("errors_total{gpu=\"2\""), std::string::npos) << out;  // AMD: no such events
  EXPECT_EQ(render_prometheus(in, PrometheusNames::DcgmCompat).find("_errors_total"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch
