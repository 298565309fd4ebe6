// One vocabulary of keys across gpuwatch's JSON: the GPU index is "gpu" in
// every document and line, and every document and line says its
// schema_version (docs/report-json.md, "Changed in schema_version 2").
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "render/report.h"
#include "render/runs.h"
#include "render/sample_format.h"
#include "report_test_util.h"

namespace gpuwatch {
namespace {

namespace dom = simdjson::dom;

// Every key of `e`, at any depth.
void collect_keys(dom::element e, std::set<std::string>& keys) {
  if (dom::object o; e.get_object().get(o) == simdjson::SUCCESS) {
    for (auto [key, value] : o) {
      keys.emplace(key);
      collect_keys(value, keys);
    }
  } else if (dom::array a; e.get_array().get(a) == simdjson::SUCCESS) {
    for (dom::element x : a) collect_keys(x, keys);
  }
}

void expect_no_old_gpu_keys(const std::set<std::string>& keys) {
  for (const char* old : {"index", "gpu_index", "device", "device_index", "driver_gpu_index"}) {
    EXPECT_FALSE(keys.contains(old)) << old;
  }
}

TEST(JsonKeys, ReportNamesTheGpuGpuEverywhere) {
  RunReport r = report_test::report(60);
  ProcessRecord process;
  process.pid = 42;
  process.name = "python";
  r.processes.push_back(process);
  r.events.push_back({.time = {}, .device_index = 0, .kind = "xid", .message = "79"});
  r.verdict = "warning";
  Advisory a;
  a.id = "util.input_bound";
  a.severity = Severity::Warning;
  a.device_index = 0;
  a.explained_by = AdvisoryRef{"util.low", 0};
  r.advisories.push_back(a);
  const std::string json = render_report_json(r);
  dom::parser parser;
  const dom::element doc = parser.parse(json);
  EXPECT_EQ(std::int64_t(doc["schema_version"]), kReportSchemaVersion);
  EXPECT_EQ(std::int64_t(doc["devices"].at(0)["gpu"]), 0);
  EXPECT_EQ(std::int64_t(doc["processes"].at(0)["gpu"]), 0);
  EXPECT_EQ(std::int64_t(doc["events"].at(0)["gpu"]), 0);
  EXPECT_EQ(std::int64_t(doc["advisories"].at(0)["gpu"]), 0);
  EXPECT_EQ(std::int64_t(doc["advisories"].at(0)["explained_by"]["gpu"]), 0);
  std::set<std::string> keys;
  collect_keys(doc, keys);
  expect_no_old_gpu_keys(keys);
}

TEST(JsonKeys, RunsIsAnObjectWithItsVersion) {
  RunInfo run;
  run.id = "0123456789ab";
  run.name = "train";
  dom::parser parser;
  const dom::element doc = parser.parse(render_runs_json({run}));
  EXPECT_EQ(std::int64_t(doc["schema_version"]), kRunsJsonSchemaVersion);
  EXPECT_EQ(std::string_view(doc["runs"].at(0)["id"]), "0123456789ab");
  EXPECT_EQ(doc["runs"].get_array().size(), 1u);
}

TEST(JsonKeys, EveryJsonLineSaysItsVersionAndGpu) {
  const auto lines = make_sample_formatter(OutputFormat::jsonl);
  std::string out;
  DeviceSample device;
  device.device_index = 1;
  device.values.set(DeviceMetric::PowerWatts, 300);
  DeviceInfo info;
  info.index = 1;
  lines->device(out, device, info, 0);
  lines->host(out, HostSample{}, 0);
  ProcessRecord process;
  process.device_index = 1;
  process.pid = 7;
  lines->process(out, process);
  lines->event(out, Event{.time = {}, .device_index = 1, .kind = "xid", .message = "79"}, 0);
  dom::parser parser;
  std::size_t count = 0;
  for (std::size_t start = 0, end = 0; (end = out.find('\n', start)) != std::string::npos; start = end + 1) {
    const dom::element line = parser.parse(out.substr(start, end - start));
    EXPECT_EQ(std::int64_t(line["schema_version"]), kSampleLinesSchemaVersion) << out;
    if (std::string_view(line["type"]) != "host") {
      EXPECT_EQ(std::int64_t(line["gpu"]), 1) << out;
    }
    std::set<std::string> keys;
    collect_keys(line, keys);
    expect_no_old_gpu_keys(keys);
    ++count;
  }
  EXPECT_EQ(count, 4u) << out;
  std::string csv;
  make_sample_formatter(OutputFormat::csv)->begin(csv);
  EXPECT_TRUE(csv.starts_with("timestamp,elapsed_s,gpu,gpu_name,")) << csv;
}

}  // namespace
}  // namespace gpuwatch
