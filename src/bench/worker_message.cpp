#include "bench/worker_message.h"

#include <cmath>

#include <fmt/format.h>
#include <simdjson.h>

namespace gpuwatch {

namespace dom = simdjson::dom;

namespace {

constexpr std::size_t kMaxLineBytes = 64 * 1024;
constexpr std::size_t kMaxTextBytes = 4096;

std::string text_of(dom::object o, std::string_view key) {
  std::string_view s;
  if (o[key].get_string().get(s) != simdjson::SUCCESS) return {};
  return std::string(s.substr(0, kMaxTextBytes));
}

std::optional<std::string> optional_text(dom::object o, std::string_view key) {
  std::string_view s;
  if (o[key].get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  return std::string(s.substr(0, kMaxTextBytes));
}

std::optional<double> number_of(dom::object o, std::string_view key) {
  dom::element e;
  if (o[key].get(e) != simdjson::SUCCESS || e.is_bool()) return std::nullopt;
  double d = 0;
  if (e.get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d)) return std::nullopt;
  return d;
}

// Device indices and batch sizes: whole numbers in a sane range.
std::optional<int> small_int(dom::object o, std::string_view key) {
  const auto d = number_of(o, key);
  if (!d || *d < 0 || *d > 1'000'000 || std::floor(*d) != *d) return std::nullopt;
  return static_cast<int>(*d);
}

bool flag(dom::object o, std::string_view key) {
  bool b = false;
  return o[key].get_bool().get(b) == simdjson::SUCCESS && b;
}

WorkerInfo info_of(dom::object o) {
  WorkerInfo info;
  info.worker = text_of(o, "worker");
  info.version = text_of(o, "version");
  info.device = text_of(o, "device");
  info.cuda_version = optional_text(o, "cuda_version");
  info.torch_version = optional_text(o, "torch_version");
  dom::array devices;
  if (o["devices"].get_array().get(devices) == simdjson::SUCCESS) {
    for (dom::element d : devices) {
      dom::object device;
      if (d.get_object().get(device) != simdjson::SUCCESS) continue;
      // "gpu", as in every other line; "index" from workers built before.
      auto index = small_int(device, "gpu");
      if (!index) index = small_int(device, "index");
      if (!index) continue;
      info.devices.push_back({*index, text_of(device, "name"), number_of(device, "memory_bytes")});
    }
  }
  return info;
}

WorkerResult result_of(dom::object o) {
  WorkerResult r;
  r.test_name = text_of(o, "test_name");
  r.test_type = text_of(o, "test_type");
  r.description = text_of(o, "description");
  r.model_name = text_of(o, "model_name");
  r.batch_size = small_int(o, "batch_size");
  r.gpu = small_int(o, "gpu");
  r.duration_seconds = number_of(o, "duration_seconds");
  r.iterations = number_of(o, "iterations");
  r.throughput_samples_per_second = number_of(o, "throughput_samples_per_second");
  r.avg_iteration_time_ms = number_of(o, "avg_iteration_time_ms");
  r.tflops = number_of(o, "tflops");
  r.gb_per_s = number_of(o, "gb_per_s");
  r.latency_us = number_of(o, "latency_us");
  r.peak_gpu_memory_mb = number_of(o, "peak_gpu_memory_mb");
  r.precision = text_of(o, "precision");
  r.amp = flag(o, "amp");
  r.channels_last = flag(o, "channels_last");
  r.success = flag(o, "success");
  r.error_message = text_of(o, "error_message");
  return r;
}

}  // namespace

std::optional<WorkerMessage> parse_worker_line(std::string_view line, std::string& why) {
  if (line.size() > kMaxLineBytes) {
    why = fmt::format("a line of {} bytes", line.size());
    return std::nullopt;
  }
  thread_local dom::parser parser;
  dom::element root;
  dom::object o;
  if (parser.parse(line.data(), line.size()).get(root) != simdjson::SUCCESS ||
      root.get_object().get(o) != simdjson::SUCCESS) {
    why = "not a JSON object";
    return std::nullopt;
  }
  WorkerMessage m;
  const std::string type = text_of(o, "type");
  if (type == "info") {
    m.kind = WorkerMessage::Kind::Info;
    m.info = info_of(o);
  } else if (type == "start") {
    m.kind = WorkerMessage::Kind::Start;
    m.test_name = text_of(o, "test_name");
    m.gpu = small_int(o, "gpu");
    if (m.test_name.empty()) {
      why = "a start without a test_name";
      return std::nullopt;
    }
  } else if (type == "result") {
    m.kind = WorkerMessage::Kind::Result;
    m.result = result_of(o);
    if (m.result.test_name.empty()) {
      why = "a result without a test_name";
      return std::nullopt;
    }
  } else if (type == "error") {
    m.kind = WorkerMessage::Kind::Error;
    m.message = text_of(o, "message");
  } else {
    why = fmt::format("unknown type \"{}\"", type.substr(0, 40));
    return std::nullopt;
  }
  return m;
}

}  // namespace gpuwatch
