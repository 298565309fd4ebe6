// Utilization rules: seed 004's low utilization with its likely cause, and
// the balance between GPUs.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/advisor/rules.h"
#include "analysis/idle_gaps.h"
#include "analysis/stats.h"
#include "core/step_timing.h"

namespace gpuwatch::advisor_rules {

namespace {

std::span<const double> util_column(const DeviceSeries& s) { return column(s, DeviceMetric::GpuUtilPercent); }

// Share of the window's time (percent) with utilization below `threshold`,
// weighed as the means are.
std::optional<double> share_below(const DeviceSeries& s, double threshold) {
  const auto util = util_column(s);
  if (util.empty()) return std::nullopt;
  const std::vector<double> w = time_weights(s.mono_ns, util);
  double below = 0;
  double total = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (std::isnan(util[i])) continue;
    total += w[i];
    if (util[i] < threshold) below += w[i];
  }
  if (total <= 0) return std::nullopt;
  return below / total * 100;
}

// A loop starved of input that runs each batch in a few milliseconds may
// never read 5 % busy: the driver averages over ~1/6 s, so a 10 ms burst
// reads at most ~6 %, and often less. Its signature is then bursts of
// "anything at all" between readings of exactly 0, so the same detector
// runs again with any reading above zero counting as busy.
std::optional<IdleGapReport> bursts(const DeviceSeries& s) {
  constexpr double kAnyWork = 0.5;  // NVML reads whole percent: below this is 0
  return find_idle_gaps(s.mono_ns, util_column(s), {kAnyWork, 0});
}

struct InputSigns {
  std::optional<IdleGapReport> gaps;  // the report's (busy >= 5 %), or the bursts'
  bool from_bursts = false;
  // No reading reached the idle line all window long. Tiny kernels back to
  // back would read busy (utilization is the time any kernel runs), so a
  // job that holds the GPU but leaves it idle spends its time feeding it.
  bool idle_throughout = false;
  std::optional<double> tree_cpu_percent;
  std::optional<double> tree_read_bytes_per_s;
  bool gaps_say_input = false;
  bool cpu_says_input = false;
  bool reads_say_input = false;
  [[nodiscard]] bool any() const { return gaps_say_input || idle_throughout || cpu_says_input || reads_say_input; }
};

InputSigns input_signs(const Context& ctx, const DeviceView& d) {
  const AdvisorConfig& c = ctx.config;
  InputSigns signs;
  const auto enough = [&](const std::optional<IdleGapReport>& g) {
    return g && (g->count >= static_cast<std::size_t>(c.input_idle_gaps) || g->regular);
  };
  signs.gaps = d.report->idle_gaps;
  signs.idle_throughout = !signs.gaps;
  if (!enough(signs.gaps)) {
    const JudgedSamples samples(d, DeviceMetric::GpuUtilPercent);
    if (auto b = samples.get() ? bursts(*samples.get()) : std::nullopt; enough(b)) {
      signs.gaps = b;
      signs.from_bursts = true;
    }
  }
  signs.gaps_say_input = enough(signs.gaps);
  const RunReport& r = ctx.in.recent;
  if (const Summary* cpu = r.find_host(HostMetric::TreeCpuPercent)) {
    signs.tree_cpu_percent = cpu->mean;
    // A launch-bound GPU's process spends its core launching kernels one by
    // one: its busy CPU says nothing of its input (64x64 matmuls from Python
    // on an H200: utilization 17 %, SMs 0.3 %, the process at 101 % of a core).
    signs.cpu_says_input = cpu->mean >= c.input_tree_cpu_percent && !launch_bound(ctx, d);
  }
  if (const Summary* read = r.find_host(HostMetric::TreeReadBytesPerSec)) {
    signs.tree_read_bytes_per_s = read->mean;
    signs.reads_say_input = read->mean >= c.input_read_mib_per_s * kMiB;
  }
  return signs;
}

// ", idle all along", " with 12 idle gaps, reads at 300 MiB/s", ...: what
// follows "utilization 3 % over 60 s" in the summary.
std::string input_reason(const InputSigns& s) {
  std::vector<std::string> parts;
  if (s.gaps_say_input) {
    if (s.from_bursts) {
      parts.push_back(fmt::format("brief bursts of work between {} idle stretches", s.gaps->count));
    } else if (s.gaps->regular && s.gaps->typical_period_s) {
      parts.push_back(fmt::format("{} idle gaps, one every {}", s.gaps->count, seconds(*s.gaps->typical_period_s)));
    } else {
      parts.push_back(fmt::format("{} idle gaps", s.gaps->count));
    }
  }
  if (s.cpu_says_input) parts.push_back(fmt::format("the process tree busy at {} of a core", percent(*s.tree_cpu_percent)));
  if (s.reads_say_input) parts.push_back(fmt::format("reads at {:.0f} MiB/s", *s.tree_read_bytes_per_s / kMiB));
  std::string out = s.idle_throughout && !s.gaps_say_input ? ", idle all along" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? " with " : ", ") + parts[i];
  return out;
}

}  // namespace

std::optional<double> sustained_low_share(const Context& ctx, const DeviceView& d) {
  const AdvisorConfig& c = ctx.config;
  const Summary* util = d.report->find(DeviceMetric::GpuUtilPercent);
  // Sustained: low on average and low most of the time, so one long
  // evaluation pause in a busy window is not "low". The mean first: the
  // share may have to read a long run's samples.
  if (!util || util->span_s < ctx.min_coverage_s || util->mean >= c.util_low_percent) return std::nullopt;
  const JudgedSamples samples(d, DeviceMetric::GpuUtilPercent);
  if (!samples.get()) return std::nullopt;
  const auto share = share_below(*samples.get(), c.util_low_percent);
  if (!share || *share < c.util_low_share_percent) return std::nullopt;
  return share;
}

Advisory straggler_advisory(int index, double util_percent, double others_percent, std::size_t others,
                            std::optional<double> cv_percent) {
  std::vector<Evidence> evidence{{"util_mean_percent", util_percent, "percent"},
                                 {"others_util_mean_percent", others_percent, "percent"}};
  if (cv_percent) evidence.push_back({"cv_percent", *cv_percent, "percent"});
  return {"balance.straggler", Severity::Warning, index,
          fmt::format("utilization {} while the other {} {} {}: a straggler", percent(util_percent), others,
                      others == 1 ? "GPU reads" : "GPUs average", percent(others_percent)),
          std::move(evidence), "Compare its clocks, temperature, PCIe link and share of the data with the others'.",
          false};
}

namespace {

constexpr std::string_view kFeedFaster =
    "Feed it faster: more DataLoader workers (num_workers), pin_memory, a deeper prefetch, faster storage; then a "
    "larger batch.";

// "the training loop waits for data 62 % of each step (mean step 0.120 s over
// 480 steps)": the client's measurement, quoted by every util.* it bears on.
std::string measured_wait_sentence(const StepTiming& t) {
  return fmt::format("the training loop waits for data {} of each step (mean step {:.{}f} s over {:.0f} steps)",
                     percent(*t.data_wait_percent()), *t.mean_step_s(), kStepTimeInfo.display.decimals, t.steps);
}

void add_data_wait_evidence(const StepTiming& t, std::vector<Evidence>& evidence) {
  evidence.push_back({std::string(kDataWaitShareInfo.name), *t.data_wait_percent(), "percent"});
  evidence.push_back({std::string(kStepTimeInfo.name), *t.mean_step_s(), "seconds"});
  evidence.push_back({std::string(kTimedStepsInfo.name), t.steps, "count"});
}

// Direct evidence: the loop itself says how long it waits. Nullopt when it
// does not measure, or covered too few steps in the window.
std::optional<Severity> measured_input_bound(const Context& ctx) {
  if (!ctx.step_timing) return std::nullopt;
  // Judged as shown (0.1 %): "10 %" of waits summed from 0.1 s pieces must
  // not read as above 10.
  const double shown = std::pow(10.0, kDataWaitShareInfo.display.decimals);
  const double share = std::round(*ctx.step_timing->data_wait_percent() * shown) / shown;
  if (share > ctx.config.data_wait_critical_percent) return Severity::Critical;
  if (share > ctx.config.data_wait_warning_percent) return Severity::Warning;
  return std::nullopt;
}

// The loop waits for data while utilization is not low: raised from the
// measurement alone, as advice (the GPU is busy enough not to be "wasted").
void measured_wait_alone(const Context& ctx, const DeviceView& d, Severity severity, std::vector<Advisory>& out) {
  std::vector<Evidence> evidence;
  add_data_wait_evidence(*ctx.step_timing, evidence);
  if (const Summary* util = d.report->find(DeviceMetric::GpuUtilPercent)) {
    evidence.push_back({"util_mean_percent", util->mean, "percent"});
    evidence.push_back({"window_s", util->span_s, "seconds"});
  }
  out.push_back({"util.input_bound", severity, d.report->info.index,
                 measured_wait_sentence(*ctx.step_timing) + ": the GPU waits for its input", std::move(evidence),
                 std::string(kFeedFaster), false});
}

void low_utilization(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const AdvisorConfig& c = ctx.config;
  const auto measured = measured_input_bound(ctx);
  const auto share = sustained_low_share(ctx, d);
  if (!share) {
    if (measured) measured_wait_alone(ctx, d, *measured, out);
    return;
  }
  const Summary* util = d.report->find(DeviceMetric::GpuUtilPercent);

  const int index = d.report->info.index;
  std::vector<Evidence> evidence{{"util_mean_percent", util->mean, "percent"},
                                 {"util_max_percent", util->max, "percent"},
                                 {"util_low_share_percent", *share, "percent"},
                                 {"window_s", util->span_s, "seconds"}};
  const std::string level = fmt::format("utilization {} over {}", percent(util->mean), seconds(util->span_s));
  const InputSigns signs = input_signs(ctx, d);
  if (signs.gaps) {
    evidence.push_back({"idle_gaps", static_cast<double>(signs.gaps->count), "count"});
    evidence.push_back({"idle_total_s", signs.gaps->total_s, "seconds"});
  }
  if (signs.tree_cpu_percent) evidence.push_back({"tree_cpu_percent", *signs.tree_cpu_percent, "percent"});
  if (signs.tree_read_bytes_per_s) {
    evidence.push_back({"tree_read_bytes_per_second", *signs.tree_read_bytes_per_s, "bytes_per_second"});
  }
  const Summary* host = ctx.in.recent.find_host(HostMetric::CpuPercent);
  if (host) evidence.push_back({"host_cpu_percent", host->mean, "percent"});
  if (ctx.step_timing) add_data_wait_evidence(*ctx.step_timing, evidence);
  // Measured beats inferred: a loop that says it does not wait for data is
  // not input-bound, whatever the idle gaps or the CPU suggest.
  const bool input_bound = ctx.step_timing ? measured.has_value() : signs.any();

  // Every core is busy comes first: more loader workers cannot help then.
  if (host && host->mean >= c.host_cpu_percent) {
    out.push_back({"util.host_bound", Severity::Warning, index,
                   fmt::format("{} while the host's CPUs are {} busy: host-bound", level, percent(host->mean)),
                   std::move(evidence),
                   "Every core is busy, so more workers will not help: cut the CPU work per sample (decode or "
                   "augment on the GPU, cache preprocessed data) or stop other processes.",
                   true});
  } else if (input_bound) {
    const std::string why = measured ? "; " + measured_wait_sentence(*ctx.step_timing) : input_reason(signs);
    out.push_back({"util.input_bound", measured.value_or(Severity::Warning), index,
                   fmt::format("{}{}: the GPU waits for its input", level, why), std::move(evidence),
                   std::string(kFeedFaster), true});
  } else if (!launch_bound(ctx, d)) {
    // Launch-bound is said by util.launch_bound (rules_kernels.cpp).
    const std::string measured_not = ctx.step_timing ? " (" + measured_wait_sentence(*ctx.step_timing) + ")" : "";
    out.push_back({"util.low", Severity::Warning, index, level + ", cause unknown" + measured_not,
                   std::move(evidence),
                   "Try a larger batch size. If that does not help, the kernels may be too small: only GPUs with "
                   "SM-activity counters (NVIDIA Hopper and newer) can tell.",
                   true});
  }
}

void balance(const Context& ctx, std::vector<Advisory>& out) {
  const AdvisorConfig& c = ctx.config;
  std::vector<double> means;
  std::vector<int> indices;
  for (const DeviceView& d : ctx.devices) {
    const Summary* util = d.report->find(DeviceMetric::GpuUtilPercent);
    if (!util || util->span_s < ctx.min_coverage_s) continue;
    means.push_back(util->mean);
    indices.push_back(d.report->info.index);
  }
  // All GPUs idle is low utilization, not imbalance: spreads of small
  // numbers are noise.
  if (means.size() < 2 || *std::max_element(means.begin(), means.end()) < c.util_low_percent) return;
  const auto b = load_balance(means);
  if (!b) return;
  const auto [lowest, highest] = std::minmax_element(means.begin(), means.end());
  if (b->straggler) {
    const std::size_t s = *b->straggler;
    double others = 0;
    for (std::size_t i = 0; i < means.size(); ++i) others += i == s ? 0 : means[i];
    others /= static_cast<double>(means.size() - 1);
    if (std::abs(means[s] - others) >= c.straggler_gap_percent) {
      out.push_back(straggler_advisory(indices[s], means[s], others, means.size() - 1, b->cv_percent));
      return;
    }
  }
  if (b->cv_percent < c.imbalance_cv_percent) return;
  out.push_back({"balance.imbalance", Severity::Warning, std::nullopt,
                 fmt::format("utilization differs across {} GPUs ({} to {}, CV {}): the load is imbalanced",
                             means.size(), percent(*lowest), percent(*highest), percent(b->cv_percent)),
                 {{"cv_percent", b->cv_percent, "percent"},
                  {"util_min_percent", *lowest, "percent"},
                  {"util_max_percent", *highest, "percent"},
                  {"gpus", static_cast<double>(means.size()), "count"}},
                 "Give every GPU an equal share (DistributedSampler, equal shards) and check none is throttled.",
                 false});
}

}  // namespace

void utilization_rules(const Context& ctx, std::vector<Advisory>& out) {
  if (!ctx.warmed_up) return;
  for (const DeviceView& d : ctx.devices) low_utilization(ctx, d, out);
  balance(ctx, out);
}

}  // namespace gpuwatch::advisor_rules
