// Labels, units and display scales come from the metric catalogue
// (core/metrics.h, core/derived_metrics.h) in every renderer, not from a
// table of its own: each test renders a document and looks for the words
// the catalogue gives the metrics it shows, built from the catalogue. A
// header spelled by hand ("util % mean", "max mem MiB", "pwr_W") fails here,
// and so does one left behind when the catalogue's words change. (bench's
// table: tests/unit/bench/bench_table_labels_test.cpp.)
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/derived_metrics.h"
#include "render/prometheus/prometheus_text.h"
#include "render/prometheus/prometheus_write.h"
#include "render/report.h"
#include "render/run_status.h"
#include "render/sample_format.h"
#include "render/units.h"
#include "report_test_util.h"

namespace gpuwatch {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// The first line of `text` that holds `needle`, or "".
std::string line_with(const std::string& text, const std::string& needle) {
  for (const std::string& line : lines_of(text)) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return {};
}

void expect_in(const std::string& line, const std::string& words) {
  EXPECT_NE(line.find(words), std::string::npos) << "'" << words << "' not in: " << line;
}

// Every metric has its words; a tag is one word (`sample`'s header is split
// at spaces by scripts, as dmon's is) and tells the metrics of its table apart.
void expect_words(std::span<const MetricInfo> table) {
  std::set<std::string_view> tags;
  for (const MetricInfo& m : table) {
    EXPECT_FALSE(m.label.empty()) << m.name;
    EXPECT_FALSE(m.short_label.empty()) << m.name;
    EXPECT_FALSE(m.tag.empty()) << m.name;
    EXPECT_EQ(m.tag.find(' '), std::string_view::npos) << m.name;
    EXPECT_TRUE(tags.insert(m.tag).second) << "two metrics tagged " << m.tag;
  }
}

TEST(CatalogueWords, EveryMetricHasItsWordsAndOneWordTags) {
  expect_words(kDeviceMetrics);
  expect_words(kHostMetrics);
  expect_words(kDerivedMetrics);
  expect_words(kProcessMetrics);
}

TEST(CatalogueWords, RecordSummaryHeader) {
  const std::string text = render_report_summary(report_test::report(60), {});
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_GE(lines.size(), 3u) << text;
  const std::string& header = lines[2];
  expect_in(header, column_title(info(DeviceMetric::GpuUtilPercent), "mean"));
  expect_in(header, std::string(info(DeviceMetric::MemUsedBytes).short_label) + " peak");
  expect_in(header, column_title(info(DeviceMetric::PowerWatts), "mean"));
  // The memory cell in the catalogue's unit and scale.
  expect_in(lines[3], " of 80.0 " + std::string(info(DeviceMetric::MemUsedBytes).display.unit));
}

RunReport report_with_segments_processes_and_host() {
  RunReport r = report_test::report(600);
  SegmentStats phase;
  phase.label = "train";
  phase.occurrences = 1;
  phase.duration_s = 600;
  SegmentDeviceStats d;
  d.util_percent = report_test::summary_of(50, 90);
  d.mem_used_bytes = report_test::summary_of(8 * kGiB, 9 * kGiB);
  d.power_watts = report_test::summary_of(300, 350);
  phase.devices.push_back(d);
  r.phases.push_back(phase);
  ProcessRecord p;
  p.pid = 42;
  p.name = "python";
  p.max_used_memory_bytes = 1024 * 1024 * 1024;
  p.max_gpu_percent = 80;
  p.gpu_percent_sum = 120;
  p.gpu_percent_reads = 2;
  r.processes.push_back(p);
  r.host.push_back({HostMetric::CpuPercent, report_test::summary_of(12, 20)});
  r.host.push_back({HostMetric::TreeRssBytes, report_test::summary_of(800 * kMiB, 900 * kMiB)});
  return r;
}

TEST(CatalogueWords, ReportSegmentProcessAndHostHeaders) {
  const std::string text = render_report_text(report_with_segments_processes_and_host());
  const std::string segments = line_with(text, "phase ");
  for (const DeviceMetric m : {DeviceMetric::GpuUtilPercent, DeviceMetric::MemUsedBytes, DeviceMetric::PowerWatts}) {
    expect_in(segments, column_title(info(m), "mean"));
  }
  const std::string processes = line_with(text, "pid");
  expect_in(processes, column_title(info(ProcessMetric::UsedMemoryBytes), "max"));
  expect_in(processes, column_title(info(ProcessMetric::GpuPercent), "mean"));
  expect_in(processes, column_title(info(ProcessMetric::GpuPercent), "max"));
  // 1 GiB in the process table's display unit, MiB.
  expect_in(line_with(text, "python"), " 1024 ");
  expect_in(line_with(text, std::string(info(HostMetric::CpuPercent).label)), "mean 12.0 %, max 20.0 %");
  expect_in(line_with(text, std::string(info(HostMetric::TreeRssBytes).label)), "mean 800 MiB, max 900 MiB");
}

TEST(CatalogueWords, SampleTableHeadsAreTagsOverUnits) {
  const auto formatter = make_sample_formatter(OutputFormat::text);
  std::string out;
  formatter->begin(out);
  const std::vector<std::string> lines = lines_of(out);
  ASSERT_EQ(lines.size(), 2u) << out;
  const std::vector<std::string> heads = words_of(lines[0]);
  const std::vector<std::string> units = words_of(lines[1]);
  const std::vector<DeviceMetric> shown{
      DeviceMetric::GpuUtilPercent, DeviceMetric::MemUtilPercent, DeviceMetric::MemUsedBytes,
      DeviceMetric::MemTotalBytes,  DeviceMetric::PowerWatts,     DeviceMetric::TempGpuCelsius,
      DeviceMetric::TempMemCelsius, DeviceMetric::SmClockMhz,     DeviceMetric::MemClockMhz,
      DeviceMetric::FanPercent,     DeviceMetric::PerfState,      DeviceMetric::ClockEventReasons};
  // "#", "time", "gpu", then one tag a metric; "#", then a unit a metric that has one.
  ASSERT_EQ(heads.size(), 3 + shown.size()) << lines[0];
  std::vector<std::string> expected_units{"#"};
  for (std::size_t i = 0; i < shown.size(); ++i) {
    EXPECT_EQ(heads[3 + i], info(shown[i]).tag);
    if (!info(shown[i]).display.unit.empty()) expected_units.emplace_back(info(shown[i]).display.unit);
  }
  EXPECT_EQ(units, expected_units) << lines[1];
}

TEST(CatalogueWords, StatusLineNamesMetricsByTag) {
  RunStatusReport s;
  s.run.id = "0123456789ab";
  GpuStatus g;
  g.now.util_percent = 87;
  g.now.mem_used_bytes = 12 * kGiB;
  g.now.mem_total_bytes = 80 * kGiB;
  g.now.power_watts = 250;
  g.now.temp_celsius = 61;
  s.gpus.push_back(g);
  const std::string line = line_with(render_run_status_text(s), "GPU 0");
  expect_in(line, fmt::format("{} 87 %", info(DeviceMetric::GpuUtilPercent).tag));
  expect_in(line, fmt::format("{} 12.0/80.0 GiB 15 %", info(DeviceMetric::MemUsedBytes).tag));
  expect_in(line, fmt::format("{} 250 W", info(DeviceMetric::PowerWatts).tag));
  expect_in(line, fmt::format("{} 61 °C", info(DeviceMetric::TempGpuCelsius).tag));
}

TEST(CatalogueWords, PrometheusHelpIsTheLabelAndTheExposedUnit) {
  PrometheusInput in;
  DeviceInfo d;
  d.index = 0;
  d.vendor = "NVIDIA";
  in.devices.push_back(d);
  LiveDevice live;
  live.index = 0;
  live.latest.values.set(DeviceMetric::PowerWatts, 250);
  live.latest.values.set(DeviceMetric::GpuUtilPercent, 50);
  live.latest.values.set(DeviceMetric::MemUsedBytes, kGiB);
  in.live.devices.push_back(live);
  const std::string native = render_prometheus(in, PrometheusNames::Native);
  using prometheus_text::metric_help;
  expect_in(native, "# HELP gpuwatch_gpu_power_watts " + metric_help(info(DeviceMetric::PowerWatts), {}, {}) + "\n");
  expect_in(native, "# HELP gpuwatch_gpu_memory_used_bytes " + metric_help(info(DeviceMetric::MemUsedBytes), {}, {}));
  expect_in(native, "# HELP gpuwatch_gpu_utilization_ratio " + std::string(info(DeviceMetric::GpuUtilPercent).label) +
                        " (0-1");
  const std::string dcgm = render_prometheus(in, PrometheusNames::DcgmCompat);
  expect_in(dcgm, "# HELP DCGM_FI_DEV_POWER_USAGE " + metric_help(info(DeviceMetric::PowerWatts), {}, {}) + "\n");
  expect_in(dcgm, "# HELP DCGM_FI_DEV_FB_USED " + metric_help(info(DeviceMetric::MemUsedBytes), "MiB", {}) + "\n");
}

}  // namespace
}  // namespace gpuwatch
