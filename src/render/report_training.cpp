#include "render/report_training.h"

#include <fmt/format.h>

#include "render/table.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// The GPU whose memory peaked highest: the one PyTorch's numbers are best
// set against (the client logs the current device, usually the only one).
const DeviceReport* fullest_gpu(const RunReport& r) {
  const DeviceReport* best = nullptr;
  for (const DeviceReport& d : r.devices) {
    const Summary* used = d.find(DeviceMetric::MemUsedBytes);
    if (used && (!best || used->max > best->find(DeviceMetric::MemUsedBytes)->max)) best = &d;
  }
  return best;
}

std::string number(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

void add_training(Document& doc, const RunReport& r) {
  if (!r.training) return;
  const TrainingSummary& t = *r.training;
  doc.heading("Training (from annotations)");
  std::string progress;
  if (t.last_step) progress += fmt::format("last step {}", *t.last_step);
  if (t.epochs > 0) progress += fmt::format("{}{} epoch{}", progress.empty() ? "" : ", ", t.epochs, t.epochs == 1 ? "" : "s");
  if (t.marks > 0) progress += fmt::format("{}{} mark{}", progress.empty() ? "" : ", ", t.marks, t.marks == 1 ? "" : "s");
  if (t.model_params) {
    progress += fmt::format("{}model {} parameters", progress.empty() ? "" : ", ", human_count(*t.model_params));
  }
  if (!progress.empty()) doc.line(progress);
  if (!t.scalars.empty()) {
    TextTable table;
    table.header = {"logged", "values", "first", "last", "min", "max"};
    for (const ScalarSummary& s : t.scalars) {
      table.rows.push_back({s.name, std::to_string(s.count), number(s.first), number(s.last), number(s.min),
                            number(s.max)});
    }
    doc.table(std::move(table));
  }
  if (t.torch_allocated_peak_bytes || t.torch_reserved_peak_bytes || t.torch_max_allocated_bytes) {
    std::string line = "PyTorch allocator:";
    if (t.torch_max_allocated_bytes) line += " max allocated " + human_bytes(*t.torch_max_allocated_bytes) + ",";
    if (t.torch_allocated_peak_bytes) line += " allocated peak " + human_bytes(*t.torch_allocated_peak_bytes) + ",";
    if (t.torch_reserved_peak_bytes) line += " reserved peak " + human_bytes(*t.torch_reserved_peak_bytes) + ",";
    line.pop_back();
    doc.line(line);
    if (const DeviceReport* d = fullest_gpu(r)) {
      // The gap is the CUDA context, other libraries' memory, other processes.
      doc.line(fmt::format("Driver: GPU {} memory used peak {}", d->info.index,
                           human_bytes(d->find(DeviceMetric::MemUsedBytes)->max)));
    }
  }
}

void write_training(JsonWriter& w, const RunReport& r) {
  w.key("training");
  if (!r.training) {
    w.null();
    return;
  }
  const TrainingSummary& t = *r.training;
  w.begin_object();
  w.field("last_step", t.last_step);
  w.field("epochs", static_cast<std::uint64_t>(t.epochs));
  w.field("marks", static_cast<std::uint64_t>(t.marks));
  w.field("model_params", t.model_params);
  w.key("scalars").begin_array();
  for (const ScalarSummary& s : t.scalars) {
    w.begin_object();
    w.field("name", s.name);
    w.field("count", static_cast<std::uint64_t>(s.count));
    w.field("first", s.first);
    w.field("last", s.last);
    w.field("min", s.min);
    w.field("max", s.max);
    w.end_object();
  }
  w.end_array();
  w.key("torch_memory").begin_object();
  w.field("allocated_peak_bytes", t.torch_allocated_peak_bytes);
  w.field("reserved_peak_bytes", t.torch_reserved_peak_bytes);
  w.field("max_allocated_bytes", t.torch_max_allocated_bytes);
  const DeviceReport* d = fullest_gpu(r);
  w.field("driver_gpu_index", d ? std::optional<int>(d->info.index) : std::nullopt);
  w.field("driver_used_peak_bytes",
          d ? std::optional<double>(d->find(DeviceMetric::MemUsedBytes)->max) : std::nullopt);
  w.end_object();
  w.end_object();
}

}  // namespace gpuwatch
