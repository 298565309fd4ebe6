#include "bench/bench_file.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <simdjson.h>

namespace gpuwatch {

namespace dom = simdjson::dom;

namespace {

std::optional<double> number(dom::object o, std::string_view key) {
  double d = 0;
  dom::element e;
  if (o[key].get(e) != simdjson::SUCCESS || e.is_bool()) return std::nullopt;
  if (e.get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::string text(dom::object o, std::string_view key) {
  std::string_view s;
  return o[key].get_string().get(s) == simdjson::SUCCESS ? std::string(s.substr(0, 1024)) : std::string();
}

BenchFileTest test_of(dom::object o) {
  BenchFileTest t;
  t.test_name = text(o, "test_name");
  t.test_type = text(o, "test_type");
  // "gpu" since schema_version 2, "gpu_index" in older files.
  auto g = number(o, "gpu");
  if (!g) g = number(o, "gpu_index");
  if (g && *g >= 0 && *g < 1e6 && std::floor(*g) == *g) t.gpu = static_cast<int>(*g);
  bool ok = false;
  t.success = o["success"].get_bool().get(ok) == simdjson::SUCCESS && ok;
  if (auto v = number(o, "achieved_tflops")) {
    t.value = v;
    t.unit = "TFLOP/s";
  } else if (auto gb = number(o, "achieved_gb_per_s")) {
    t.value = gb;
    t.unit = "GB/s";
  } else if (auto s = number(o, "throughput_samples_per_second")) {
    t.value = s;
    t.unit = "samples/s";
  }
  t.latency_us = number(o, "latency_us");
  t.percent_of_peak = number(o, "percent_of_peak");
  t.peak_gpu_utilization_percent = number(o, "peak_gpu_utilization_percent");
  dom::object power;
  if (o["gpu_power_stats"].get_object().get(power) == simdjson::SUCCESS) t.avg_power_watts = number(power, "avg");
  return t;
}

}  // namespace

BenchFile parse_bench_file(std::string_view text_in, const std::string& path) {
  dom::parser parser;
  dom::element root;
  dom::object top;
  if (parser.parse(text_in.data(), text_in.size()).get(root) != simdjson::SUCCESS ||
      root.get_object().get(top) != simdjson::SUCCESS) {
    throw BenchFileError(fmt::format("{}: not a JSON object", path));
  }
  dom::array results;
  if (top["results"].get_array().get(results) != simdjson::SUCCESS) {
    throw BenchFileError(fmt::format("{}: no \"results\" array: not a bench result file", path));
  }
  BenchFile f;
  f.path = path;
  dom::object system;
  if (top["system_info"].get_object().get(system) == simdjson::SUCCESS) {
    f.hostname = text(system, "hostname");
    dom::array names;
    if (system["gpu_names"].get_array().get(names) == simdjson::SUCCESS) {
      for (dom::element n : names) {
        std::string_view s;
        if (n.get_string().get(s) == simdjson::SUCCESS) f.gpu_names.emplace_back(s.substr(0, 256));
      }
    }
  }
  for (dom::element r : results) {
    dom::object o;
    if (r.get_object().get(o) != simdjson::SUCCESS) continue;
    BenchFileTest t = test_of(o);
    if (!t.test_name.empty()) f.tests.push_back(std::move(t));
  }
  return f;
}

BenchFile read_bench_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BenchFileError(fmt::format("cannot read {}", path.string()));
  std::ostringstream s;
  s << in.rdbuf();
  return parse_bench_file(s.str(), path.string());
}

}  // namespace gpuwatch
