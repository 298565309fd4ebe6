#include "render/top/top_screen.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analysis/stats.h"
#include "core/device_event_kinds.h"
#include "render/top/gpu_panel.h"
#include "render/top/graph.h"
#include "render/top/process_table.h"
#include "render/top/run_panel.h"
#include "render/units.h"

namespace gpuwatch {

namespace {

// Two panels side by side from this width on (each half then still shows
// 25 s of history at 1 s).
constexpr std::size_t kTwoColumnWidth = 150;
constexpr std::size_t kMinProcessRows = 3;
// The newest device events (XIDs, ECC errors) shown under the GPUs: enough
// to see that something happened and when; `report` lists them all.
constexpr std::size_t kEventLines = 3;

enum class GpuLayout { None, Focus, Panels, TwoColumns, Lines };

struct Layout {
  GpuLayout gpus = GpuLayout::None;
  PanelShape panel;
  std::size_t gpu_lines = 0;  // lines the GPU section takes
  std::size_t process_rows = 0;
};

std::size_t event_lines(const TopView& view) { return std::min(kEventLines, view.live.device_events.size()); }

std::size_t fixed_lines(const TopView& view) {
  return 1 /* header */ + (view.devices.size() > 1 ? 1 : 0) + run_panel_height(view) + event_lines(view) +
         1 /* host */ + 1 /* keys */ + 1 /* table header */;
}

// "14:03:12  GPU 1  XID 79: GPU has fallen off the bus", newest last.
std::vector<ScreenLine> device_event_lines(const TopView& view) {
  const auto& events = view.live.device_events;
  std::vector<ScreenLine> out;
  for (std::size_t i = events.size() - event_lines(view); i < events.size(); ++i) {
    const Event& e = events[i];
    ScreenLine line;
    line.add(clock_local_ms(e.time.wall_ns).substr(0, 8), Style::Dim);
    line.add(e.device_index ? fmt::format("  GPU {}  ", *e.device_index) : std::string("  "), Style::Title);
    // A corrected bit costs nothing; an XID or a lost bit may have cost the job.
    line.add(e.message, e.kind == kEccSingleBitEventKind ? Style::Warn : Style::Bad);
    out.push_back(std::move(line));
  }
  return out;
}

// Rows the process table asks for below its header: a row per process (or
// owner) and the note of hidden ones, at least kMinProcessRows.
std::size_t wanted_process_rows(const TopView& view) {
  return std::max(kMinProcessRows, table_rows(view) + (view.hidden_processes > 0 ? 1 : 0));
}

// The tallest graphs with which `panels` panels fit `room` rows (1 row at
// least): the screen's rows go to the graphs once the processes have theirs
// (issue 26: a 200x50 terminal left 35 rows empty under one GPU's four
// 4-row graphs). Axes where they fit with kAxesFromRows rows or more, else
// taller graphs without them.
PanelShape tallest_panels(std::size_t panels, std::size_t room, double interval_s) {
  const auto fits = [&](PanelShape shape) { return panels * panel_height(shape) <= room; };
  PanelShape shape{kAxesFromRows, true, interval_s};
  if (fits(shape)) {
    while (fits({shape.graph_rows + 1, true, interval_s})) ++shape.graph_rows;
    return shape;
  }
  shape = {1, false, interval_s};
  while (fits({shape.graph_rows + 1, false, interval_s})) ++shape.graph_rows;
  return shape;
}

Layout choose_layout(const TopView& view, std::size_t width, std::size_t height) {
  Layout layout;
  const std::size_t n = view.devices.size();
  const std::size_t fixed = fixed_lines(view);
  const std::size_t available = height > fixed + kMinProcessRows ? height - fixed - kMinProcessRows : 0;
  const std::size_t wanted = wanted_process_rows(view);
  const std::size_t room = height > fixed + wanted ? height - fixed - wanted : 0;
  const std::size_t columns = (n + 1) / 2;
  if (n == 0) {
    layout.gpu_lines = std::min(available, std::max<std::size_t>(1, view.notes.size()));
  } else if (view.focus_gpu && available >= panel_height(1)) {
    layout.gpus = GpuLayout::Focus;
    layout.panel = tallest_panels(1, std::max(room, panel_height(1)), view.interval_s);
    layout.gpu_lines = panel_height(layout.panel);
  } else if (n * panel_height(1) <= available) {
    layout.gpus = GpuLayout::Panels;
    layout.panel = tallest_panels(n, std::max(room, n * panel_height(1)), view.interval_s);
    layout.gpu_lines = n * panel_height(layout.panel);
    // A wide screen whose rows leave stacked panels without axes gives them
    // axes in two columns (four GPUs at 200x50).
    const PanelShape paired = tallest_panels(columns, room, view.interval_s);
    if (!layout.panel.axes && n > 1 && width >= kTwoColumnWidth && paired.axes) {
      layout.gpus = GpuLayout::TwoColumns;
      layout.panel = paired;
      layout.gpu_lines = columns * panel_height(paired);
    }
  } else if (width >= kTwoColumnWidth && columns * panel_height(1) <= available) {
    layout.gpus = GpuLayout::TwoColumns;
    layout.panel = tallest_panels(columns, std::max(room, columns * panel_height(1)), view.interval_s);
    layout.gpu_lines = columns * panel_height(layout.panel);
  } else {
    layout.gpus = GpuLayout::Lines;
    layout.gpu_lines = std::min(n, std::max<std::size_t>(available, 1));
  }
  const std::size_t used = fixed + layout.gpu_lines;
  layout.process_rows = height > used ? height - used : 0;
  return layout;
}

const LiveDevice* live_device(const TopView& view, int index) { return view.live.device(index); }

ScreenLine header_line(const TopView& view, std::size_t width) {
  ScreenLine line;
  line.add("gpuwatch top", Style::Title);
  if (!view.hostname.empty()) line.add("  " + view.hostname);
  if (view.now_wall_ns != 0) line.add("  " + clock_local_ms(view.now_wall_ns).substr(0, 8));
  line.add(fmt::format("  every {} s", fixed(view.interval_s, view.interval_s < 1 ? 1 : 0)), Style::Dim);
  if (view.paused) line.add("  PAUSED", Style::Warn);
  const std::string filter = view.filter.empty() ? "" : fmt::format("filter: {}  ", view.filter);
  const std::string right = fmt::format("{}{}sort: {}", filter, view.by_owner ? "by owner  " : "", to_string(view.sort));
  line.pad_to(width > right.size() ? width - right.size() : 0).add(right, Style::Dim);
  return line;
}

// Totals across the GPUs, and how evenly the work is spread (the seeds'
// coefficient of variation bands). Memory loses its GiB before the line
// loses its end.
ScreenLine aggregate_line(const TopView& view, std::size_t width) {
  double used = 0, total = 0, power = 0, limit = 0;
  std::vector<double> util;
  for (const DeviceInfo& info : view.devices) {
    const LiveDevice* d = live_device(view, info.index);
    if (!d || d->lost) continue;
    const auto& v = d->latest.values;
    if (const auto u = v.get(DeviceMetric::GpuUtilPercent)) util.push_back(*u);
    used += v.get(DeviceMetric::MemUsedBytes).value_or(0);
    total += v.get(DeviceMetric::MemTotalBytes).value_or(0);
    power += v.get(DeviceMetric::PowerWatts).value_or(0);
    limit += v.get(DeviceMetric::PowerLimitWatts).value_or(0);
  }
  double mean = 0;
  for (double u : util) mean += u;
  // Words, units and scales are the catalogue's; many GPUs' power in kilo-
  // units of the catalogue's watts.
  const bool kilowatts = std::max(power, limit) >= 10'000;
  const DisplayFormat& watt = info(DeviceMetric::PowerWatts).display;
  const auto watts = [&](double w) {
    return kilowatts ? fixed(w / watt.divisor / 1000, 1) : display_value(rounded(watt, 0), w);
  };
  const std::string unit = fmt::format(" {}{}", kilowatts ? "k" : "", watt.unit);
  const std::string memory_share = total > 0 ? fmt::format("{:.0f}%", used / total * 100) : "–";
  // Sixteen 80 GB GPUs make 1280 GiB: whole GiB from 100 on.
  const DisplayFormat& gib = info(DeviceMetric::MemUsedBytes).display;
  const DisplayFormat memory_format = rounded(gib, total >= 100 * gib.divisor ? 0 : 1);
  const std::string memory = total > 0 ? fmt::format("{}/{} {}", display_value(memory_format, used),
                                                     display_text(memory_format, total), memory_share)
                                       : memory_share;
  const auto balance = load_balance(util);
  const auto tag = [](DeviceMetric m) { return fmt::format("  {} ", info(m).tag); };
  const auto compose = [&](const std::string& memory_text) {
    ScreenLine line;
    line.add(fmt::format("{} GPUs", view.devices.size()), Style::Title);
    line.add(tag(DeviceMetric::GpuUtilPercent), Style::Dim)
        .add(util.empty() ? "–"
                          : tight_text(rounded(info(DeviceMetric::GpuUtilPercent).display, 0),
                                       mean / static_cast<double>(util.size())));
    line.add(tag(DeviceMetric::MemUsedBytes), Style::Dim).add(memory_text);
    line.add(tag(DeviceMetric::PowerWatts), Style::Dim)
        .add(limit > 0 ? watts(power) + "/" + watts(limit) + unit : watts(power) + unit);
    if (balance) {
      const Style style = balance->band == BalanceBand::Poor   ? Style::Bad
                          : balance->band == BalanceBand::Fair ? Style::Warn
                                                               : Style::Good;
      line.add("  balance ", Style::Dim).add(fmt::format("CV {:.1f}% {}", balance->cv_percent, to_string(balance->band)), style);
    }
    return line;
  };
  ScreenLine line = compose(memory);
  return line.width() <= width ? line : compose(memory_share);
}

// CPU: the total, then one block per core (the mean of several cores per
// block when there are more cores than columns); RAM used of total.
ScreenLine host_line(const TopView& view, std::size_t width) {
  const auto& host = view.live.host.latest.values;
  ScreenLine line;
  const auto cpu = host.get(HostMetric::CpuPercent);
  const DisplayFormat cpu_format = rounded(info(HostMetric::CpuPercent).display, 0);
  line.add(fmt::format("{} ", info(HostMetric::CpuPercent).tag), Style::Title)
      .add(align_right(cpu ? tight_text(cpu_format, *cpu) : "–", 4))
      .add(" ");
  const auto used = host.get(HostMetric::MemUsedBytes);
  const auto total = host.get(HostMetric::MemTotalBytes);
  const DisplayFormat ram_format = rounded(info(HostMetric::MemUsedBytes).display, 1);
  const std::string ram = used && total && *total > 0
                              ? fmt::format("{}/{} {:.0f}%", display_value(ram_format, *used),
                                            display_text(ram_format, *total), *used / *total * 100)
                              : "–";
  const std::string ram_label = fmt::format("  {} ", info(HostMetric::MemUsedBytes).tag);
  const std::size_t ram_columns = ram_label.size() + ram.size();
  const auto& cores = view.live.host.core_percent;
  const std::size_t room = width > line.width() + ram_columns + 2 ? width - line.width() - ram_columns - 2 : 0;
  if (!cores.empty() && room > 0) {
    const std::size_t per_block = (cores.size() + room - 1) / room;
    std::vector<double> blocks;
    for (std::size_t i = 0; i < cores.size(); i += per_block) {
      double sum = 0;
      std::size_t n = 0;
      for (std::size_t j = i; j < std::min(cores.size(), i + per_block); ++j) {
        if (std::isfinite(cores[j])) sum += cores[j], ++n;
      }
      blocks.push_back(n > 0 ? sum / static_cast<double>(n) : kNaN);
    }
    line.add(block_graph(blocks, 100, blocks.size())[0], Style::GraphUtil);
  }
  line.add(ram_label, Style::Title).add(ram);
  return line;
}

ScreenLine keys_line(const TopView& view, std::size_t width) {
  if (!view.message.empty()) return ScreenLine(view.message, Style::Warn);
  std::vector<std::pair<std::string_view, std::string_view>> keys = {
      {"q", "quit"}, {"↑↓", "select"}, {"s", "sort"}, {"/", "filter"}, {"k", "kill"}, {"o", "owners"},
      {"p", "pause"}, {"+-", "interval"}, {"0-9", "GPU"}, {"h", "help"}};
  const auto compose = [&keys] {
    ScreenLine line;
    for (const auto& [key, what] : keys) {
      line.add(std::string(key), Style::Title).add(" ").add(std::string(what), Style::Dim).add("  ");
    }
    return line;
  };
  ScreenLine line = compose();
  // Too wide for 80 columns: the hints that matter least go first (the help
  // lists every key), so that "h help" still shows.
  for (const std::string_view dropped : {"0-9", "+-", "p"}) {
    if (line.width() <= width + 2) break;  // its last two columns are blank
    std::erase_if(keys, [dropped](const auto& k) { return k.first == dropped; });
    line = compose();
  }
  return line;
}

std::vector<ScreenLine> help_lines() {
  std::vector<ScreenLine> out;
  out.emplace_back("Keys", Style::Header);
  for (const char* text : {
           "  q      quit (also Ctrl-C)",
           "  ↑ ↓ j  select a process (k is kill, as in htop, not up)",
           "  PgUp PgDn Home End  ten processes up or down, the first, the last",
           "  s      sort processes: GPU memory, GPU use, CPU, pid",
           "  /      filter processes by pid, user, owner or command (Enter keeps, Esc clears)",
           "  k      stop the selected process: asks, SIGTERM, then offers SIGKILL",
           "  o      one row per owner: Slurm job, container, pod, unit, user (o: back)",
           "  p      pause the screen (sampling goes on)",
           "  + -    a longer or shorter interval (0.1 s to 60 s)",
           "  0-9    one GPU large, with its processes; the same digit or Esc shows all again",
           "  h      this help; any key closes it",
       }) {
    out.emplace_back(text);
  }
  return out;
}

void add_gpus(Screen& out, const TopView& view, const Layout& layout, std::size_t width) {
  const std::int64_t now = view.now_mono_ns;
  switch (layout.gpus) {
    case GpuLayout::None:
      for (std::size_t i = 0; i < layout.gpu_lines; ++i) {
        out.emplace_back(i < view.notes.size() ? view.notes[i] : std::string("no GPU found"), Style::Warn);
      }
      return;
    case GpuLayout::Focus: {
      const auto it = std::find_if(view.devices.begin(), view.devices.end(),
                                   [&](const DeviceInfo& d) { return d.index == *view.focus_gpu; });
      const DeviceInfo& info = it != view.devices.end() ? *it : view.devices.front();
      for (auto& line : gpu_panel(info, live_device(view, info.index), now, width, layout.panel)) out.push_back(line);
      return;
    }
    case GpuLayout::Panels:
      for (const DeviceInfo& info : view.devices) {
        for (auto& line : gpu_panel(info, live_device(view, info.index), now, width, layout.panel)) {
          out.push_back(std::move(line));
        }
      }
      return;
    case GpuLayout::TwoColumns: {
      const std::size_t half = (width - 2) / 2;
      for (std::size_t i = 0; i < view.devices.size(); i += 2) {
        const auto left = gpu_panel(view.devices[i], live_device(view, view.devices[i].index), now, half, layout.panel);
        std::vector<ScreenLine> right;
        if (i + 1 < view.devices.size()) {
          right = gpu_panel(view.devices[i + 1], live_device(view, view.devices[i + 1].index), now, half, layout.panel);
        }
        for (std::size_t r = 0; r < left.size(); ++r) {
          ScreenLine line = left[r].cut(half);
          line.pad_to(half + 2);
          if (r < right.size()) line.append(right[r].cut(half));
          out.push_back(std::move(line));
        }
      }
      return;
    }
    case GpuLayout::Lines: {
      const std::size_t n = view.devices.size();
      const std::size_t shown = layout.gpu_lines < n ? layout.gpu_lines - 1 : n;
      for (std::size_t i = 0; i < shown; ++i) {
        out.push_back(gpu_line(view.devices[i], live_device(view, view.devices[i].index), now, width));
      }
      if (shown < n) out.emplace_back(fmt::format("   … {} more GPUs: type a number (0-99) to show one alone, or enlarge the terminal", n - shown), Style::Dim);
      return;
    }
  }
}

}  // namespace

std::size_t snapshot_height(const TopView& view) {
  const std::size_t gpus = view.devices.empty() ? std::max<std::size_t>(1, view.notes.size())
                                                : view.devices.size() * panel_height(1);
  return fixed_lines(view) + gpus + wanted_process_rows(view);
}

std::size_t process_rows(const TopView& view, std::size_t width, std::size_t height) {
  return choose_layout(view, width, height).process_rows;
}

Screen compose_top_screen(const TopView& view, std::size_t width, std::size_t height) {
  const Layout layout = choose_layout(view, width, height);
  Screen out;
  out.push_back(header_line(view, width));
  if (view.help) {  // the whole screen: it must fit the smallest terminal
    for (auto& line : help_lines()) out.push_back(std::move(line));
  } else {
    for (auto& line : run_panel(view, width)) out.push_back(std::move(line));
    if (view.devices.size() > 1) out.push_back(aggregate_line(view, width));
    add_gpus(out, view, layout, width);
    for (auto& line : device_event_lines(view)) out.push_back(std::move(line));
    out.push_back(host_line(view, width));
    for (auto& line : process_table(view, width, layout.process_rows)) out.push_back(std::move(line));
  }
  // The keys line sits on the last row whatever came before.
  if (out.size() >= height) out.resize(height > 0 ? height - 1 : 0);
  while (out.size() + 1 < height) out.emplace_back();
  if (height > 0) out.push_back(keys_line(view, width));
  for (auto& line : out) line = line.cut(width);
  return out;
}

Screen compose_top_snapshot(const TopView& view, std::size_t width, std::size_t max_height) {
  // The live screen one line taller, less its line of keys and the blank
  // lines that pushed that line to the bottom; no taller than its content
  // needs, so that the graphs do not grow to fill `max_height` (they hold a
  // second or two of history).
  Screen out = compose_top_screen(view, width, std::min(max_height, snapshot_height(view)) + 1);
  if (!out.empty()) out.pop_back();
  while (!out.empty() && out.back().width() == 0) out.pop_back();
  return out;
}

}  // namespace gpuwatch
