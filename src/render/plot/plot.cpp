#include "render/plot/plot.h"

#include <array>

#include <fmt/format.h>

#include "render/plot/kinds.h"
#include "render/plot/plot_rollups.h"

namespace gpuwatch::plot {

namespace {

struct KindInfo {
  PlotKind kind;
  std::string_view name;
  PlotSize size;
};
constexpr std::array<KindInfo, 5> kKinds{{
    {PlotKind::Timeline, "timeline", {1600, 1400}},
    {PlotKind::PerGpu, "per-gpu", {1600, 900}},
    {PlotKind::Balance, "balance", {1600, 720}},
    {PlotKind::Compare, "compare", {1600, 1100}},
    {PlotKind::Histogram, "histogram", {1400, 800}},
}};

const KindInfo& kind_info(PlotKind kind) {
  for (const KindInfo& k : kKinds) {
    if (k.kind == kind) return k;
  }
  return kKinds[0];
}

bool takes_metric(PlotKind kind) {
  return kind == PlotKind::PerGpu || kind == PlotKind::Histogram || kind == PlotKind::Compare;
}

}  // namespace

std::string_view to_string(PlotKind kind) { return kind_info(kind).name; }

std::optional<PlotKind> plot_kind_by_name(std::string_view name) {
  for (const KindInfo& k : kKinds) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

std::vector<std::string> plot_kind_names() {
  std::vector<std::string> names;
  for (const KindInfo& k : kKinds) names.emplace_back(k.name);
  return names;
}

PlotSize default_size(PlotKind kind) { return kind_info(kind).size; }

PlotSize plot_size(const PlotOptions& options) {
  const PlotSize d = default_size(options.kind);
  return {options.width_px > 0 ? options.width_px : d.width_px,
          options.height_px > 0 ? options.height_px : d.height_px};
}

PlotSize plot_size(const PlotOptions& options, std::span<const PlotRun> runs) {
  PlotSize size = plot_size(options);
  if (options.height_px > 0 || runs.empty()) return size;
  std::size_t extra_panels = 0;
  if (options.kind == PlotKind::Timeline) extra_panels = detail::timeline_training(runs[0]).size();
  if (options.kind == PlotKind::Compare && detail::compare_has_loss(runs)) extra_panels = 1;
  size.height_px = std::min(kMaxSidePx, size.height_px + static_cast<int>(extra_panels) * detail::kTrainingPanelHeightPx);
  return size;
}

std::optional<PlotAlign> plot_align_by_name(std::string_view name) {
  if (name == "time") return PlotAlign::Time;
  if (name == "step") return PlotAlign::Step;
  if (name == "epoch") return PlotAlign::Epoch;
  return std::nullopt;
}

bool plottable(DeviceMetric metric) {
  return metric != DeviceMetric::ClockEventReasons && metric != DeviceMetric::SlowReadAgeSeconds &&
         metric != DeviceMetric::kCount;
}

std::optional<DeviceMetric> plottable_metric_by_name(std::string_view name) {
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    const auto m = static_cast<DeviceMetric>(i);
    if (plottable(m) && info(m).name == name) return m;
  }
  return std::nullopt;
}

std::vector<std::string> plottable_metric_names() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kDeviceMetricCount; ++i) {
    const auto m = static_cast<DeviceMetric>(i);
    if (plottable(m)) names.emplace_back(info(m).name);
  }
  return names;
}

void check_plot_request(std::size_t run_count, const PlotOptions& options) {
  const std::string_view kind = to_string(options.kind);
  if (options.kind == PlotKind::Compare) {
    if (run_count < 2) throw PlotError(fmt::format("compare needs two or more runs, got {}", run_count));
  } else if (run_count != 1) {
    throw PlotError(fmt::format("{} takes exactly one run, got {} (compare takes several)", kind, run_count));
  }
  if (options.align != PlotAlign::Time && options.kind != PlotKind::Compare) {
    throw PlotError(fmt::format("{} is drawn over time: only compare aligns runs by step or epoch", kind));
  }
  if (options.metric) {
    if (!takes_metric(options.kind)) {
      throw PlotError(
          fmt::format("{} takes no metric: it draws a fixed set (per-gpu, histogram and compare take one)", kind));
    }
    if (!plottable(*options.metric)) {
      throw PlotError(fmt::format("metric {} cannot be plotted", info(*options.metric).name));
    }
  }
  const PlotSize size = plot_size(options);
  for (const int side : {size.width_px, size.height_px}) {
    if (side < kMinSidePx || side > kMaxSidePx) {
      throw PlotError(fmt::format("picture size {}x{} is out of range: each side must be {} to {} pixels",
                                  size.width_px, size.height_px, kMinSidePx, kMaxSidePx));
    }
  }
}

PlotNeeds plot_needs(const PlotOptions& options) {
  switch (options.kind) {
    case PlotKind::Timeline: return detail::timeline_needs(options);
    case PlotKind::PerGpu: return detail::per_gpu_needs(options);
    case PlotKind::Balance: return detail::balance_needs(options);
    case PlotKind::Compare: return detail::compare_needs(options);
    case PlotKind::Histogram: return detail::histogram_needs(options);
  }
  throw PlotError("unknown plot kind");
}

PlotRun read_for_plot(RunData base, const DeviceColumns& columns, const PlotOptions& options,
                      const RollupSource* rollups) {
  const PlotNeeds needs = plot_needs(options);
  const auto width_px = static_cast<std::size_t>(plot_size(options).width_px);
  if (rollups != nullptr && draw_from_rollups(base.run, width_px)) {
    if (std::optional<PlotRun> run = reduce_run_from_rollups(base, *rollups, needs)) {
      run->base = std::move(base);
      return std::move(*run);
    }
  }
  return reduce_run(std::move(base), columns, needs);
}

PlotGeometry render_plot(Canvas& canvas, std::span<const PlotRun> runs, const PlotOptions& options) {
  check_plot_request(runs.size(), options);
  for (const PlotRun& run : runs) {
    if (!run.has_samples()) {
      const std::string& id = run.base.run.id;
      throw PlotError(fmt::format("run {} has no GPU samples to plot", id.empty() ? "(unnamed)" : id));
    }
  }
  switch (options.kind) {
    case PlotKind::Timeline: return detail::draw_timeline(canvas, runs[0], options);
    case PlotKind::PerGpu: return detail::draw_per_gpu(canvas, runs[0], options);
    case PlotKind::Balance: return detail::draw_balance(canvas, runs[0], options);
    case PlotKind::Compare: return detail::draw_compare(canvas, runs, options);
    case PlotKind::Histogram: return detail::draw_histogram(canvas, runs[0], options);
  }
  throw PlotError("unknown plot kind");
}

void write_plot(std::span<const PlotRun> runs, const PlotOptions& options, const std::filesystem::path& out) {
  file_format(out);  // a bad name fails before any drawing
  check_plot_request(runs.size(), options);
  const PlotSize size = plot_size(options, runs);
  write_canvas_file(out, size.width_px, size.height_px, [&](Canvas& canvas) { render_plot(canvas, runs, options); });
}

namespace {

std::vector<PlotRun> read_all(std::span<const RunData> runs, const PlotOptions& options) {
  std::vector<PlotRun> read;
  read.reserve(runs.size());
  for (const RunData& run : runs) read.push_back(read_for_plot(run_base(run), RunDataColumns(run), options));
  return read;
}

}  // namespace

PlotGeometry render_plot(Canvas& canvas, std::span<const RunData> runs, const PlotOptions& options) {
  check_plot_request(runs.size(), options);
  return render_plot(canvas, read_all(runs, options), options);
}

void write_plot(std::span<const RunData> runs, const PlotOptions& options, const std::filesystem::path& out) {
  file_format(out);
  check_plot_request(runs.size(), options);
  write_plot(read_all(runs, options), options, out);
}

}  // namespace gpuwatch::plot
