#include "render/top/graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

// U+2581..U+2588, lower one eighth to full block.
constexpr std::array<std::string_view, 9> kBlocks{" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

}  // namespace

std::vector<std::string> block_graph(std::span<const double> values, double full_scale, std::size_t columns,
                                     std::size_t rows) {
  std::vector<std::string> out(rows);
  if (rows == 0) return out;
  const std::size_t shown = std::min(values.size(), columns);
  const std::size_t blank = columns - shown;
  for (auto& row : out) row.assign(blank, ' ');
  const auto levels = static_cast<double>(rows * 8);
  for (std::size_t i = values.size() - shown; i < values.size(); ++i) {
    const double v = values[i];
    if (!std::isfinite(v)) {
      for (auto& row : out) row += ' ';
      continue;
    }
    const double share = full_scale > 0 ? std::clamp(v / full_scale, 0.0, 1.0) : 0.0;
    // At least one eighth: a zero still draws a floor.
    const auto level = std::max<long>(1, std::lround(share * levels));
    for (std::size_t r = 0; r < rows; ++r) {
      const long floor_level = static_cast<long>((rows - 1 - r) * 8);
      out[r] += kBlocks[static_cast<std::size_t>(std::clamp(level - floor_level, 0L, 8L))];
    }
  }
  return out;
}

std::vector<double> metric_history(const LiveDevice& device, DeviceMetric metric, std::size_t count) {
  const std::size_t n = std::min(count, device.values.size());
  std::vector<double> out;
  out.reserve(n);
  // Carry forward from before the shown span too, so the first columns of a
  // slow metric are not blank.
  double last = kNaN;
  const std::size_t first = device.values.size() - n;
  for (std::size_t i = 0; i < device.values.size(); ++i) {
    if (const auto v = device.values[i].get(metric)) {
      last = *v;
    } else if (info(metric).cadence == Cadence::Fast) {
      last = kNaN;  // a fast metric missing from a tick was not answered then
    }
    if (i >= first) out.push_back(last);
  }
  return out;
}

namespace {

// Round steps between ticks, in seconds: a tick every step.
constexpr std::array<double, 15> kTickSteps{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600};
// Columns from one tick to the next at least: "-15m" and a gap.
constexpr double kMinTickColumns = 10;

std::string age_label(double age_s) {
  const auto s = std::lround(age_s);
  if (s % 3600 == 0) return fmt::format("-{}h", s / 3600);
  if (s % 60 == 0) return fmt::format("-{}m", s / 60);
  return fmt::format("-{}s", s);
}

}  // namespace

std::string time_axis(std::size_t columns, double seconds_per_column) {
  std::string out(columns, ' ');
  constexpr std::string_view kNow = "now";
  if (columns < kNow.size()) return out;
  out.replace(columns - kNow.size(), kNow.size(), kNow);
  if (!(seconds_per_column > 0)) return out;
  const auto step = std::find_if(kTickSteps.begin(), kTickSteps.end(),
                                 [&](double s) { return s / seconds_per_column >= kMinTickColumns; });
  if (step == kTickSteps.end()) return out;
  std::size_t free_end = columns - kNow.size() - 1;  // labels end before this column, a gap before the next
  for (double age = *step;; age += *step) {
    const double back = age / seconds_per_column;  // columns left of the newest
    if (back >= static_cast<double>(columns)) break;
    const std::string label = age_label(age);
    const auto end = columns - static_cast<std::size_t>(std::lround(back));  // one past the tick's column
    if (end > free_end || end < label.size()) continue;
    out.replace(end - label.size(), label.size(), label);
    free_end = end - label.size() > 0 ? end - label.size() - 1 : 0;
  }
  return out;
}

double seconds_per_sample(const LiveDevice& device, double fallback) {
  const auto& t = device.mono_ns;
  constexpr std::size_t kGaps = 8;
  if (t.size() < 2) return fallback;
  std::vector<double> gaps;
  for (std::size_t i = t.size() - std::min(t.size() - 1, kGaps); i < t.size(); ++i) {
    gaps.push_back(static_cast<double>(t[i] - t[i - 1]) / 1e9);
  }
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(gaps.size() / 2), gaps.end());
  return gaps[gaps.size() / 2];
}

std::vector<double> memory_percent_history(const LiveDevice& device, std::size_t count) {
  auto used = metric_history(device, DeviceMetric::MemUsedBytes, count);
  const auto total = metric_history(device, DeviceMetric::MemTotalBytes, count);
  for (std::size_t i = 0; i < used.size(); ++i) {
    used[i] = total[i] > 0 ? used[i] / total[i] * 100 : kNaN;
  }
  return used;
}

}  // namespace gpuwatch

namespace gpuwatch {

std::string horizontal_bar(double share, std::size_t columns) {
  // U+258F..U+2589: one eighth to seven eighths, left-aligned.
  static constexpr std::array<std::string_view, 8> kEighths{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  std::string out;
  if (!std::isfinite(share)) return std::string(columns, ' ');
  const auto eighths = static_cast<std::size_t>(std::lround(std::clamp(share, 0.0, 1.0) * static_cast<double>(columns * 8)));
  std::size_t used = 0;
  for (; used < eighths / 8; ++used) out += "█";
  if (eighths % 8 != 0 && used < columns) {
    out += kEighths[eighths % 8];
    ++used;
  }
  out.append(columns - used, ' ');
  return out;
}

}  // namespace gpuwatch
