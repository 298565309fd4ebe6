#include "render/step_timing.h"

#include <cstdint>

#include <fmt/format.h>

#include "core/step_timing.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

std::string timing_cell(const MetricInfo& info, std::optional<double> v) {
  return v ? display_value(info.display, *v) : std::string("-");
}

std::string timing_value_text(const MetricInfo& info, std::optional<double> v) {
  if (!v) return "-";
  return timing_cell(info, v) + " " + std::string(info.display.unit);
}

}  // namespace

std::string data_wait_text(const StepTiming& t) { return timing_value_text(kDataWaitShareInfo, t.data_wait_percent()); }

std::string step_time_text(const StepTiming& t) { return timing_value_text(kStepTimeInfo, t.mean_step_s()); }

std::string data_wait_cell(const StepTiming& t) { return timing_cell(kDataWaitShareInfo, t.data_wait_percent()); }

std::string step_time_cell(const StepTiming& t) { return timing_cell(kStepTimeInfo, t.mean_step_s()); }

std::string data_wait_column() { return column_title(kDataWaitShareInfo.short_label, kDataWaitShareInfo.display); }

std::string step_time_column() { return column_title(kStepTimeInfo.short_label, kStepTimeInfo.display); }

std::string step_timing_line(const StepTiming& t) {
  return fmt::format("{} {} of each step, {} {} ({} steps)", kDataWaitShareInfo.short_label, data_wait_text(t),
                     kStepTimeInfo.short_label, step_time_text(t), human_count(t.steps));
}

void write_step_timing(JsonWriter& w, std::string_view key, const std::optional<StepTiming>& t) {
  w.key(key);
  if (!t) {
    w.null();
    return;
  }
  w.begin_object();
  w.field(kDataWaitShareInfo.name, t->data_wait_percent());
  w.field(kStepTimeInfo.name, t->mean_step_s());
  w.field(kTimedStepsInfo.name, t->steps);
  w.field("messages", static_cast<std::uint64_t>(t->messages));
  w.end_object();
}

}  // namespace gpuwatch
