#include "render/report_training.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/training.h"
#include "render/step_timing.h"
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

// "12 marks, 3 signal": the kinds of events left out of a table.
std::string by_kind(const std::map<std::string, std::size_t>& omitted) {
  std::string out;
  for (const auto& [kind, n] : omitted) {
    if (n == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}{}", n, kind, n == 1 || kind.ends_with('s') ? "" : "s");
  }
  return out;
}

}  // namespace

void add_training(Document& doc, const RunReport& r) {
  if (!r.training) return;
  const TrainingSummary& t = *r.training;
  doc.heading("Training (from annotations)");
  std::string progress;
  if (t.last_step) progress += fmt::format("last step {}", *t.last_step);
  if (t.epochs > 0) progress += fmt::format("{}{} epoch{}", progress.empty() ? "" : ", ", t.epochs, t.epochs == 1 ? "" : "s");
  if (t.marks > 0) progress += fmt::format("{}{} mark{}", progress.empty() ? "" : ", ", t.marks, t.marks == 1 ? "" : "s");
  if (t.marks_dropped > 0) {
    progress += fmt::format("{}{} more mark{} not stored (too many, too fast)", progress.empty() ? "" : ", ",
                            t.marks_dropped, t.marks_dropped == 1 ? "" : "s");
  }
  if (t.logs_dropped > 0) {
    progress += fmt::format("{}{} log message{} not stored (too many different names)", progress.empty() ? "" : ", ",
                            t.logs_dropped, t.logs_dropped == 1 ? "" : "s");
  }
  if (t.model_params) {
    progress += fmt::format("{}model {} parameters", progress.empty() ? "" : ", ", human_count(*t.model_params));
  }
  if (!progress.empty()) doc.line(progress);
  if (t.step_timing) doc.line("Measured by the loop: " + step_timing_line(*t.step_timing));
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
      doc.line(fmt::format("Driver: GPU {} {} peak {}", d->info.index, info(DeviceMetric::MemUsedBytes).short_label,
                           human_bytes(d->find(DeviceMetric::MemUsedBytes)->max)));
    }
  }
}

void add_events(Document& doc, const RunReport& r, bool full) {
  std::vector<const Event*> listed;
  std::set<std::string> internal;  // kinds left out: the recorder's own
  for (const Event& e : r.events) {
    if (e.kind == "epoch" || e.kind == "phase") continue;
    if (!full && is_internal_event(e)) {
      internal.insert(e.kind);
    } else {
      listed.push_back(&e);
    }
  }
  if (listed.empty()) return;
  doc.heading("Events");
  TextTable t;
  t.header = {"time", "kind", "gpu", "message"};
  t.first_numeric_column = 99;  // all text; a long message folds under its column
  std::map<std::string, std::size_t> omitted;
  for (const auto& [kind, n] : r.events_omitted) {
    if (kind != "epoch" && kind != "phase" && (full || !internal.contains(kind))) omitted[kind] += n;
  }
  const std::size_t half = kEventRowsShown / 2;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const Event& e = *listed[i];
    if (listed.size() > kEventRowsShown && i >= half && i < listed.size() - half) {
      ++omitted[e.kind];
      if (i == half) t.rows.push_back({"...", "", "", ""});
      continue;
    }
    t.rows.push_back({iso_local(e.time.wall_ns).substr(11, 12), e.kind,
                      e.device_index ? std::to_string(*e.device_index) : std::string("-"), e.message});
  }
  doc.table(std::move(t));
  const std::string left_out = by_kind(omitted);
  if (!left_out.empty()) {
    doc.line(fmt::format("Not listed: {} (report --format json lists up to {} of each kind).", left_out,
                         kEventsKeptPerKind));
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
  w.field("marks_dropped", static_cast<std::uint64_t>(t.marks_dropped));
  w.field("logs_dropped", static_cast<std::uint64_t>(t.logs_dropped));
  w.field("model_params", t.model_params);
  write_step_timing(w, "step_timing", t.step_timing);
  w.field("step_timing_skipped", static_cast<std::uint64_t>(t.step_timing_skipped));
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
  w.field("driver_gpu", d ? std::optional<int>(d->info.index) : std::nullopt);
  w.field("driver_used_peak_bytes",
          d ? std::optional<double>(d->find(DeviceMetric::MemUsedBytes)->max) : std::nullopt);
  w.end_object();
  w.end_object();
}

}  // namespace gpuwatch
