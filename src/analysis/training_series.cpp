#include "analysis/training_series.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "analysis/step_timing.h"
#include "core/log_message.h"
#include "core/step_timing.h"

namespace gpuwatch {

namespace {

// Logged names that are not a value over time of the training's own: the
// report shows them apart (analysis/training.h).
bool apart_from_scalars(std::string_view name) {
  return name == "model_params" || name.starts_with("torch_") || is_step_timing_name(name) ||
         name == kBatchSizeLogName;
}

ScalarSeries& series_named(std::vector<ScalarSeries>& all, std::string_view name) {
  auto it = std::find_if(all.begin(), all.end(), [&](const ScalarSeries& s) { return s.name == name; });
  if (it != all.end()) return *it;
  all.push_back({std::string(name), {}});
  return all.back();
}

struct SplitWord {
  std::string_view word;
  ScalarSplit split;
};
constexpr std::array<SplitWord, 6> kSplitWords{{
    {"train", ScalarSplit::Train},
    {"val", ScalarSplit::Val},
    {"valid", ScalarSplit::Val},
    {"validation", ScalarSplit::Val},
    {"eval", ScalarSplit::Val},
    {"test", ScalarSplit::Test},
}};

bool split_separator(char c) { return c == '_' || c == '.'; }

}  // namespace

TrainingSeries training_series(std::span<const Event> events) {
  TrainingSeries out;
  for (const Event& e : events) {
    if (e.kind == "step") {
      if (const auto v = parse_finite_number(e.message)) out.steps.push_back({e.time.wall_ns, *v});
      continue;
    }
    if (e.kind != "log") continue;
    for (const auto& [name, v] : parse_log_message(e.message)) {
      if (name == kBatchSizeLogName) {
        out.batch_size.push_back({e.time.wall_ns, v});
      } else if (!apart_from_scalars(name)) {
        series_named(out.scalars, name).points.push_back({e.time.wall_ns, v});
      }
    }
  }
  // The messages keep the monotonic clock; the events say how it stood to
  // the wall clock.
  const auto log = std::find_if(events.begin(), events.end(), [](const Event& e) { return e.kind == "log"; });
  if (log != events.end()) {
    const std::int64_t wall_minus_mono_ns = log->time.wall_ns - log->time.mono_ns;
    for (const StepTimingMessage& m : step_timing_messages(events)) {
      out.data_wait_percent.push_back({m.mono_ns + wall_minus_mono_ns, 100 * m.data_wait_s / m.step_time_s});
    }
  }
  const auto by_time = [](const TrainingPoint& a, const TrainingPoint& b) { return a.wall_ns < b.wall_ns; };
  std::stable_sort(out.steps.begin(), out.steps.end(), by_time);
  std::stable_sort(out.batch_size.begin(), out.batch_size.end(), by_time);
  std::stable_sort(out.data_wait_percent.begin(), out.data_wait_percent.end(), by_time);
  for (ScalarSeries& s : out.scalars) std::stable_sort(s.points.begin(), s.points.end(), by_time);
  return out;
}

ScalarName split_scalar_name(std::string_view name) {
  for (const SplitWord& w : kSplitWords) {
    const std::size_t n = w.word.size();
    if (name.size() > n + 1 && name.starts_with(w.word) && split_separator(name[n])) {
      return {std::string(name.substr(n + 1)), w.split};
    }
    if (name.size() > n + 1 && name.ends_with(w.word) && split_separator(name[name.size() - n - 1])) {
      return {std::string(name.substr(0, name.size() - n - 1)), w.split};
    }
  }
  return {std::string(name), ScalarSplit::Train};
}

std::string_view to_string(ScalarSplit split) {
  switch (split) {
    case ScalarSplit::Train: return "train";
    case ScalarSplit::Val: return "val";
    case ScalarSplit::Test: return "test";
  }
  return "train";
}

std::vector<TrainingPoint> step_rate(std::span<const TrainingPoint> steps, double window_s) {
  std::vector<TrainingPoint> out;
  std::size_t from = 0;
  for (std::size_t i = 1; i < steps.size(); ++i) {
    // A counter that restarted, or a pause longer than a window (an
    // evaluation): no rate across it.
    const double gap_s = static_cast<double>(steps[i].wall_ns - steps[i - 1].wall_ns) / 1e9;
    if (steps[i].value < steps[i - 1].value || gap_s > window_s) {
      from = i;
      continue;
    }
    const double dt_s = static_cast<double>(steps[i].wall_ns - steps[from].wall_ns) / 1e9;
    if (dt_s < window_s || dt_s <= 0) continue;
    out.push_back({steps[i].wall_ns, (steps[i].value - steps[from].value) / dt_s});
    from = i;
  }
  return out;
}

std::vector<TrainingPoint> sample_rate(std::span<const TrainingPoint> rate, std::span<const TrainingPoint> batch_size) {
  std::vector<TrainingPoint> out;
  if (batch_size.empty()) return out;
  std::size_t b = 0;
  for (const TrainingPoint& p : rate) {
    while (b + 1 < batch_size.size() && batch_size[b + 1].wall_ns <= p.wall_ns) ++b;
    out.push_back({p.wall_ns, p.value * batch_size[b].value});
  }
  return out;
}

std::optional<double> ProgressMap::at(std::int64_t wall) const {
  if (empty() || wall < wall_ns.front() || wall > wall_ns.back()) return std::nullopt;
  const auto it = std::upper_bound(wall_ns.begin(), wall_ns.end(), wall);
  const std::size_t i = it == wall_ns.end() ? wall_ns.size() - 2 : static_cast<std::size_t>(it - wall_ns.begin()) - 1;
  if (wall == wall_ns[i]) return progress[i];
  if (breaks_after[i]) return std::nullopt;
  const double share = static_cast<double>(wall - wall_ns[i]) / static_cast<double>(wall_ns[i + 1] - wall_ns[i]);
  return progress[i] + share * (progress[i + 1] - progress[i]);
}

namespace {

// Adds a knot; one at the time of the last replaces it (times stay strictly
// increasing).
void add_knot(ProgressMap& map, std::int64_t wall, double progress, bool break_after) {
  if (!map.wall_ns.empty() && map.wall_ns.back() >= wall) {
    if (map.wall_ns.back() > wall) return;
    map.progress.back() = progress;
    map.breaks_after.back() = break_after;
    return;
  }
  map.wall_ns.push_back(wall);
  map.progress.push_back(progress);
  map.breaks_after.push_back(break_after);
}

struct EpochSpan {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::string_view label;
};

std::vector<EpochSpan> epoch_spans(std::span<const Event> events, std::int64_t run_end_wall_ns) {
  std::vector<EpochSpan> spans;
  bool open = false;
  for (const Event& e : events) {
    if (e.kind != "epoch") continue;
    if (open && e.message == spans.back().label) continue;  // the same epoch, said again
    if (open) spans.back().end = e.time.wall_ns;
    open = !e.message.empty();
    if (open) spans.push_back({e.time.wall_ns, run_end_wall_ns, e.message});
  }
  return spans;
}

}  // namespace

ProgressMap step_progress(std::span<const TrainingPoint> steps) {
  ProgressMap map;
  for (const TrainingPoint& p : steps) {
    // A counter that went back would fold the axis onto itself.
    if (!map.progress.empty() && p.value < map.progress.back()) continue;
    add_knot(map, p.wall_ns, p.value, false);
  }
  return map;
}

ProgressMap epoch_progress(std::span<const Event> events, std::int64_t run_end_wall_ns) {
  const std::vector<EpochSpan> spans = epoch_spans(events, run_end_wall_ns);
  bool numbered = !spans.empty();
  for (const EpochSpan& s : spans) {
    const auto v = parse_finite_number(s.label);
    numbered = numbered && v && *v >= 0 && std::floor(*v) == *v;
  }
  ProgressMap map;
  double last = -1;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    double n = numbered ? *parse_finite_number(spans[i].label) : static_cast<double>(i);
    if (n <= last) n = last + 1;  // numbers that go back: the place wins
    last = n;
    if (spans[i].end <= spans[i].start) continue;
    const bool gap_after = i + 1 == spans.size() || spans[i + 1].start > spans[i].end;
    add_knot(map, spans[i].start, n, false);
    add_knot(map, spans[i].end, n + 1, gap_after);
  }
  return map;
}

}  // namespace gpuwatch
