// Memory rules: seed 002's batch-size matrix, leaks (per epoch, else the
// window's steady trend) and sudden drops.
#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "analysis/advisor/rules.h"
#include "analysis/memory_trend.h"
#include "analysis/stats.h"

namespace gpuwatch::advisor_rules {

namespace {

void batch_size_matrix(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const Summary* used = d.report->find(DeviceMetric::MemUsedBytes);
  if (!used || !d.total_bytes || used->span_s < ctx.min_coverage_s) return;
  const AdvisorConfig& c = ctx.config;
  const double total = *d.total_bytes;
  // The window's high level, not its mean: the batch-size question is how
  // close the job comes to the limit, and memory dips between phases.
  const double p95 = used->p95 / total * 100;
  std::vector<Evidence> evidence{{"mem_used_p95_percent", p95, "percent"},
                                 {"mem_used_p95_bytes", used->p95, "bytes"},
                                 {"mem_total_bytes", total, "bytes"},
                                 {"window_s", used->span_s, "seconds"}};
  if (ctx.model.params) evidence.push_back({"model_params", *ctx.model.params, "params"});
  const std::string level = fmt::format("memory {} of {} (p95 over {})", percent(p95), gib(total), seconds(used->span_s));
  const int index = d.report->info.index;
  if (p95 < c.memory_low_percent) {
    out.push_back({"memory.batch_too_small", Severity::Warning, index, level + ": the batch is too small", evidence,
                   fmt::format("Try about 2x the batch size; below {} of GPU memory the GPU is underused.",
                               percent(c.memory_low_percent)),
                   true});
  } else if (p95 < c.memory_good_percent) {
    if (ctx.model.size == ModelSize::Small) return;  // seed 002: fine for a small model
    const bool large = ctx.model.size == ModelSize::Large;
    out.push_back({"memory.batch_could_grow", Severity::Info, index,
                   level + (large ? ": a large model's batch could grow" : ": the batch could grow if the model is large"),
                   evidence,
                   large ? fmt::format("Optionally try about 1.5x the batch size; {}-{} is the target.",
                                       percent(c.memory_good_percent), percent(c.memory_high_percent))
                         : "Optionally try about 1.5x the batch size; a small model is fine here "
                           "(say --model-size, or log model_params).",
                   false});
  } else if (p95 > c.memory_high_percent) {
    out.push_back({"memory.near_oom", Severity::Info, index, level + ": near out-of-memory", evidence,
                   "Keep the batch size: a larger batch, longer inputs or a memory spike may not fit.", false});
  }
}

// Peaks of one device, epoch by epoch. Returns whether the epochs were
// enough to judge: then the window's trend is not asked.
bool epoch_leak(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const AdvisorConfig& c = ctx.config;
  const int index = d.report->info.index;
  struct Peak {
    const EpochPeak* epoch;
    double bytes;
  };
  std::vector<Peak> peaks;
  for (const EpochPeak& e : ctx.in.epochs) {
    for (const DevicePeak& p : e.devices) {
      if (p.device_index == index) peaks.push_back({&e, p.peak_bytes});
    }
  }
  const auto min_epochs = static_cast<std::size_t>(c.leak_min_epochs);
  if (peaks.size() < min_epochs) return false;
  // The run of growing peaks that ends with the latest epoch: a model that
  // allocates in its first epoch and then holds its level is no leak.
  const double step_bytes = c.leak_epoch_growth_mib * kMiB;
  std::size_t first = peaks.size() - 1;
  while (first > 0 && peaks[first].bytes - peaks[first - 1].bytes > step_bytes) --first;
  const std::size_t epochs = peaks.size() - first;
  const Peak& start = peaks[first];
  const Peak& last = peaks.back();
  const double growth = last.bytes - start.bytes;
  const double reference = d.total_bytes.value_or(start.bytes);
  if (epochs < min_epochs || growth <= c.leak_total_growth_percent / 100 * reference) return true;

  const double per_epoch = growth / static_cast<double>(epochs - 1);
  std::vector<Evidence> evidence{{"epochs_growing", static_cast<double>(epochs), "count"},
                                 {"growth_bytes", growth, "bytes"},
                                 {"growth_per_epoch_bytes", per_epoch, "bytes"},
                                 {"peak_bytes", last.bytes, "bytes"}};
  Severity severity = Severity::Warning;
  std::string outlook;
  if (d.total_bytes) {
    const double peak_percent = last.bytes / *d.total_bytes * 100;
    const double epochs_left = std::max(0.0, std::floor((*d.total_bytes - last.bytes) / per_epoch));
    evidence.push_back({"peak_percent", peak_percent, "percent"});
    evidence.push_back({"epochs_to_full", epochs_left, "count"});
    if (peak_percent > c.memory_high_percent) severity = Severity::Critical;
    outlook = fmt::format("; at this rate memory runs out in about {:.0f} epochs", epochs_left);
  }
  out.push_back({"memory.leak", severity, index,
                 fmt::format("peak memory grew in each of the last {} epochs ({} to {}), {} in all: a leak", epochs,
                             start.epoch->label, last.epoch->label, gib(growth)),
                 std::move(evidence),
                 "Look for tensors kept across steps (a loss summed without .item(), outputs kept in a list)" +
                     outlook + ".",
                 false});
  return true;
}

// How much a part of the window grew: the median of its last third less
// the median of its first third. Medians, so that one odd reading (memory
// freed as the process exits, the last sample of a run) does not undo a
// climb. Nullopt for fewer than three samples.
std::optional<double> part_growth(std::span<const double> value) {
  if (value.size() < 3) return std::nullopt;
  const std::size_t third = value.size() / 3;
  const auto median = [](std::span<const double> v) {
    std::vector<double> copy(v.begin(), v.end());
    const auto mid = copy.begin() + static_cast<std::ptrdiff_t>(copy.size() / 2);
    std::nth_element(copy.begin(), mid, copy.end());
    return *mid;
  };
  return median(value.last(third)) - median(value.first(third));
}

// Steady growth: every quarter of the window grows by at least a tenth of
// the window's growth (part_growth(); a linear climb gives each about a
// fifth). A phase
// that allocates once (validation's first batch) is a step in one quarter;
// a warm-up that rose for 30 s and then held leaves a quarter flat in any
// window of 60 s or more (issue 23: it was called a possible leak while the
// window still held its rise in both halves).
bool grows_in_every_quarter(const DeviceView& d, double growth_bytes) {
  const JudgedSamples samples(d, DeviceMetric::MemUsedBytes);
  if (!samples.get()) return false;
  const auto memory = column(*samples.get(), DeviceMetric::MemUsedBytes);
  if (memory.empty()) return false;
  const PresentSamples p = present_samples(samples.get()->mono_ns, memory);
  if (p.time_ns.size() < 12) return false;
  constexpr int kParts = 4;
  constexpr double kShareOfGrowth = 0.1;
  const std::int64_t span_ns = p.time_ns.back() - p.time_ns.front();
  std::size_t begin = 0;
  for (int part = 1; part <= kParts; ++part) {
    const std::int64_t until_ns = p.time_ns.front() + span_ns * part / kParts;
    auto end = static_cast<std::size_t>(std::upper_bound(p.time_ns.begin(), p.time_ns.end(), until_ns) - p.time_ns.begin());
    if (part == kParts) end = p.time_ns.size();
    const auto grown = part_growth(std::span<const double>(p.value).subspan(begin, end - begin));
    if (!grown || *grown < kShareOfGrowth * growth_bytes) return false;
    begin = end;
  }
  return true;
}

void window_growth(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const auto& trend = d.report->memory;
  if (!trend || !d.total_bytes) return;
  const AdvisorConfig& c = ctx.config;
  const double growth_percent = trend->growth_bytes / *d.total_bytes * 100;
  const double mib_per_min = trend->slope_bytes_per_hour / 60 / kMiB;
  if (growth_percent < c.growing_min_percent || mib_per_min < c.growing_min_mib_per_min) return;
  if (!grows_in_every_quarter(d, trend->growth_bytes)) return;
  const Summary* used = d.report->find(DeviceMetric::MemUsedBytes);
  const double window = used ? used->span_s : 0;
  out.push_back({"memory.growing", Severity::Warning, d.report->info.index,
                 fmt::format("memory grew {} ({} of the GPU) over {}, steadily: a possible leak",
                             gib(trend->growth_bytes), percent(growth_percent), seconds(window)),
                 {{"growth_bytes", trend->growth_bytes, "bytes"},
                  {"growth_percent", growth_percent, "percent"},
                  {"slope_bytes_per_minute", trend->slope_bytes_per_hour / 60, "bytes_per_minute"},
                  {"window_s", window, "seconds"}},
                 "Look for tensors kept across steps; log epochs (kind \"epoch\") for a surer verdict.", false});
}

void sudden_drop(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const auto& trend = d.report->memory;
  if (!trend || !d.total_bytes || trend->drops.empty()) return;
  const auto largest = std::max_element(trend->drops.begin(), trend->drops.end(), [](const auto& a, const auto& b) {
    return a.from_bytes - a.to_bytes < b.from_bytes - b.to_bytes;
  });
  const double fall = largest->from_bytes - largest->to_bytes;
  if (fall < ctx.config.drop_min_percent / 100 * *d.total_bytes) return;
  std::vector<Evidence> evidence{{"from_bytes", largest->from_bytes, "bytes"},
                                 {"to_bytes", largest->to_bytes, "bytes"},
                                 {"fall_percent", fall / *d.total_bytes * 100, "percent"}};
  std::string when;
  if (d.end && !d.end->mono_ns.empty()) {
    const double ago_s = static_cast<double>(d.end->mono_ns.back() - largest->time_ns) / 1e9;
    evidence.push_back({"seconds_ago", ago_s, "seconds"});
    when = fmt::format(", {} ago", seconds(ago_s));
  }
  out.push_back({"memory.drop", Severity::Info, d.report->info.index,
                 fmt::format("memory fell suddenly from {} to {}{}", gib(largest->from_bytes), gib(largest->to_bytes),
                             when),
                 std::move(evidence),
                 "If the batch size or the model did not change on purpose, check whether a process died "
                 "or a phase freed its cache.",
                 false});
}

}  // namespace

void memory_rules(const Context& ctx, std::vector<Advisory>& out) {
  if (!ctx.warmed_up) return;
  for (const DeviceView& d : ctx.devices) {
    batch_size_matrix(ctx, d, out);
    if (!epoch_leak(ctx, d, out)) window_growth(ctx, d, out);
    sudden_drop(ctx, d, out);
  }
}

}  // namespace gpuwatch::advisor_rules
