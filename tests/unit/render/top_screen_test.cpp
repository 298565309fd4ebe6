// The top screen as pure text: every layout fits its terminal exactly, shows
// every GPU or says how many it leaves out, and keeps the keys on the last
// row; the graphs, bars and the process table say what their data says.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <ostream>
#include <string>

#include <simdjson.h>

#include "core/text_width.h"
#include "render/top/graph.h"
#include "render/top/process_table.h"
#include "render/top/top_json.h"
#include "render/top/top_screen.h"
#include "top_view_util.h"

namespace gpuwatch {
namespace {

using test::make_top_view;

std::string all_text(const Screen& screen) { return plain_text(screen); }

bool shows(const Screen& screen, const std::string& needle) { return all_text(screen).find(needle) != std::string::npos; }

struct Size {
  std::size_t width, height;
};
void PrintTo(const Size& size, std::ostream* os) { *os << size.width << "x" << size.height; }

class TopLayout : public ::testing::TestWithParam<std::tuple<int, Size>> {};

TEST_P(TopLayout, FitsTheTerminalAndShowsEveryGpuOrCountsTheRest) {
  const auto [gpus, size] = GetParam();
  const TopView view = make_top_view(gpus);
  const Screen screen = compose_top_screen(view, size.width, size.height);
  ASSERT_EQ(screen.size(), size.height);
  for (const ScreenLine& line : screen) {
    EXPECT_LE(display_width(line.text()), size.width) << line.text();
    EXPECT_EQ(line.width(), display_width(line.text()));
  }
  EXPECT_NE(screen.back().text().find("q quit"), std::string::npos);
  EXPECT_TRUE(shows(screen, "PID"));
  EXPECT_TRUE(shows(screen, "CPU"));
  EXPECT_TRUE(shows(screen, "RAM 16.0/64.0 GiB 25%"));
  if (gpus > 1) {
    EXPECT_TRUE(shows(screen, std::to_string(gpus) + " GPUs"));
  }
  const bool all_shown = shows(screen, "GPU " + std::to_string(gpus - 1)) ||
                         shows(screen, "\n" + std::string(gpus - 1 < 10 ? " " : "") + std::to_string(gpus - 1) + " H100");
  if (!all_shown) {
    EXPECT_TRUE(shows(screen, "more GPUs")) << all_text(screen);
  }
  // Some process rows are left whatever the GPU count.
  EXPECT_TRUE(shows(screen, "python train.py")) << all_text(screen);
}

INSTANTIATE_TEST_SUITE_P(GpusAndTerminals, TopLayout,
                         ::testing::Combine(::testing::Values(1, 2, 4, 8, 16),
                                            ::testing::Values(Size{80, 24}, Size{200, 50}, Size{120, 40})));

TEST(TopScreen, OneGpuAt80x24GetsAPanelWithFourGraphs) {
  const Screen screen = compose_top_screen(make_top_view(1), 80, 24);
  for (const char* label : {"GPU 0", "util", "mem", "power", "temp", "clock ", "throttle none"}) {
    EXPECT_TRUE(shows(screen, label)) << label << "\n" << all_text(screen);
  }
  EXPECT_TRUE(shows(screen, "40.0/80.0 GiB 50%"));
  EXPECT_TRUE(shows(screen, "310/700 W") || shows(screen, "300/700 W"));
}

RunStatusReport recording_run(std::size_t advisories) {
  RunStatusReport run;
  run.run.id = "25b8a49b3945";
  run.run.name = "resnet";
  run.run.command = {"python3", "train.py", "--lr", "\x1b[2J"};  // an escape sequence must not reach the terminal
  run.live = true;
  run.age_s = 754;
  run.progress_now.epoch = "3";
  run.progress_now.step = 1200;
  run.progress_now.loss = 0.4123;
  run.steps_per_second = 5.25;
  run.verdict = advisories ? "warning" : "ok";
  for (std::size_t i = 0; i < advisories; ++i) {
    Advisory a;
    a.id = "util.low";
    a.severity = i == advisories - 1 ? Severity::Critical : Severity::Warning;
    a.device_index = static_cast<int>(i);
    a.summary = "advisory " + std::to_string(i);
    run.advisories.push_back(a);
  }
  return run;
}

TEST(TopScreen, ARecordingRunShowsItsProgressAndItsMostSevereAdvisoriesFirst) {
  for (int gpus : {1, 4, 16}) {
    TopView view = make_top_view(gpus);
    view.run = recording_run(3);
    const Screen screen = compose_top_screen(view, 80, 24);
    ASSERT_EQ(screen.size(), 24u) << gpus;
    const std::string text = all_text(screen);
    EXPECT_NE(text.find("run resnet 25b8a49b3945  recording 12m34s  verdict: warning"), std::string::npos) << text;
    EXPECT_NE(text.find("epoch 3  step 1200  5.25 steps/s  data wait –  loss 0.4123"), std::string::npos) << text;
    // The critical one first, then the rest in their order; the third is counted, not shown.
    EXPECT_NE(text.find("critical GPU 2: advisory 2"), std::string::npos) << text;
    EXPECT_NE(text.find("warning (+1 more in gpuwatch status) GPU 0: advisory 0"), std::string::npos) << text;
    EXPECT_EQ(text.find("advisory 1"), std::string::npos) << text;
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
    EXPECT_TRUE(screen.back().text().starts_with("q quit")) << text;
  }
  TopView quiet = make_top_view(1);
  quiet.run = recording_run(0);
  EXPECT_TRUE(shows(compose_top_screen(quiet, 80, 24), "  no advisories"));
  TopView broken = make_top_view(1);
  broken.run_error = "no run matches 'x'";
  EXPECT_TRUE(shows(compose_top_screen(broken, 80, 24), "run: no run matches 'x'"));
}

TEST(TopJson, CarriesTheRunOrNull) {
  TopView view = make_top_view(1);
  EXPECT_NE(render_top_json(view).find("\"run\": null"), std::string::npos);
  view.run = recording_run(1);
  const std::string json = render_top_json(view);
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(json);
  EXPECT_EQ(std::string_view(doc["run"]["name"]), "resnet");
  EXPECT_EQ(int64_t(doc["run"]["training"]["step"]), 1200);
  EXPECT_EQ(std::string_view(doc["run"]["advisories"].at(0)["id"]), "util.low");
}

TEST(TopScreen, SixteenGpusAt80x24AreOneLineEachAndOnASmallerTerminalTheRestCounted) {
  const Screen screen = compose_top_screen(make_top_view(16), 80, 24);
  EXPECT_TRUE(shows(screen, " 0 H100 80GB HBM3"));
  EXPECT_TRUE(shows(screen, "15 H100 80GB HBM3"));
  EXPECT_FALSE(shows(screen, "GPU 0  NVIDIA"));  // no full panels
  // Memory keeps only its share where the whole line would not fit.
  EXPECT_TRUE(shows(screen, "16 GPUs  util 47%  mem 50%  power 6.0/11.2 kW  balance CV 61.7% poor")) << all_text(screen);
  EXPECT_TRUE(shows(compose_top_screen(make_top_view(16), 100, 24), "mem 640/1280 GiB 50%  power"));
  const Screen small = compose_top_screen(make_top_view(16), 80, 16);
  EXPECT_TRUE(shows(small, " 0 H100 80GB HBM3"));
  EXPECT_TRUE(shows(small, "… 9 more GPUs")) << all_text(small);
}

TEST(TopScreen, SixteenGpusAt200x50ShowEveryGpu) {
  const Screen screen = compose_top_screen(make_top_view(16), 200, 50);
  EXPECT_TRUE(shows(screen, "15 H100") || shows(screen, "GPU 15")) << all_text(screen);
  EXPECT_FALSE(shows(screen, "more GPUs"));
}

TEST(TopScreen, FourGpusAt80x24GetPanels) {
  const Screen screen = compose_top_screen(make_top_view(4), 80, 24);
  for (int g = 0; g < 4; ++g) EXPECT_TRUE(shows(screen, "GPU " + std::to_string(g))) << g;
}

TEST(TopScreen, AFocusedGpuIsShownAloneWithTallerGraphs) {
  TopView view = make_top_view(4);
  view.focus_gpu = 2;
  const Screen screen = compose_top_screen(view, 100, 40);
  EXPECT_TRUE(shows(screen, "GPU 2"));
  EXPECT_FALSE(shows(screen, "GPU 0"));
  EXPECT_FALSE(shows(screen, "GPU 3"));
}

TEST(TopScreen, TheAggregateLineGivesTotalsAndTheBalanceBand) {
  TopView view = make_top_view(2, 1, 0);
  view.live.devices[0].latest.values.set(DeviceMetric::GpuUtilPercent, 90);
  view.live.devices[1].latest.values.set(DeviceMetric::GpuUtilPercent, 30);
  const Screen screen = compose_top_screen(view, 150, 30);
  EXPECT_TRUE(shows(screen, "util 60%"));
  EXPECT_TRUE(shows(screen, "mem 80/160 GiB 50%"));
  EXPECT_TRUE(shows(screen, "power 610/1400 W"));
  EXPECT_TRUE(shows(screen, "CV 50.0% poor")) << all_text(screen);  // population sd 30 over mean 60
}

TEST(TopScreen, SlowValuesAreDimmedOnlyWhenOlderThanThreeIntervals) {
  TopView view = make_top_view(1, 10, 0);  // 1 s apart; temperature last read at 9 s, now 10 s
  const auto temp_style = [](const Screen& screen) {
    for (const ScreenLine& line : screen) {
      for (const Span& span : line.spans()) {
        if (span.text.find("°C") != std::string::npos) return span.style;
      }
    }
    return Style::Header;
  };
  EXPECT_NE(temp_style(compose_top_screen(view, 100, 30)), Style::Dim);
  view.now_mono_ns += 10'000'000'000;  // 11 s old: stale at 1 s
  EXPECT_EQ(temp_style(compose_top_screen(view, 100, 30)), Style::Dim);
  for (auto& t : view.live.devices[0].mono_ns) t *= 10;  // the same history 10 s apart
  view.now_mono_ns = view.live.devices[0].mono_ns.back() + 11'000'000'000;  // 11 s old at 10 s: fresh
  for (auto& t : view.live.devices[0].latest.read_mono_ns) t *= 10;
  EXPECT_NE(temp_style(compose_top_screen(view, 100, 30)), Style::Dim);
}

TEST(TopScreen, AJunctionSensorIsShownWhereTheCardHasOne) {
  TopView view = make_top_view(1, 10, 0);
  EXPECT_FALSE(shows(compose_top_screen(view, 100, 30), "junction"));  // an H100 has none
  view.devices[0].name = "AMD Radeon Pro W7900";
  view.live.devices[0].latest.values.set(DeviceMetric::TempJunctionCelsius, 94);
  view.live.devices[0].latest.read_mono_ns[static_cast<std::size_t>(DeviceMetric::TempJunctionCelsius)] =
      view.now_mono_ns;
  const Screen screen = compose_top_screen(view, 100, 30);
  EXPECT_TRUE(shows(screen, "junction 94°C")) << all_text(screen);
}

TEST(TopScreen, ALostGpuSaysSo) {
  TopView view = make_top_view(2);
  view.live.devices[1].lost = Timestamp{1, 1};
  EXPECT_TRUE(shows(compose_top_screen(view, 100, 30), "lost: the driver no longer answers"));
  EXPECT_TRUE(shows(compose_top_screen(view, 80, 12), "lost: the driver no longer answers"));
}

TEST(TopScreen, WithoutGpusTheNotesTakeThePanelsPlace) {
  TopView view = make_top_view(0);
  view.notes = {"nvml: the NVIDIA driver is not loaded"};
  const Screen screen = compose_top_screen(view, 80, 24);
  EXPECT_TRUE(shows(screen, "nvml: the NVIDIA driver is not loaded"));
  EXPECT_TRUE(shows(screen, "CPU"));
}

TEST(TopScreen, TheMessageReplacesTheKeys) {
  TopView view = make_top_view(1);
  view.message = "send SIGTERM to pid 1000? (y/n)";
  EXPECT_EQ(compose_top_screen(view, 80, 24).back().text(), view.message);
}

// Issue 22 item 20: `top --once` printed 22 blank lines and the keys line.
TEST(TopScreen, ASnapshotHasNoPaddingAndNoKeys) {
  const TopView view = make_top_view(1);
  // As tall as its content with graphs of one row (issue 26: the graphs
  // fill a live screen's height), as the live screen of that height shows it.
  const Screen live = compose_top_screen(view, 100, snapshot_height(view) + 1);
  const Screen once = compose_top_snapshot(view, 100, 80);
  EXPECT_LT(once.size(), 40u) << plain_text(once);
  ASSERT_FALSE(once.empty());
  EXPECT_NE(once.back().width(), 0u) << plain_text(once);
  EXPECT_FALSE(shows(once, "q quit")) << plain_text(once);
  EXPECT_TRUE(shows(once, "python train.py"));
  // The same content as the live screen, line for line.
  for (std::size_t i = 0; i < once.size(); ++i) EXPECT_EQ(once[i].text(), live[i].text());
  // A height to keep to is kept, with the keys' row given to the content.
  const Screen short_once = compose_top_snapshot(view, 80, 12);
  EXPECT_LE(short_once.size(), 12u);
  EXPECT_FALSE(shows(short_once, "q quit"));
  EXPECT_EQ(short_once.front().text(), compose_top_screen(view, 80, 13).front().text());
}

TEST(TopScreen, HelpListsTheKeys) {
  TopView view = make_top_view(1);
  view.help = true;
  const Screen screen = compose_top_screen(view, 100, 40);
  EXPECT_TRUE(shows(screen, "asks, SIGTERM, then offers SIGKILL"));
  for (const ScreenLine& line : compose_top_screen(view, 80, 24)) EXPECT_LE(line.width(), 80u);
  EXPECT_TRUE(shows(compose_top_screen(view, 80, 24), "h      this help"));
  EXPECT_FALSE(shows(screen, "python train.py"));
}

TEST(TopGraph, BlocksScaleToTheFullValueAndLeaveGapsBlank) {
  const std::vector<double> values{0, 50, 100, kNaN};
  EXPECT_EQ(block_graph(values, 100, 4)[0], "▁▄█ ");
  EXPECT_EQ(block_graph(values, 100, 6)[0], "  ▁▄█ ");  // short history: blank on the left
  EXPECT_EQ(block_graph(values, 100, 2)[0], "█ ");      // the newest on the right
  const auto two = block_graph(std::vector<double>{50, 100}, 100, 2, 2);
  EXPECT_EQ(two[0], " █");
  EXPECT_EQ(two[1], "██");
}

TEST(TopGraph, HorizontalBarsFillInEighths) {
  EXPECT_EQ(horizontal_bar(0.5, 4), "██  ");
  EXPECT_EQ(horizontal_bar(1.0, 2), "██");
  EXPECT_EQ(horizontal_bar(0.0625, 2), "▏ ");
  EXPECT_EQ(horizontal_bar(kNaN, 3), "   ");
}

TEST(TopGraph, SlowMetricsAreCarriedForwardFastOnesAreNot) {
  LiveDevice d;
  for (int i = 0; i < 4; ++i) {
    DeviceValues v;
    if (i != 2) v.set(DeviceMetric::GpuUtilPercent, 10.0 * i);
    if (i % 2 == 0) v.set(DeviceMetric::TempGpuCelsius, 40.0 + i);
    d.values.push_back(v);
  }
  const auto temp = metric_history(d, DeviceMetric::TempGpuCelsius, 3);
  EXPECT_EQ(temp, (std::vector<double>{40, 42, 42}));
  const auto util = metric_history(d, DeviceMetric::GpuUtilPercent, 4);
  EXPECT_TRUE(std::isnan(util[2]));
  EXPECT_EQ(util[3], 30);
}

TEST(TopProcesses, SortPutsTheLargestFirstAndAbsentValuesLast) {
  std::vector<TopProcess> rows(3);
  rows[0].pid = 5, rows[0].cpu_percent = 10;
  rows[1].pid = 3;
  rows[2].pid = 9, rows[2].cpu_percent = 80;
  sort_processes(rows, ProcessSort::CpuPercent);
  EXPECT_EQ(rows[0].pid, 9u);
  EXPECT_EQ(rows[1].pid, 5u);
  EXPECT_EQ(rows[2].pid, 3u);
  sort_processes(rows, ProcessSort::Pid);
  EXPECT_EQ(rows[0].pid, 3u);
}

TEST(TopProcesses, TheTableScrollsToKeepTheSelectedRowInView) {
  TopView view = make_top_view(1, 10, 20);
  view.selected = 15;
  const auto lines = process_table(view, 100, 5);
  ASSERT_EQ(lines.size(), 6u);  // header and five rows
  EXPECT_EQ(lines.back().spans().front().style, Style::Selected);
  EXPECT_NE(lines.back().text().find(std::to_string(view.processes[15].pid)), std::string::npos);
}

// Without root, other users' processes cannot be read: the table says how
// many, on a row of its own budget, so the layout does not change.
TEST(TopProcesses, OtherUsersHiddenProcessesAreCountedUnderTheTable) {
  TopView view = make_top_view(1, 10, 2);
  const std::string note = "of other users hidden (run as root to see them)";
  EXPECT_EQ(process_table(view, 100, 5).size(), 3u);  // header and two rows
  view.hidden_processes = 3;
  const auto lines = process_table(view, 100, 5);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines.back().text(), "  3 processes " + note);
  view.hidden_processes = 1;
  EXPECT_EQ(process_table(view, 100, 5).back().text(), "  1 process " + note);
  // One row: it is the selected process's, and the note gives way.
  EXPECT_EQ(process_table(view, 100, 1).size(), 2u);
  EXPECT_EQ(process_table(view, 100, 1).back().text().find(note), std::string::npos);
  EXPECT_EQ(process_table(view, 100, 2).back().text(), "  1 process " + note);
  // With no process listed at all, the note still comes.
  view.processes.clear();
  EXPECT_EQ(process_table(view, 100, 5).back().text(), "  1 process " + note);
  EXPECT_TRUE(shows(compose_top_screen(view, 100, 30), "1 process " + note));
  simdjson::dom::parser parser;
  EXPECT_EQ(int64_t(parser.parse(render_top_json(view))["hidden_processes"]), 1);
}

TEST(TopProcesses, TheProgramIsShownWithoutItsDirectory) {
  TopView view = make_top_view(1, 10, 1);
  view.processes[0].command = "/opt/conda/bin/python train.py --data /data/x";
  EXPECT_NE(process_table(view, 120, 3)[1].text().find(" python train.py --data /data/x"), std::string::npos);
  view.processes[0].command = "[kworker/0:1]";
  EXPECT_NE(process_table(view, 120, 3)[1].text().find("[kworker/0:1]"), std::string::npos);
}

// The style of the first span whose text contains `needle` on a line that
// also contains `on_line` (Style::Normal with no such span).
std::optional<Style> style_of(const Screen& screen, const std::string& on_line, const std::string& needle) {
  for (const ScreenLine& line : screen) {
    if (line.text().find(on_line) == std::string::npos) continue;
    for (const Span& span : line.spans()) {
      if (span.text.find(needle) != std::string::npos) return span.style;
    }
  }
  return std::nullopt;
}

void set_util(TopView& view, int gpu, double percent) {
  for (LiveDevice& d : view.live.devices) {
    if (d.index != gpu) continue;
    for (DeviceValues& v : d.values) v.set(DeviceMetric::GpuUtilPercent, percent);
    d.latest.values.set(DeviceMetric::GpuUtilPercent, percent);
  }
}

TEST(TopColours, EachGpuHasItsOwnColourAndValuesTheirSeverity) {
  // Issue 26: colours were per metric, not per GPU, and 3 % looked like 97 %.
  TopView view = make_top_view(2);
  set_util(view, 0, 3);
  set_util(view, 1, 97);
  const Screen screen = compose_top_screen(view, 120, 40);
  EXPECT_EQ(style_of(screen, "GPU 0", "GPU 0"), gpu_style(0)) << all_text(screen);
  EXPECT_EQ(style_of(screen, "GPU 1", "GPU 1"), gpu_style(1));
  EXPECT_NE(gpu_style(0), gpu_style(1));
  EXPECT_EQ(gpu_style(9), gpu_style(1));  // eight colours, as the plots have
  // The graphs in their GPU's colour: the block characters of each panel.
  const auto graph_in = [&](Style style) {
    for (const ScreenLine& line : screen) {
      for (const Span& span : line.spans()) {
        if (span.style == style && span.text.find("█") != std::string::npos) return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(graph_in(gpu_style(0))) << all_text(screen);
  EXPECT_TRUE(graph_in(gpu_style(1))) << all_text(screen);
  // Utilization's value: low is yellow, high green.
  const auto low = style_of(screen, "util", "3%");
  const auto high = style_of(screen, "util", "97%");
  ASSERT_TRUE(low && high) << all_text(screen);
  EXPECT_EQ(*low, Style::Warn);
  EXPECT_EQ(*high, Style::Good);
}

TEST(TopColours, OneLinePerGpuBarsHaveTheirSeverity) {
  TopView view = make_top_view(16);
  set_util(view, 0, 3);
  set_util(view, 1, 97);
  const Screen screen = compose_top_screen(view, 80, 24);
  const auto bar = [&](const std::string& row) {
    for (const ScreenLine& line : screen) {
      if (line.text().starts_with(row) && line.spans().size() > 3) return line.spans()[3].style;  // util's bar
    }
    return Style::Normal;
  };
  EXPECT_EQ(bar(" 0 H100"), Style::Warn) << all_text(screen);
  EXPECT_EQ(bar(" 1 H100"), Style::Good) << all_text(screen);
}

TEST(TopGraph, TheTimeAxisEndsWithNowAndLabelsRoundAges) {
  const std::string axis = time_axis(40, 1);
  EXPECT_EQ(display_width(axis), 40u);
  EXPECT_TRUE(axis.ends_with("now")) << axis;
  // A tick every 10 s (10 columns at 1 s), each label ending under its column.
  EXPECT_EQ(axis.substr(26, 4), "-10s") << axis;
  EXPECT_EQ(axis.substr(16, 4), "-20s") << axis;
  EXPECT_NE(time_axis(100, 2).find("-1m"), std::string::npos) << time_axis(100, 2);
  EXPECT_NE(time_axis(100, 60).find("-1h"), std::string::npos) << time_axis(100, 60);
  EXPECT_EQ(time_axis(2, 1), "  ");
}

TEST(TopScreen, OneGpuAt200x50FillsTheScreenWithGraphsWithAxes) {
  // Issue 26: 35 of 50 rows were empty under four graphs of 4 rows.
  const Screen screen = compose_top_screen(make_top_view(1), 200, 50);
  std::size_t blank = 0;
  for (const ScreenLine& line : screen) blank += line.width() == 0 ? 1 : 0;
  EXPECT_LE(blank, 2u) << all_text(screen);
  EXPECT_TRUE(shows(screen, "100%┤")) << all_text(screen);
  EXPECT_TRUE(shows(screen, "  0%┤"));
  EXPECT_TRUE(shows(screen, "700 W┤") || shows(screen, "700W┤")) << all_text(screen);
  EXPECT_TRUE(shows(screen, "now"));
  EXPECT_TRUE(shows(screen, "-30s"));
}

TEST(TopJson, OneSnapshotWithCatalogueNamesAgesAndProcesses) {
  TopView view = make_top_view(2, 5, 2);
  view.devices[1].static_values.set(DeviceMetric::SmClockMaxMhz, 1980);
  const std::string json = render_top_json(view);
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(json);
  EXPECT_EQ(int64_t(doc["schema_version"]), kTopJsonSchemaVersion);
  EXPECT_EQ(doc["gpus"].get_array().size(), 2u);
  const auto gpu1 = doc["gpus"].at(1);
  EXPECT_EQ(int64_t(gpu1["gpu"]), 1);
  EXPECT_DOUBLE_EQ(double(gpu1["metrics"]["mem_total_bytes"]), 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(double(gpu1["metrics"]["temp_gpu_celsius"]), 51);
  EXPECT_DOUBLE_EQ(double(gpu1["metrics"]["sm_clock_max_mhz"]), 1980);  // static, from discovery
  // Temperature was last read at the 5th tick (i = 4), the view's now is 5 s.
  EXPECT_DOUBLE_EQ(double(gpu1["ages_seconds"]["temp_gpu_celsius"]), 0);
  EXPECT_TRUE(gpu1["ages_seconds"]["gpu_util_percent"].error() != simdjson::SUCCESS);  // fast: no age
  EXPECT_EQ(doc["processes"].get_array().size(), 2u);
  EXPECT_EQ(std::string_view(doc["processes"].at(0)["user"]), "alice");
  EXPECT_DOUBLE_EQ(double(doc["host"]["cpu_percent"]), 45);
  EXPECT_EQ(doc["host"]["core_percent"].get_array().size(), 8u);
}

}  // namespace
}  // namespace gpuwatch
