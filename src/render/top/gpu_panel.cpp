#include "render/top/gpu_panel.h"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "analysis/throttle.h"
#include "render/top/graph.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// A slow value older than this is shown dimmed: the slow thread is stuck or
// the driver stopped answering that call.
constexpr double kStaleSeconds = 5;
constexpr std::size_t kValueColumns = 19;  // "126.4/140.4 GiB 90%" (an H200)

// One GPU as the panel reads it: the latest sampled values, and the static
// ones (maximum clocks and link) that discovery read once.
struct GpuView {
  const DeviceInfo& info;
  const LiveDevice* device;  // null until the GPU's first sample
  std::int64_t now_mono_ns;

  [[nodiscard]] std::optional<double> get(DeviceMetric m) const {
    if (device != nullptr) {
      if (const auto v = device->latest.values.get(m)) return v;
    }
    return info.static_values.get(m);
  }
  // Dimmed when the value is missing or stale.
  [[nodiscard]] Style freshness(DeviceMetric m, Style fresh = Style::Normal) const {
    if (gpuwatch::info(m).cadence == Cadence::Static) return get(m) ? fresh : Style::Dim;
    if (device == nullptr) return Style::Dim;
    const auto age = device->latest.age_seconds(m, now_mono_ns);
    return !age || *age > stale_after_seconds() ? Style::Dim : fresh;
  }
  // A slow value reaches the screen up to one interval late: at long
  // intervals "stale" is three intervals, the gap between the last samples.
  [[nodiscard]] double stale_after_seconds() const {
    const auto& t = device->mono_ns;
    const double gap = t.size() >= 2 ? static_cast<double>(t[t.size() - 1] - t[t.size() - 2]) / 1e9 : 0;
    return std::max(kStaleSeconds, 3 * gap);
  }
  [[nodiscard]] bool lost() const { return device != nullptr && device->lost.has_value(); }
};

// Labels, units and scales are the catalogue's (core/metrics.h): each
// metric's tag, and its display unit, in whole numbers where a glance is
// enough (memory to 0.1 GiB).
std::string_view tag(DeviceMetric m) { return info(m).tag; }
DisplayFormat whole(DeviceMetric m) { return rounded(info(m).display, 0); }
std::string shown(DeviceMetric m, std::optional<double> v) { return v ? tight_text(whole(m), *v) : "–"; }

// A share of a total (memory used of the GPU's): "90%".
std::string percent_text(std::optional<double> v) { return v ? fmt::format("{:.0f}%", *v) : "–"; }

std::optional<double> memory_share(const GpuView& g) {
  const auto used = g.get(DeviceMetric::MemUsedBytes);
  const auto total = g.get(DeviceMetric::MemTotalBytes);
  if (!used || !total || *total <= 0) return std::nullopt;
  return *used / *total * 100;
}

std::string memory_text(const GpuView& g) {
  const auto used = g.get(DeviceMetric::MemUsedBytes);
  const auto total = g.get(DeviceMetric::MemTotalBytes);
  if (!used || !total) return "–";
  const DisplayFormat format = rounded(info(DeviceMetric::MemUsedBytes).display, 1);
  return fmt::format("{}/{} {}", display_value(format, *used), display_text(format, *total),
                     percent_text(memory_share(g)));
}

std::string power_text(const GpuView& g) {
  const auto power = g.get(DeviceMetric::PowerWatts);
  if (!power) return "–";
  const auto limit = g.get(DeviceMetric::PowerLimitWatts);
  const DisplayFormat format = whole(DeviceMetric::PowerWatts);
  return limit ? display_value(format, *power) + "/" + display_text(format, *limit) : display_text(format, *power);
}

std::string temp_text(std::optional<double> celsius) { return shown(DeviceMetric::TempGpuCelsius, celsius); }

// Severity thresholds (docs/top.md), so that a glance tells 3 % from 97 %:
// a GPU under 30 % busy waits for something (yellow), from 70 % it is used
// well (green); memory from 85 % full is close to running out (yellow), from
// 95 % at it (red); power from 95 % of its limit is capped (yellow).
constexpr double kUtilLowPercent = 30;
constexpr double kUtilGoodPercent = 70;
constexpr double kMemoryWarnPercent = 85;
constexpr double kMemoryBadPercent = 95;
constexpr double kPowerCappedShare = 0.95;

Style util_style(std::optional<double> percent) {
  if (!percent) return Style::Dim;
  if (*percent < kUtilLowPercent) return Style::Warn;
  return *percent >= kUtilGoodPercent ? Style::Good : Style::Normal;
}

Style memory_style(std::optional<double> percent) {
  if (!percent) return Style::Dim;
  if (*percent >= kMemoryBadPercent) return Style::Bad;
  return *percent >= kMemoryWarnPercent ? Style::Warn : Style::Normal;
}

Style power_style(std::optional<double> watts, std::optional<double> limit) {
  if (!watts) return Style::Dim;
  return limit && *limit > 0 && *watts >= kPowerCappedShare * *limit ? Style::Warn : Style::Normal;
}

Style temp_style(std::optional<double> celsius, double warn = 75, double bad = 85) {
  if (!celsius) return Style::Dim;
  if (*celsius >= bad) return Style::Bad;
  if (*celsius >= warn) return Style::Warn;
  return Style::Normal;
}

// The die's hottest spot runs 15-20 °C above the edge under load (a W7900:
// edge 73, junction 94 °C at most) and has a higher limit (110 against 100
// °C), so it is judged on its own scale.
Style junction_style(std::optional<double> celsius) { return temp_style(celsius, 95, 105); }

// The reasons that slow work down, by name; "none" when the mask says the
// clocks run free.
std::optional<std::string> throttle_text(const GpuView& g) {
  const auto mask = g.get(DeviceMetric::ClockEventReasons);
  if (!mask) return std::nullopt;
  std::string out;
  for (const ThrottleReason& r : kThrottleReasons) {
    if (r.kind == ThrottleKind::NotThrottling || (static_cast<std::uint64_t>(*mask) & r.bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += r.name;
  }
  return out.empty() ? std::string("none") : out;
}

ScreenLine title_line(const GpuView& g, std::size_t width) {
  ScreenLine line;
  line.add(fmt::format("GPU {}", g.info.index), gpu_style(g.info.index)).add("  ").add(g.info.name);
  // The whole GPU's values below; its MIG instances are what CUDA sees.
  if (g.info.mig_enabled.value_or(false)) {
    const std::size_t n = g.info.mig_instances.size();
    line.add(fmt::format("  MIG: {} instance{}", n, n == 1 ? "" : "s"), Style::Dim);
  }
  if (g.lost()) {
    line.add("  lost: the driver no longer answers for it", Style::Bad);
    return line;
  }
  ScreenLine right;
  if (const auto p = g.get(DeviceMetric::PerfState)) {
    right.add(fmt::format("{}{:.0f}", info(DeviceMetric::PerfState).unit, *p), g.freshness(DeviceMetric::PerfState))
        .add("  ");
  }
  const auto temp = g.get(DeviceMetric::TempGpuCelsius);
  right.add(temp_text(temp), g.freshness(DeviceMetric::TempGpuCelsius, temp_style(temp)));
  if (const auto junction = g.get(DeviceMetric::TempJunctionCelsius)) {
    right.add(fmt::format("  {} ", tag(DeviceMetric::TempJunctionCelsius)), Style::Dim)
        .add(temp_text(junction), g.freshness(DeviceMetric::TempJunctionCelsius, junction_style(junction)));
  }
  if (const auto fan = g.get(DeviceMetric::FanPercent)) {
    right.add(fmt::format("  {} ", tag(DeviceMetric::FanPercent)), Style::Dim)
        .add(shown(DeviceMetric::FanPercent, fan), g.freshness(DeviceMetric::FanPercent));
  }
  const std::size_t gap = std::max<std::size_t>(2, width > line.width() + right.width() ? width - line.width() - right.width() : 0);
  line.add(std::string(gap, ' '));
  line.append(right);
  return line;
}

ScreenLine details_line(const GpuView& g) {
  ScreenLine line("  ");
  const auto sm = g.get(DeviceMetric::SmClockMhz);
  const auto sm_max = g.get(DeviceMetric::SmClockMaxMhz);
  const DisplayFormat& mhz = info(DeviceMetric::SmClockMhz).display;
  line.add(fmt::format("{} ", tag(DeviceMetric::SmClockMhz)), Style::Dim);
  line.add(sm ? (sm_max ? display_value(mhz, *sm) + "/" + display_text(mhz, *sm_max) : display_text(mhz, *sm)) : "–",
           g.freshness(DeviceMetric::SmClockMhz));
  if (const auto mem = g.get(DeviceMetric::MemClockMhz)) {
    line.add(fmt::format("  {} ", tag(DeviceMetric::MemClockMhz)), Style::Dim)
        .add(shown(DeviceMetric::MemClockMhz, mem), g.freshness(DeviceMetric::MemClockMhz));
  }
  const auto gen = g.get(DeviceMetric::PcieLinkGen);
  const auto lanes = g.get(DeviceMetric::PcieLinkWidth);
  if (gen && lanes) {
    line.add("  PCIe ", Style::Dim);
    const auto gen_max = g.get(DeviceMetric::PcieLinkGenMax);
    const auto lanes_max = g.get(DeviceMetric::PcieLinkWidthMax);
    // A link below its maximum is normal at idle (power saving); under load
    // it halves host transfers, so it is shown, not judged, here.
    const bool below = (gen_max && *gen < *gen_max) || (lanes_max && *lanes < *lanes_max);
    line.add(fmt::format("gen{:.0f} x{:.0f}", *gen, *lanes), below ? Style::Warn : Style::Normal);
    if (below && gen_max && lanes_max) line.add(fmt::format(" (max gen{:.0f} x{:.0f})", *gen_max, *lanes_max), Style::Dim);
  }
  if (const auto reasons = throttle_text(g)) {
    line.add(fmt::format("  {} ", tag(DeviceMetric::ClockEventReasons)), Style::Dim).add(*reasons, *reasons == "none" ? Style::Good : Style::Warn);
  }
  if (!g.info.pci_bus_id.empty()) line.add("  " + g.info.pci_bus_id, Style::Dim);
  return line;
}

// One graph of a panel: its name, history against [0, full_scale], current
// value and their styles; `tick` writes a value of its scale ("50%", "350 W").
struct GraphSpec {
  std::string_view label;
  std::vector<double> history;
  double full_scale = 100;
  std::string value;
  Style graph_style = Style::Normal;
  Style value_style = Style::Normal;
  std::string (*tick)(double) = nullptr;
};

std::string percent_tick(double v) { return fmt::format("{:.0f}%", v); }
std::string watts_tick(double v) { return tight_text(whole(DeviceMetric::PowerWatts), v); }
std::string celsius_tick(double v) { return tight_text(whole(DeviceMetric::TempGpuCelsius), v); }

// One labelled graph with its current value on the right, `width` wide.
std::vector<ScreenLine> labelled_graph(const GraphSpec& g, std::size_t width, std::size_t rows) {
  const std::size_t label_columns = 6;
  const std::size_t graph_columns = width > label_columns + kValueColumns + 1 ? width - label_columns - kValueColumns - 1 : 1;
  const auto graph = block_graph(g.history, g.full_scale, graph_columns, rows);
  std::vector<ScreenLine> out;
  for (std::size_t r = 0; r < rows; ++r) {
    ScreenLine line;
    line.add(r + 1 == rows ? std::string(g.label) : std::string(), Style::Dim).pad_to(label_columns);
    line.add(graph[r], g.graph_style).add(" ");
    if (r + 1 == rows) line.add(align_right(g.value, kValueColumns), g.value_style);
    out.push_back(std::move(line));
  }
  return out;
}

// The graph with axes: its name and value above it, its scale on the left
// (full at the top, half in the middle of an even number of rows, zero at
// the bottom) and the time under it; rows + 2 lines, `width` wide.
constexpr std::size_t kScaleColumns = 5;  // "100%", "700 W", "100°C"
std::vector<ScreenLine> graph_with_axes(const GraphSpec& g, std::size_t width, std::size_t rows,
                                        double seconds_per_column) {
  const std::size_t graph_columns = width > kScaleColumns + 2 ? width - kScaleColumns - 1 : 1;
  std::vector<ScreenLine> out;
  ScreenLine head;
  head.add(std::string(g.label), Style::Dim).pad_to(kScaleColumns + 1);
  head.add(align_right(g.value, graph_columns), g.value_style);
  out.push_back(std::move(head));
  const auto graph = block_graph(g.history, g.full_scale, graph_columns, rows);
  for (std::size_t r = 0; r < rows; ++r) {
    // Each row's scale value is the one at its top; the bottom row's is zero.
    std::string tick;
    if (r == 0 && g.full_scale > 0) tick = g.tick(g.full_scale);
    if (r + 1 == rows) tick = g.tick(0);
    // Half the scale where a row's top is exactly there.
    if (rows >= 4 && rows % 2 == 0 && r == rows / 2) tick = g.tick(g.full_scale / 2);
    ScreenLine line;
    line.add(align_right(tick, kScaleColumns), Style::Dim).add(tick.empty() ? "│" : "┤", Style::Dim);
    line.add(graph[r], g.graph_style);
    out.push_back(std::move(line));
  }
  out.emplace_back(std::string(kScaleColumns + 1, ' ') + time_axis(graph_columns, seconds_per_column), Style::Dim);
  return out;
}

std::vector<ScreenLine> panel_graph(const GraphSpec& g, std::size_t width, const PanelShape& shape,
                                    double seconds_per_column) {
  return shape.axes ? graph_with_axes(g, width, shape.graph_rows, seconds_per_column)
                    : labelled_graph(g, width, shape.graph_rows);
}

void side_by_side(std::vector<ScreenLine>& out, const std::vector<ScreenLine>& left,
                  const std::vector<ScreenLine>& right, std::size_t left_width) {
  for (std::size_t i = 0; i < left.size(); ++i) {
    ScreenLine line = left[i];
    line.pad_to(left_width + 1);
    line.append(right[i]);
    out.push_back(std::move(line));
  }
}

}  // namespace

std::string short_gpu_name(const std::string& name) {
  for (std::string_view vendor : {"NVIDIA ", "AMD ", "Intel(R) ", "Intel "}) {
    if (name.starts_with(vendor) && name.size() > vendor.size()) return name.substr(vendor.size());
  }
  return name;
}

std::vector<ScreenLine> gpu_panel(const DeviceInfo& info, const LiveDevice* device, std::int64_t now,
                                  std::size_t width, const PanelShape& shape) {
  const GpuView g{info, device, now};
  std::vector<ScreenLine> out;
  out.push_back(title_line(g, width));
  out.push_back(details_line(g));
  const std::size_t half = width > 1 ? (width - 1) / 2 : 1;
  // One sample per column: the graphs are as long as the narrower half.
  const std::size_t samples = half;
  const LiveDevice empty;
  const LiveDevice& d = device ? *device : empty;
  const double seconds_per_column = seconds_per_sample(d, shape.interval_s);
  const auto history = [&](DeviceMetric m) { return metric_history(d, m, samples); };
  const Style colour = gpu_style(info.index);
  const auto util = g.get(DeviceMetric::GpuUtilPercent);
  const auto graph = [&](const GraphSpec& spec) { return panel_graph(spec, half, shape, seconds_per_column); };
  side_by_side(out,
               graph({tag(DeviceMetric::GpuUtilPercent), history(DeviceMetric::GpuUtilPercent), 100,
                      shown(DeviceMetric::GpuUtilPercent, util), colour, util_style(util), percent_tick}),
               graph({tag(DeviceMetric::MemUsedBytes), memory_percent_history(d, samples), 100, memory_text(g), colour,
                      memory_style(memory_share(g)), percent_tick}),
               half);
  const auto power = g.get(DeviceMetric::PowerWatts);
  const auto limit = g.get(DeviceMetric::PowerLimitWatts);
  const auto temp = g.get(DeviceMetric::TempGpuCelsius);
  side_by_side(out,
               graph({tag(DeviceMetric::PowerWatts), history(DeviceMetric::PowerWatts), limit.value_or(0), power_text(g),
                      colour, power_style(power, limit), watts_tick}),
               // 100 °C is about where every vendor's GPUs slow down.
               graph({tag(DeviceMetric::TempGpuCelsius), history(DeviceMetric::TempGpuCelsius), 100, temp_text(temp),
                      colour, temp_style(temp), celsius_tick}),
               half);
  return out;
}

ScreenLine gpu_line(const DeviceInfo& info, const LiveDevice* device, std::int64_t now, std::size_t width) {
  const GpuView g{info, device, now};
  ScreenLine line;
  line.add(fmt::format("{:>2} ", info.index), gpu_style(info.index)).add(shorten(short_gpu_name(info.name), 16)).pad_to(20);
  if (g.lost()) return line.add("lost: the driver no longer answers for it", Style::Bad);
  const auto util = g.get(DeviceMetric::GpuUtilPercent);
  const auto share = memory_share(g);
  line.add(fmt::format("{} ", tag(DeviceMetric::GpuUtilPercent)), Style::Dim)
      .add(horizontal_bar(util ? *util / 100 : kNaN, 10), util_style(util));
  line.add(align_right(shown(DeviceMetric::GpuUtilPercent, util), 5));
  line.add(fmt::format("  {} ", tag(DeviceMetric::MemUsedBytes)), Style::Dim).add(horizontal_bar(share ? *share / 100 : kNaN, 10), memory_style(share));
  line.add(align_right(percent_text(share), 5));
  const auto power = g.get(DeviceMetric::PowerWatts);
  line.add(align_right(power ? display_text(whole(DeviceMetric::PowerWatts), *power) : "–", 7));
  const auto temp = g.get(DeviceMetric::TempGpuCelsius);
  line.add(" ").add(align_right(temp_text(temp), 5), g.freshness(DeviceMetric::TempGpuCelsius, temp_style(temp)));
  if (device && width > line.width() + 3) {
    line.add("  ");
    const std::size_t columns = width - line.width();
    line.add(block_graph(metric_history(*device, DeviceMetric::GpuUtilPercent, columns), 100, columns)[0],
             gpu_style(info.index));
  }
  return line;
}

}  // namespace gpuwatch
