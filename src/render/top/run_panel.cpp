#include "render/top/run_panel.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/step_timing.h"
#include "render/step_timing.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// A command line from the store; ScreenLine escapes what a terminal would
// act on (an escape sequence in an argument), visibly (render/terminal_text.h).
std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) out += (out.empty() ? "" : " ") + arg;
  return out;
}

Style severity_style(Severity s) {
  switch (s) {
    case Severity::Critical: return Style::Bad;
    case Severity::Warning: return Style::Warn;
    case Severity::Info: return Style::Normal;
  }
  return Style::Normal;
}

std::vector<const Advisory*> most_severe_first(const std::vector<Advisory>& advisories) {
  std::vector<const Advisory*> out;
  for (const Advisory& a : advisories) out.push_back(&a);
  std::stable_sort(out.begin(), out.end(), [](const Advisory* a, const Advisory* b) { return a->severity > b->severity; });
  return out;
}

// `advisories`: the run's, most severe first.
ScreenLine title_line(const RunStatusReport& s, const std::vector<const Advisory*>& advisories, std::size_t width) {
  const RunInfo& r = s.run;
  ScreenLine line;
  line.add("run ", Style::Title).add(r.name.empty() ? r.id : r.name, Style::Title);
  if (!r.name.empty() && !r.id.empty()) line.add(" " + r.id, Style::Dim);
  line.add(fmt::format("  {} {}", s.live ? "recording" : std::string(to_string(r.status)), human_duration(s.age_s)));
  const Style verdict_style = advisories.empty() ? Style::Good : severity_style(advisories.front()->severity);
  line.add("  verdict: ").add(s.verdict, verdict_style);
  if (!r.command.empty() && line.width() + 4 < width) line.add("  " + joined(r.command), Style::Dim);
  return line;
}

// "data wait 62.0 %  step time 0.120 s": the loop's own measurement over the
// window; "data wait –" while the training does not time its steps, so that
// an annotated run always shows where the number will be.
void add_step_timing(ScreenLine& line, const std::optional<StepTiming>& t) {
  line.add(std::string(kDataWaitShareInfo.short_label) + " ", Style::Dim);
  if (!t) {
    line.add("–  ", Style::Dim);
    return;
  }
  line.add(data_wait_text(*t)).add("  ");
  line.add(std::string(kStepTimeInfo.short_label) + " ", Style::Dim).add(step_time_text(*t)).add("  ");
}

ScreenLine progress_line(const RunStatusReport& s) {
  const Progress& p = s.progress_now;
  ScreenLine line("  ");
  if (!p.epoch && !p.step && !p.loss && !s.step_timing_now) {
    return line.add("no epoch, step or loss logged yet (record --annotate-regex, or the annotation socket)", Style::Dim);
  }
  if (p.epoch) line.add("epoch ", Style::Dim).add(*p.epoch).add("  ");
  if (p.step) line.add("step ", Style::Dim).add(std::to_string(*p.step)).add("  ");
  // Steps/s compares two windows: "–" until the run is a window old.
  if (p.step || s.steps_per_second) {
    line.add(s.steps_per_second ? fmt::format("{:.2f}", *s.steps_per_second) : "–", s.steps_per_second ? Style::Normal : Style::Dim)
        .add(" steps/s  ", Style::Dim);
  }
  add_step_timing(line, s.step_timing_now);
  if (p.loss) {
    line.add("loss ", Style::Dim).add(fmt::format("{:.4g}", *p.loss));
    if (s.progress_before.loss) line.add(fmt::format(" (was {:.4g})", *s.progress_before.loss), Style::Dim);
  }
  return line;
}

}  // namespace

std::size_t run_panel_height(const TopView& view) {
  if (!view.run) return view.run_error.empty() ? 0 : 1;
  return 2 + std::max<std::size_t>(1, std::min(view.run->advisories.size(), kMaxRunAdvisoryLines));
}

std::vector<ScreenLine> run_panel(const TopView& view, std::size_t width) {
  std::vector<ScreenLine> out;
  if (!view.run) {
    if (!view.run_error.empty()) out.emplace_back("run: " + view.run_error, Style::Bad);
    return out;
  }
  const RunStatusReport& s = *view.run;
  const auto advisories = most_severe_first(s.advisories);
  out.push_back(title_line(s, advisories, width));
  out.push_back(progress_line(s));
  if (advisories.empty()) out.emplace_back("  no advisories", Style::Dim);
  for (std::size_t i = 0; i < advisories.size() && i < kMaxRunAdvisoryLines; ++i) {
    const Advisory& a = *advisories[i];
    ScreenLine line("  ");
    line.add(std::string(to_string(a.severity)), severity_style(a.severity)).add(" ");
    // Said before the summary, which the width may cut.
    if (i + 1 == kMaxRunAdvisoryLines && advisories.size() > kMaxRunAdvisoryLines) {
      line.add(fmt::format("(+{} more in gpuwatch status) ", advisories.size() - kMaxRunAdvisoryLines), Style::Dim);
    }
    if (a.device_index) line.add(fmt::format("GPU {}: ", *a.device_index));
    line.add(a.summary);
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace gpuwatch
