// Which part of each run `compare` looks at: alignment and warm-up.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "analysis/compare.h"

namespace gpuwatch {

namespace {

std::string describe(const RunData& data, std::size_t index) {
  const RunInfo& r = data.run;
  return r.name.empty() ? fmt::format("{} ({})", run_label(index), r.id)
                        : fmt::format("{} ({}, {})", run_label(index), r.name, r.id);
}

// The count an "epoch" or "step" event carries as its whole message.
std::optional<double> count_in(std::string_view message) {
  double v = 0;
  auto [end, ec] = std::from_chars(message.data(), message.data() + message.size(), v);
  if (ec != std::errc() || end != message.data() + message.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

struct Mark {
  double elapsed_s;
  double unit;  // epoch or step number
};

std::vector<Mark> progress_marks(const RunData& data, std::string_view key) {
  std::vector<Mark> marks;
  const std::int64_t origin = run_origin_mono_ns(data);
  for (const Event& e : data.events) {
    if (e.kind != key) continue;
    if (auto v = count_in(e.message)) {
      marks.push_back({static_cast<double>(e.time.mono_ns - origin) / 1e9, *v});
    }
  }
  std::stable_sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.elapsed_s < b.elapsed_s; });
  return marks;
}

std::vector<ElapsedWindow> progress_windows(std::span<const RunData> runs, std::span<const double> ends_s,
                                            std::string_view key) {
  std::vector<std::vector<Mark>> marks;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    marks.push_back(progress_marks(runs[i], key));
    if (marks.back().empty()) {
      throw CompareError(fmt::format(
          "cannot align by {}: run {} has no {} annotations; compare by elapsed time (--align time) instead",
          key, describe(runs[i], i), key));
    }
    const auto [min_it, max_it] = std::minmax_element(marks.back().begin(), marks.back().end(),
                                                      [](const Mark& a, const Mark& b) { return a.unit < b.unit; });
    lo = std::max(lo, min_it->unit);
    hi = std::min(hi, max_it->unit);
  }
  if (lo > hi) throw CompareError(fmt::format("cannot align by {}: the runs reached no {} in common", key, key));
  std::vector<ElapsedWindow> windows;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ElapsedWindow w{0, ends_s[i]};
    const auto first = std::find_if(marks[i].begin(), marks[i].end(), [lo](const Mark& m) { return m.unit >= lo; });
    w.from_s = first->elapsed_s;  // exists: lo is at most this run's largest unit
    const auto past = std::find_if(first, marks[i].end(), [hi](const Mark& m) { return m.unit > hi; });
    if (past != marks[i].end()) w.to_s = past->elapsed_s;
    windows.push_back(w);
  }
  return windows;
}

}  // namespace

std::string run_label(std::size_t index) {
  if (index < 26) return std::string(1, static_cast<char>('A' + index));
  return fmt::format("R{}", index + 1);
}

std::string_view to_string(Alignment a) {
  switch (a) {
    case Alignment::ElapsedTime: return "elapsed_time";
    case Alignment::Epoch: return "epoch";
    case Alignment::Step: return "step";
  }
  return "elapsed_time";
}

std::string_view to_string(SpanMode s) { return s == SpanMode::Common ? "common" : "full"; }

std::vector<ElapsedWindow> compare_windows(std::span<const RunData> runs, const CompareOptions& options) {
  std::vector<double> ends;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunData& r = runs[i];
    const bool any_device_sample =
        std::any_of(r.devices.begin(), r.devices.end(), [](const DeviceSeries& d) { return !d.mono_ns.empty(); });
    if (!any_device_sample && r.host.mono_ns.empty()) {
      throw CompareError(fmt::format("run {} has no samples", describe(r, i)));
    }
    ends.push_back(run_end_elapsed_s(r));
  }
  return compare_windows(runs, ends, options);
}

std::vector<ElapsedWindow> compare_windows(std::span<const RunData> runs, std::span<const double> ends_s,
                                           const CompareOptions& options) {
  std::vector<ElapsedWindow> windows;
  if (options.alignment == Alignment::ElapsedTime) {
    const double common_end = *std::min_element(ends_s.begin(), ends_s.end());
    for (double end : ends_s) windows.push_back({0, options.span == SpanMode::Common ? common_end : end});
  } else {
    windows = progress_windows(runs, ends_s, options.alignment == Alignment::Epoch ? "epoch" : "step");
  }
  for (std::size_t i = 0; i < windows.size(); ++i) {
    windows[i].from_s = std::max(windows[i].from_s, options.warmup_s);
    if (windows[i].from_s > windows[i].to_s) {
      throw CompareError(fmt::format(
          "nothing left to compare in run {}: its compared part ends at {:.1f} s (it lasts {:.1f} s), "
          "before the warm-up of {:g} s is over",
          describe(runs[i], i), windows[i].to_s, ends_s[i], options.warmup_s));
    }
  }
  return windows;
}

}  // namespace gpuwatch
