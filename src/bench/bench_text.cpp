#include "bench/bench_render.h"

#include <map>

#include <fmt/format.h>

#include "render/table.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

std::string result_text(const WorkerResult& r) {
  if (!r.success) return "failed";
  if (r.tflops) return fmt::format("{:.1f} TFLOP/s", *r.tflops);
  if (r.gb_per_s) return fmt::format("{:.1f} GB/s", *r.gb_per_s);
  if (r.throughput_samples_per_second) return fmt::format("{:.1f} samples/s", *r.throughput_samples_per_second);
  if (r.latency_us) return fmt::format("{:.2f} µs", *r.latency_us);
  return "-";
}

std::string maybe(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("-");
}

std::string unit_of(const std::string& metric) {
  if (metric == "tflops") return "TFLOP/s";
  if (metric == "gb_per_s") return "GB/s";
  return "samples/s";
}

// The resources a test used, headed and shown as the catalogue says
// (core/metrics.h): each metric's tag and display unit (the statistic in
// the note under the table: ten columns fit 110 only so); whole numbers
// but for memory. The bench keeps memory in MiB, as seed 003.
struct ResourceColumn {
  DeviceMetric metric;
  std::string_view statistic;  // "highest", "mean": what of the test's samples
  std::optional<StatBlock> TestResources::*block;
  double StatBlock::*value;
  double to_stored = 1;  // the block's unit to the catalogue's stored one
  bool whole = true;
};

constexpr ResourceColumn kResourceColumns[] = {
    {DeviceMetric::GpuUtilPercent, "highest", &TestResources::gpu_util_percent, &StatBlock::max},
    {DeviceMetric::MemUsedBytes, "highest", &TestResources::gpu_memory_mb, &StatBlock::max, kMiB, false},
    {DeviceMetric::PowerWatts, "mean", &TestResources::gpu_power_watts, &StatBlock::avg},
    {DeviceMetric::TempGpuCelsius, "highest", &TestResources::gpu_temperature_celsius, &StatBlock::max},
};

std::string resource_cell(const TestResources& res, const ResourceColumn& c) {
  const std::optional<StatBlock>& block = res.*c.block;
  if (!block) return "-";
  const DisplayFormat& f = info(c.metric).display;
  return display_value(c.whole ? rounded(f, 0) : f, (*block).*c.value * c.to_stored);
}

// "util %: the highest during the test; ...; power W: the mean during the test."
std::string resources_note() {
  std::string out;
  for (const ResourceColumn& c : kResourceColumns) {
    out += fmt::format("{}{}: the {} during the test", out.empty() ? "" : "; ", tag_title(info(c.metric)), c.statistic);
  }
  return out + ".\n";
}

}  // namespace

std::string render_bench_table(const BenchRun& run) {
  Table t;
  t.columns = {{"test", false, true, 16}, {"gpu"}, {"result", true}, {"% peak", true}};
  for (const ResourceColumn& c : kResourceColumns) {
    t.columns.push_back({tag_title(info(c.metric)), true});
  }
  t.columns.insert(t.columns.end(), {{"throttled", true}, {"", false}});
  for (const BenchTest& test : run.tests) {
    const WorkerResult& r = test.result;
    const TestResources& res = test.resources;
    std::vector<std::string> row{r.test_name, r.gpu ? std::to_string(*r.gpu) : std::string("all"), result_text(r),
                                 maybe(test.percent_of_peak, "{:.0f} %")};
    for (const ResourceColumn& c : kResourceColumns) row.push_back(resource_cell(res, c));
    row.push_back(maybe(res.throttled_percent, "{:.0f} %"));
    row.push_back(test.straggler ? "straggler" : "");
    t.rows.push_back(std::move(row));
  }
  std::string out = fmt::format("gpuwatch bench ({} suite{}) on {}: {} tests, {} failed, {:.0f} s\n\n", run.suite,
                                run.quick ? ", quick" : "", run.system.hostname, run.tests.size(), run.failed_tests(),
                                run.duration_s);
  for (const std::string& suite : run.skipped) out += fmt::format("skipped {}\n", suite);
  if (!run.skipped.empty()) out += "\n";
  out += render_text_table(t, 110);
  for (const BenchTest& test : run.tests) {
    if (!test.result.success) out += fmt::format("FAILED {}: {}\n", test.result.test_name, test.result.error_message);
  }
  if (!run.spreads.empty()) {
    out += "\nThe same test on every GPU (CV of the results; seed bands 5/10/20 %):\n";
    for (const BenchSpread& s : run.spreads) {
      out += fmt::format("  {:<28} CV {:5.1f} % {}{}\n", s.test, s.spread.cv_percent, to_string(s.spread.band),
                         s.spread.straggler_gpu ? fmt::format(", GPU {} lags ({})", *s.spread.straggler_gpu, unit_of(s.metric))
                                                : "");
    }
  }
  for (const std::string& e : run.errors) out += fmt::format("error: {}\n", e);
  for (const std::string& w : run.warnings) out += fmt::format("warning: {}\n", w);
  out += "\n% peak: of the datasheet's dense peak (matmul, memory bandwidth) or of the PCIe link (host-device).\n";
  out += resources_note();
  return out;
}

std::string render_bench_comparison(const BenchFile& a, const BenchFile& b) {
  auto label = [](const BenchFile& f) {
    std::string gpus = f.gpu_names.empty() ? std::string("no GPU") : f.gpu_names.front();
    if (f.gpu_names.size() > 1) gpus = fmt::format("{} x {}", f.gpu_names.size(), gpus);
    return fmt::format("{} ({}, {})", f.path, f.hostname.empty() ? "?" : f.hostname, gpus);
  };
  std::string out = fmt::format("A: {}\nB: {}\n\n", label(a), label(b));
  Table t;
  t.columns = {{"test", false, true, 16}, {"gpu"}, {"A", true}, {"B", true}, {"B/A", true}, {"unit"}};
  std::map<std::pair<std::string, std::optional<int>>, const BenchFileTest*> in_b;
  std::map<std::string, std::size_t> name_count;
  for (const BenchFileTest& x : b.tests) {
    in_b[{x.test_name, x.gpu}] = &x;
    ++name_count[x.test_name];
  }
  // Seed 003's files name no GPU: a test that ran once matches by name alone.
  auto find_in_b = [&](const BenchFileTest& x) -> const BenchFileTest* {
    if (const auto it = in_b.find({x.test_name, x.gpu}); it != in_b.end()) return it->second;
    if (name_count[x.test_name] != 1) return nullptr;
    for (const BenchFileTest& y : b.tests) {
      if (y.test_name == x.test_name && (!x.gpu || !y.gpu)) return &y;
    }
    return nullptr;
  };
  std::size_t matched = 0;
  auto value = [](const BenchFileTest& x) -> std::optional<double> {
    if (!x.success) return std::nullopt;
    return x.value ? x.value : x.latency_us;
  };
  for (const BenchFileTest& x : a.tests) {
    const BenchFileTest* match = find_in_b(x);
    if (!match) continue;
    ++matched;
    const BenchFileTest& y = *match;
    const auto va = value(x);
    const auto vb = value(y);
    const std::string unit = x.value ? x.unit : (x.latency_us ? "µs (lower is better)" : "");
    t.rows.push_back({x.test_name, x.gpu ? std::to_string(*x.gpu) : std::string("all"),
                      va ? fmt::format("{:.2f}", *va) : std::string(x.success ? "-" : "failed"),
                      vb ? fmt::format("{:.2f}", *vb) : std::string(y.success ? "-" : "failed"),
                      va && vb && *va != 0 ? fmt::format("{:.2f}", *vb / *va) : std::string("-"), unit});
  }
  if (matched == 0) return out + "No test of A is in B (they ran different suites).\n";
  out += render_text_table(t, 110);
  if (matched < a.tests.size() || matched < b.tests.size()) {
    out += fmt::format("\n{} test(s) only in A, {} only in B: not shown.\n", a.tests.size() - matched,
                       b.tests.size() - matched);
  }
  return out;
}

}  // namespace gpuwatch
