#include "bench/bench_render.h"

#include <fmt/format.h>

#include "base/json_writer.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

void write_block(JsonWriter& w, std::string_view name, const std::optional<StatBlock>& b) {
  w.key(name);
  if (!b) {
    w.null();
    return;
  }
  w.begin_object();
  w.field("min", b->min);
  w.field("max", b->max);
  w.field("avg", b->avg);
  w.field("samples", static_cast<std::uint64_t>(b->samples));
  w.end_object();
}

std::optional<std::string> optional_text(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

void write_test(JsonWriter& w, const BenchTest& t) {
  const WorkerResult& r = t.result;
  const TestResources& res = t.resources;
  w.begin_object();
  // seed 003's fields
  w.field("test_name", r.test_name);
  w.field("test_type", r.test_type);
  w.field("description", r.description);
  w.field("model_name", r.model_name);
  w.field("batch_size", r.batch_size);
  w.field("duration_seconds", r.duration_seconds);
  w.field("iterations", r.iterations);
  w.field("throughput_samples_per_second", r.throughput_samples_per_second);
  w.field("avg_iteration_time_ms", r.avg_iteration_time_ms);
  // The worker's own view (allocator) when it has one, else the driver's peak during the test.
  w.field("peak_gpu_memory_mb", r.peak_gpu_memory_mb ? r.peak_gpu_memory_mb
                                : res.gpu_memory_mb ? std::optional(res.gpu_memory_mb->max)
                                                    : std::nullopt);
  w.field("peak_gpu_utilization_percent",
          res.gpu_util_percent ? std::optional(res.gpu_util_percent->max) : std::nullopt);
  w.field("success", r.success);
  w.field("error_message", optional_text(r.error_message));
  write_block(w, "gpu_utilization_stats", res.gpu_util_percent);
  write_block(w, "gpu_memory_stats", res.gpu_memory_mb);
  write_block(w, "gpu_power_stats", res.gpu_power_watts);
  write_block(w, "gpu_temperature_stats", res.gpu_temperature_celsius);
  write_block(w, "cpu_utilization_stats", res.cpu_percent);
  write_block(w, "system_memory_stats", res.system_memory_mb);
  // ours
  w.field("worker", t.worker);
  w.field("gpu", r.gpu);
  w.field("precision", optional_text(r.precision));
  w.field("amp", r.amp);
  w.field("channels_last", r.channels_last);
  w.field("achieved_tflops", r.tflops);
  w.field("achieved_gb_per_s", r.gb_per_s);
  w.field("latency_us", r.latency_us);
  w.field("peak_value", t.peak ? std::optional(t.peak->value) : std::nullopt);
  w.field("peak_unit", t.peak ? std::optional(t.peak->unit) : std::nullopt);
  w.field("peak_source", t.peak ? std::optional(t.peak->source) : std::nullopt);
  w.field("percent_of_peak", t.percent_of_peak);
  w.field("throttled_percent", res.throttled_percent);
  w.key("throttle_reasons").begin_array();
  for (const std::string& reason : res.throttle_reasons) w.value(reason);
  w.end_array();
  w.field("straggler", t.straggler);
  w.end_object();
}

}  // namespace

std::string render_bench_json(const BenchRun& run) {
  std::string out;
  JsonWriter w(out, true);
  w.begin_object();
  w.field("schema_version", kBenchSchemaVersion);
  const BenchSystemInfo& s = run.system;
  w.key("system_info").begin_object();
  w.field("hostname", s.hostname);
  w.key("gpu_names").begin_array();
  for (const std::string& n : s.gpu_names) w.value(n);
  w.end_array();
  w.field("cuda_version", s.cuda_version);
  w.field("pytorch_version", s.torch_version);
  w.field("driver_version", optional_text(s.driver_version));
  w.field("device", s.device);
  w.field("cpu_count", s.cpu_count);
  w.field("total_memory_gb", s.memory_total_bytes / 1e9);
  w.field("gpuwatch_version", s.gpuwatch_version);
  w.field("timestamp", iso_utc_ms(run.start_wall_ns));
  w.end_object();
  w.key("test_summary").begin_object();
  w.field("suite", run.suite);
  w.field("quick", run.quick);
  w.field("actual_duration_seconds", run.duration_s);
  w.field("metrics_sample_rate_seconds", run.sample_interval_s);
  w.field("total_tests", static_cast<std::uint64_t>(run.tests.size()));
  w.field("successful_tests", static_cast<std::uint64_t>(run.tests.size() - run.failed_tests()));
  w.field("failed_tests", static_cast<std::uint64_t>(run.failed_tests()));
  w.key("errors").begin_array();
  for (const std::string& e : run.errors) w.value(e);
  w.end_array();
  w.key("warnings").begin_array();
  for (const std::string& e : run.warnings) w.value(e);
  w.end_array();
  w.key("skipped").begin_array();
  for (const std::string& e : run.skipped) w.value(e);
  w.end_array();
  w.end_object();
  w.key("results").begin_array();
  for (const BenchTest& t : run.tests) write_test(w, t);
  w.end_array();
  w.key("per_gpu").begin_array();
  for (const BenchSpread& sp : run.spreads) {
    w.begin_object();
    w.field("test", sp.test);
    w.field("metric", sp.metric);
    w.key("gpus").begin_array();
    for (int g : sp.spread.gpus) w.value(g);
    w.end_array();
    w.key("values").begin_array();
    for (double v : sp.spread.values) w.value(v);
    w.end_array();
    w.field("cv_percent", sp.spread.cv_percent);
    w.field("quality", to_string(sp.spread.band));
    w.field("straggler_gpu", sp.spread.straggler_gpu);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out.push_back('\n');
  return out;
}

}  // namespace gpuwatch
