#include "analysis/training.h"

#include <algorithm>
#include <charconv>

#include "analysis/job_gpus.h"
#include "analysis/run_verdict.h"
#include "core/step_timing.h"

namespace gpuwatch {

namespace {

void raise_peak(std::optional<double>& peak, double v) { peak = std::max(peak.value_or(v), v); }

}  // namespace

std::optional<double> latest_logged(std::span<const Event> events, std::string_view name) {
  for (auto e = events.rbegin(); e != events.rend(); ++e) {
    if (e->kind != "log") continue;
    for (const auto& [n, v] : parse_log_message(e->message)) {
      if (n == name) return v;
    }
  }
  return std::nullopt;
}

bool is_dense_annotation(const Event& e) { return e.kind == "step" || e.kind == "log"; }

bool is_internal_event(const Event& e) {
  return e.kind == kJobGpusEventKind || e.kind == kAdvisorConfigEventKind || e.kind == "marks_dropped" ||
         e.kind == "logs_dropped";
}

std::optional<TrainingSummary> summarize_training(std::span<const Event> events) {
  TrainingSummary t;
  bool any = false;
  std::optional<std::string_view> last_epoch;
  for (const Event& e : events) {
    if (e.kind == "step") {
      if (const auto v = parse_finite_number(e.message)) t.last_step = static_cast<std::int64_t>(*v);
    } else if (e.kind == "epoch") {
      // Runs recorded before the recorder dropped repeats hold one event per
      // line that said "Epoch 3".
      if (!e.message.empty() && e.message != last_epoch) ++t.epochs;
      last_epoch = e.message;
    } else if (e.kind == "mark") {
      ++t.marks;
    } else if (e.kind == "marks_dropped" || e.kind == "logs_dropped") {
      // "190000 marks not stored ...": the count so far, the latest the largest.
      const std::string_view m = e.message;
      std::size_t n = 0;
      std::from_chars(m.data(), m.data() + m.size(), n);
      std::size_t& dropped = e.kind == "marks_dropped" ? t.marks_dropped : t.logs_dropped;
      dropped = std::max(dropped, n);
    } else if (e.kind == "log") {
      for (const auto& [logged_name, v] : parse_log_message(e.message)) {
        // A plain reference: clang before 16 cannot capture a structured binding in the lambda below (P1091).
        const auto& name = logged_name;
        if (name == "model_params") {
          t.model_params = v;
        } else if (name == "torch_allocated_bytes") {
          raise_peak(t.torch_allocated_peak_bytes, v);
        } else if (name == "torch_reserved_bytes") {
          raise_peak(t.torch_reserved_peak_bytes, v);
        } else if (name == "torch_max_allocated_bytes") {
          raise_peak(t.torch_max_allocated_bytes, v);
        } else if (!is_step_timing_name(name)) {
          auto s = std::find_if(t.scalars.begin(), t.scalars.end(), [&](const ScalarSummary& x) { return x.name == name; });
          if (s == t.scalars.end()) {
            t.scalars.push_back({std::string(name), 0, v, v, v, v});
            s = t.scalars.end() - 1;
          }
          ++s->count;
          s->last = v;
          s->min = std::min(s->min, v);
          s->max = std::max(s->max, v);
        }
      }
    } else if (e.kind != "phase") {
      continue;
    }
    any = true;
  }
  if (!any) return std::nullopt;
  const std::vector<StepTimingMessage> timing = step_timing_messages(events, &t.step_timing_skipped);
  t.step_timing = total_step_timing(timing);
  return t;
}

}  // namespace gpuwatch
