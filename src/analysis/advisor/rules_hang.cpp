// job.hung: the job's GPUs sit in a collective that never completes. Seen
// twice on H200s (issue 23): three GPUs at 100 % utilization with their SMs
// ~20 % active (NCCL spinning), NVLink silent, the fourth GPU idle because
// its rank ran one step fewer; PyTorch's own watchdog waits 10 minutes.
//
// Each job GPU takes a role from its last sample: waiting (utilization at
// collective_wait_util_percent or more, SMs launch-bound low where GPM is
// read) or missing (idle, or its process gone). A GPU with neither role is
// working: no hang. The stretch without progress is then walked back from
// the end, per GPU, while its role holds, its links are silent and its
// memory flat; the latest step or epoch annotation ends it too. Only a
// stretch longer than hang_after_s is a hang: a slow step is not one.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/advisor/rules.h"

namespace gpuwatch::advisor_rules {

namespace {

constexpr double kHungIdlePercent = 5;  // the idle-gap detector's line
// An allocation or a freed batch moves memory by more than this: progress.
constexpr double kFlatMemoryBytes = 256.0 * 1024 * 1024;
// An idle H200 holds 0.6 GiB of its own; a CUDA context and a model more.
constexpr double kJobMemoryBytes = 1024.0 * 1024 * 1024;

enum class HangRole { Waiting, Missing, Working };

struct HangGpu {
  int index = 0;
  HangRole role = HangRole::Working;
  std::int64_t quiet_since_ns = 0;
  std::optional<std::int64_t> gone_since_wall_ns;  // its process gone, from the process lists
};

struct SampleReader {
  const Context& ctx;
  const DeviceSeries& s;

  [[nodiscard]] double at(DeviceMetric m, std::size_t i) const {
    const auto c = column(s, m);
    return i < c.size() ? c[i] : kNaN;
  }
  [[nodiscard]] bool waiting(std::size_t i) const {
    const double util = at(DeviceMetric::GpuUtilPercent, i);
    const double sm = at(DeviceMetric::SmActivePercent, i);
    if (std::isnan(util)) return true;  // no reading breaks nothing
    if (util < ctx.config.collective_wait_util_percent) return false;
    return std::isnan(sm) || sm < util * ctx.config.launch_bound_sm_share_percent / 100;
  }
  [[nodiscard]] bool missing(std::size_t i, std::optional<std::int64_t> gone_since_wall_ns) const {
    if (gone_since_wall_ns && s.wall_ns.size() > i && s.wall_ns[i] >= *gone_since_wall_ns) return true;
    const double util = at(DeviceMetric::GpuUtilPercent, i);
    return std::isnan(util) || util < kHungIdlePercent;
  }
  // NVLink's and PCIe's tx + rx; NaN where neither was read at this sample.
  [[nodiscard]] double link_traffic(std::size_t i) const {
    double most = kNaN;
    for (const LinkCounters& link : kLinkCounters) {
      const double a = at(link.tx, i);
      const double b = at(link.rx, i);
      if (std::isnan(a) && std::isnan(b)) continue;
      const double sum = (std::isnan(a) ? 0 : a) + (std::isnan(b) ? 0 : b);
      most = std::isnan(most) ? sum : std::max(most, sum);
    }
    return most;
  }
};

std::optional<double> last_reading(std::span<const double> c) {
  for (auto it = c.rbegin(); it != c.rend(); ++it) {
    if (!std::isnan(*it)) return *it;
  }
  return std::nullopt;
}

// The GPU's role at its end and the first sample of the quiet run that ends there.
HangGpu quiet_stretch(const Context& ctx, const DeviceView& d, const DeviceSeries& s) {
  HangGpu g{d.report->info.index, HangRole::Working, 0, std::nullopt};
  if (s.mono_ns.empty()) return g;
  if (const std::optional<double> gone = process_gone_s(ctx, d)) {
    g.gone_since_wall_ns = s.wall_ns.back() - static_cast<std::int64_t>(*gone * 1e9);
  }
  const SampleReader r{ctx, s};
  const std::size_t last = s.mono_ns.size() - 1;
  if (r.waiting(last) && !std::isnan(r.at(DeviceMetric::GpuUtilPercent, last))) {
    g.role = HangRole::Waiting;
  } else if (r.missing(last, g.gone_since_wall_ns)) {
    g.role = HangRole::Missing;
  } else {
    return g;
  }
  const std::optional<double> memory_end = last_reading(column(s, DeviceMetric::MemUsedBytes));
  const double silent = ctx.config.link_silent_mib_per_s * kMiB;
  g.quiet_since_ns = s.mono_ns.back();
  for (std::size_t i = s.mono_ns.size(); i-- > 0;) {
    const bool in_role = g.role == HangRole::Waiting ? r.waiting(i) : r.missing(i, g.gone_since_wall_ns);
    const double link = r.link_traffic(i);
    const double memory = r.at(DeviceMetric::MemUsedBytes, i);
    const bool memory_flat = std::isnan(memory) || !memory_end || std::abs(memory - *memory_end) <= kFlatMemoryBytes;
    if (!in_role || (!std::isnan(link) && link >= silent) || !memory_flat) break;
    g.quiet_since_ns = s.mono_ns[i];
  }
  return g;
}

// A GPU can be the missing rank's only if the job used it: the command's
// processes were seen on it, or it held a model's memory in the span. A
// GPU that CUDA_VISIBLE_DEVICES shows but the job never touched idles as
// a missing rank's does, beside a GPU busy on its own (without GPM, a busy
// GPU reads as one waiting).
bool used_by_job(const Context& ctx, const DeviceView& d, const DeviceSeries& s) {
  const RunReport& r = ctx.in.recent;
  if (r.job_gpus.source == JobGpuSource::ProcessTree) return true;
  if (std::any_of(r.processes.begin(), r.processes.end(),
                  [&](const ProcessRecord& p) { return p.device_index == d.report->info.index; })) {
    return true;
  }
  // The report covers the span or part of it (a finished run read from its
  // columns has only its end in the span, the whole run in the report).
  if (const Summary* used = d.report->find(DeviceMetric::MemUsedBytes); used && used->max >= kJobMemoryBytes) return true;
  const auto memory = column(s, DeviceMetric::MemUsedBytes);
  return std::any_of(memory.begin(), memory.end(), [](double v) { return v >= kJobMemoryBytes; });
}

// The latest step or epoch annotation: the job moved then.
std::optional<std::int64_t> last_progress_event_ns(const RunData& data) {
  std::optional<std::int64_t> last;
  for (const Event& e : data.events) {
    if (e.kind == "step" || e.kind == "epoch") last = std::max(last.value_or(e.time.mono_ns), e.time.mono_ns);
  }
  return last;
}

const DeviceSeries* span_series(const RunData& span, int index) {
  const auto it = std::find_if(span.devices.begin(), span.devices.end(),
                               [&](const DeviceSeries& s) { return s.info.index == index; });
  return it == span.devices.end() ? nullptr : &*it;
}

// Means of the waiting GPUs' readings over the stretch.
struct StretchMeans {
  double util = 0;
  std::optional<double> sm_active;
  std::optional<double> link_most;
};

StretchMeans stretch_means(const Context& ctx, const RunData& span, const std::vector<HangGpu>& gpus,
                           std::int64_t since_ns) {
  double util = 0, sm = 0, most = kNaN;
  std::size_t n_util = 0, n_sm = 0;
  for (const HangGpu& g : gpus) {
    const DeviceSeries& s = *span_series(span, g.index);
    const SampleReader r{ctx, s};
    for (std::size_t i = 0; i < s.mono_ns.size(); ++i) {
      if (s.mono_ns[i] < since_ns) continue;
      if (const double link = r.link_traffic(i); !std::isnan(link)) most = std::isnan(most) ? link : std::max(most, link);
      if (g.role != HangRole::Waiting) continue;
      if (const double u = r.at(DeviceMetric::GpuUtilPercent, i); !std::isnan(u)) util += u, ++n_util;
      if (const double a = r.at(DeviceMetric::SmActivePercent, i); !std::isnan(a)) sm += a, ++n_sm;
    }
  }
  StretchMeans m;
  m.util = n_util ? util / static_cast<double>(n_util) : 0;
  if (n_sm) m.sm_active = sm / static_cast<double>(n_sm);
  if (!std::isnan(most)) m.link_most = most;
  return m;
}

std::string gpu_list(const std::vector<HangGpu>& gpus, HangRole role) {
  std::string out;
  for (const HangGpu& g : gpus) {
    if (g.role == role) out += fmt::format("{}{}", out.empty() ? "" : ", ", g.index);
  }
  return out;
}

Advisory hung_advisory(const Context& ctx, const RunData& span, const std::vector<HangGpu>& gpus,
                       std::int64_t since_ns, double stretch_s) {
  const StretchMeans m = stretch_means(ctx, span, gpus, since_ns);
  std::vector<Evidence> evidence{{"no_progress_s", stretch_s, "seconds"},
                                 {"hang_after_s", ctx.config.hang_after_s, "seconds"}};
  bool gone = false;
  for (const HangGpu& g : gpus) {
    evidence.push_back({g.role == HangRole::Waiting ? "waiting_gpu" : "missing_gpu", static_cast<double>(g.index), "gpu"});
    gone = gone || (g.role == HangRole::Missing && g.gone_since_wall_ns);
  }
  evidence.push_back({"waiting_util_mean_percent", m.util, "percent"});
  std::string shape = fmt::format("utilization {}", percent(m.util));
  if (m.sm_active) {
    evidence.push_back({"waiting_sm_active_mean_percent", *m.sm_active, "percent"});
    shape += fmt::format(", SMs {} active", percent(*m.sm_active));
  }
  std::string links;
  if (m.link_most) {
    evidence.push_back({"link_max_bytes_per_second", *m.link_most, "bytes_per_second"});
    links = ", links silent";
  }
  const std::string missing = gpu_list(gpus, HangRole::Missing);
  return {"job.hung", Severity::Critical, std::nullopt,
          fmt::format("no progress for {}: GPU {} wait in a collective ({}{}) for GPU {}, {}: the job is hung",
                      seconds(stretch_s), gpu_list(gpus, HangRole::Waiting), shape, links, missing,
                      gone ? "whose process is gone" : "idle"),
          std::move(evidence),
          fmt::format("Dump the ranks' stacks (py-spy dump; `record --on-hang signal=USR1` for a job that dumps on a "
                      "signal), find why the rank on GPU {} left the collective (fewer steps, an exception, a crash), "
                      "then restart the job.",
                      missing),
          false};
}

}  // namespace

void job_hung(const Context& ctx, std::vector<Advisory>& out) {
  if (ctx.devices.size() < 2) return;
  const RunData& span = ctx.in.hang_span ? *ctx.in.hang_span : ctx.in.recent_data;
  std::vector<HangGpu> gpus;
  std::int64_t since_ns = 0;
  std::int64_t end_ns = 0;
  for (const DeviceView& d : ctx.devices) {
    const DeviceSeries* s = span_series(span, d.report->info.index);
    if (!s || s->mono_ns.empty()) return;
    HangGpu g = quiet_stretch(ctx, d, *s);
    if (g.role == HangRole::Working) return;  // a GPU at work: the job moves
    if (g.role == HangRole::Missing && !used_by_job(ctx, d, *s)) continue;  // never the job's: no rank
    since_ns = std::max(since_ns, g.quiet_since_ns);
    end_ns = std::max(end_ns, s->mono_ns.back());
    gpus.push_back(g);
  }
  const auto has = [&](HangRole role) {
    return std::any_of(gpus.begin(), gpus.end(), [&](const HangGpu& g) { return g.role == role; });
  };
  if (!has(HangRole::Waiting) || !has(HangRole::Missing)) return;
  if (const auto step = last_progress_event_ns(span)) since_ns = std::max(since_ns, *step);
  const double stretch_s = static_cast<double>(end_ns - since_ns) / 1e9;
  if (stretch_s <= ctx.config.hang_after_s) return;
  out.push_back(hung_advisory(ctx, span, gpus, since_ns, stretch_s));
}

}  // namespace gpuwatch::advisor_rules
