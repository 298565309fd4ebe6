// Distributed jobs: a GPU waiting in a collective for another rank told
// apart from one running small kernels, and the rank they wait for named
// with what holds it back. On H200s (issue 23) a GPU waiting in an NCCL
// all-reduce read utilization ~100 % with its SMs 18-20 % active: NCCL's
// kernel spins, so the launch-bound shape. Small kernels look the same on
// every GPU of a balanced job with its links busy; a wait has a peer that
// is clearly less busy (the rank it waits for: its host holds it back), a
// peer as busy whose SMs do far more (it has more to compute: uneven
// shards), or silent links on every GPU of the same shape (the rank is
// elsewhere, another node). Measured on 2 x H200 (docs/verified.md): a
// balanced ResNet-50 step keeps the SMs at 60-67 % of utilization; waiting
// for a sleeping peer, 24 %; for a peer with 3x the batch, 43 % (its 88 %).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/advisor/rules.h"

namespace gpuwatch::advisor_rules {

namespace {

// A process last seen this long before the GPU's last sample is gone: the
// process lists are read every few seconds at most.
constexpr std::int64_t kProcessGoneNs = 10'000'000'000;
// Below this a GPU is idle (the idle-gap detector's line).
constexpr double kIdleUtilPercent = 5;

// NVLink's and PCIe's tx + rx over the window, the larger of the two; null
// when the GPU reads neither.
std::optional<double> window_link_traffic(const DeviceReport& r) {
  std::optional<double> out;
  for (const LinkCounters& link : kLinkCounters) {
    const Summary* a = r.find(link.tx);
    const Summary* b = r.find(link.rx);
    if (!a && !b) continue;
    out = std::max(out.value_or(0), (a ? a->mean : 0) + (b ? b->mean : 0));
  }
  return out;
}

std::optional<TypicalShape> typical_shape(const Context& ctx, const DeviceView& d) {
  const Summary* util = d.report->find(DeviceMetric::GpuUtilPercent);
  const Summary* sm = d.report->find(DeviceMetric::SmActivePercent);
  if (util == nullptr || sm == nullptr || util->span_s < ctx.min_coverage_s || sm->span_s < ctx.min_coverage_s) {
    return std::nullopt;
  }
  return TypicalShape{util->p50, sm->p50, util->span_s};
}

// Busy by utilization, its SMs far less so: NCCL's kernel spinning.
std::optional<TypicalShape> waiting_shape(const Context& ctx, const DeviceView& d) {
  const AdvisorConfig& c = ctx.config;
  const std::optional<TypicalShape> t = typical_shape(ctx, d);
  if (!t || t->util_median_percent < c.collective_wait_util_percent ||
      t->sm_active_median_percent >= t->util_median_percent * c.collective_wait_sm_share_percent / 100) {
    return std::nullopt;
  }
  return t;
}

bool links_silent(const Context& ctx, const DeviceView& d) {
  const std::optional<double> traffic = window_link_traffic(*d.report);
  return traffic && *traffic < ctx.config.link_silent_mib_per_s * kMiB;
}

const DeviceView* view_of(const Context& ctx, int index) {
  const auto it = std::find_if(ctx.devices.begin(), ctx.devices.end(),
                               [&](const DeviceView& d) { return d.report->info.index == index; });
  return it == ctx.devices.end() ? nullptr : &*it;
}

double util_mean(const DeviceView& d) {
  const Summary* u = d.report->find(DeviceMetric::GpuUtilPercent);
  return u ? u->mean : 0;
}

double util_median(const DeviceView& d) {
  const Summary* u = d.report->find(DeviceMetric::GpuUtilPercent);
  return u ? u->p50 : 0;
}

double sm_median(const DeviceView& d) {
  const Summary* sm = d.report->find(DeviceMetric::SmActivePercent);
  return sm ? sm->p50 : 0;
}

Advisory collective_wait_advisory(const DeviceView& d, const CollectiveWait& w) {
  std::vector<Evidence> evidence{{"util_median_percent", w.shape.util_median_percent, "percent"},
                                 {"sm_active_median_percent", w.shape.sm_active_median_percent, "percent"},
                                 {"window_s", w.shape.window_s, "seconds"}};
  std::string why;
  if (w.waits_for) {
    evidence.push_back({"waits_for_gpu", static_cast<double>(*w.waits_for), "gpu"});
    evidence.push_back({"waited_util_median_percent", *w.peer_util_percent, "percent"});
    if (w.peer_sm_percent) {
      evidence.push_back({"waited_sm_active_median_percent", *w.peer_sm_percent, "percent"});
      why = fmt::format("while GPU {}'s SMs are active {}", *w.waits_for, percent(*w.peer_sm_percent));
    } else {
      why = fmt::format("while GPU {} reads {}", *w.waits_for, percent(*w.peer_util_percent));
    }
  } else {
    why = "with the links silent and every other GPU of the job in the same state";
  }
  if (w.link_bytes_per_s) evidence.push_back({"link_bytes_per_second", *w.link_bytes_per_s, "bytes_per_second"});
  return {"util.collective_wait", Severity::Warning, d.report->info.index,
          fmt::format("utilization {} but the SMs active only {} (medians over {}) {}: it waits in a collective for "
                      "another rank, not on small kernels",
                      percent(w.shape.util_median_percent), percent(w.shape.sm_active_median_percent),
                      seconds(w.shape.window_s), why),
          std::move(evidence),
          w.waits_for ? fmt::format("Speed up the rank on GPU {} (balance.straggler says what holds it back); "
                                    "larger kernels here would not help.",
                                    *w.waits_for)
                      : std::string("Find the rank the job waits for (another node's GPUs, a rank stopped in its "
                                    "host code); larger kernels here would not help."),
          false};
}

struct StragglerCause {
  std::vector<std::string> words;
  std::vector<Evidence> evidence;
  std::string suggestion;
};

void throttle_cause(const Context& ctx, const DeviceView& d, StragglerCause& c) {
  const auto& t = d.report->throttle;
  if (!t) return;
  if (t->thermal_percent >= ctx.config.throttle_thermal_percent) {
    c.words.push_back(fmt::format("its clocks held down by heat {} of the time", percent(t->thermal_percent)));
    c.evidence.push_back({"thermal_throttled_percent", t->thermal_percent, "percent"});
    c.suggestion = "Check its cooling: fans, airflow, dust; the other ranks wait for it.";
  }
  if (t->power_percent >= ctx.config.throttle_power_percent) {
    c.words.push_back(fmt::format("its clocks held down by the power limit {} of the time", percent(t->power_percent)));
    c.evidence.push_back({"power_throttled_percent", t->power_percent, "percent"});
    if (c.suggestion.empty()) c.suggestion = "Check its power limit against the others' (nvidia-smi -q -d POWER).";
  }
}

// What holds the straggler back, where gpuwatch measures it. The host's CPU
// and the loader are measured per host and per job, not per rank: a busy
// host is named as such, never pinned on one rank.
StragglerCause straggler_cause(const Context& ctx, const DeviceView& d) {
  StragglerCause c;
  throttle_cause(ctx, d, c);
  if (const std::optional<double> gone = process_gone_s(ctx, d)) {
    c.words.push_back(fmt::format("its process gone ({} ago)", seconds(*gone)));
    c.evidence.push_back({"process_gone_s", *gone, "seconds"});
    c.suggestion = "Its rank's process ended: find why (its log, an exception, fewer steps than the others).";
  } else if (util_mean(d) < kIdleUtilPercent) {
    c.words.emplace_back("idle: its rank stopped feeding it");
    if (c.suggestion.empty()) {
      c.suggestion = "Find where its rank stopped (py-spy dump of its process): fewer steps than the others, an "
                     "exception, a wait on something else.";
    }
  }
  if (const Summary* host = ctx.in.recent.find_host(HostMetric::CpuPercent);
      host && host->mean >= ctx.config.host_cpu_percent) {
    c.words.push_back(fmt::format("the host's CPUs {} busy (which rank's process uses them is not measured)",
                                  percent(host->mean)));
    c.evidence.push_back({"host_cpu_percent", host->mean, "percent"});
    if (c.suggestion.empty()) c.suggestion = "Relieve its host: fewer CPU-heavy processes, less CPU work per sample.";
  }
  return c;
}

// `busier`: the straggler is the GPU with more to compute (the waits point
// at its SMs), so only what slows its GPU can be its cause; its host is not.
void name_straggler_cause(const Context& ctx, Advisory& straggler, bool busier) {
  const DeviceView* d = straggler.device_index ? view_of(ctx, *straggler.device_index) : nullptr;
  if (!d) return;
  StragglerCause c;
  if (busier) {
    throttle_cause(ctx, *d, c);
  } else {
    c = straggler_cause(ctx, *d);
  }
  if (c.words.empty()) {
    if (!busier) {
      straggler.summary += "; not throttled, its process alive, the host not saturated: its rank's own work "
                           "(data loading, CPU steps) is the likely cause";
    }
    return;
  }
  std::string words;
  for (const std::string& w : c.words) words += (words.empty() ? "" : ", ") + w;
  straggler.summary += "; " + words;
  for (Evidence& e : c.evidence) straggler.evidence.push_back(std::move(e));
  if (!c.suggestion.empty()) straggler.suggestion = c.suggestion;
}

// The GPU the others wait for because it computes more: as busy as they
// are by utilization, its SMs far more active.
Advisory busier_straggler_advisory(const Context& ctx, int index) {
  double others = 0;
  for (const DeviceView& d : ctx.devices) others += d.report->info.index == index ? 0 : sm_median(d);
  const std::size_t n = ctx.devices.size() - 1;
  others /= static_cast<double>(n);
  const double sm = sm_median(*view_of(ctx, index));
  return {"balance.straggler", Severity::Warning, index,
          fmt::format("SMs active {} while the other {} {} {} (medians), waiting for it in collectives: a straggler "
                      "with more to compute than the others",
                      percent(sm), n, n == 1 ? "GPU's are" : "GPUs' average", percent(others)),
          {{"sm_active_median_percent", sm, "percent"},
           {"others_sm_active_median_percent", others, "percent"},
           {"util_median_percent", util_median(*view_of(ctx, index)), "percent"}},
          "Give every rank an equal share: equal shards and batch sizes (DistributedSampler), similar sequence "
          "lengths per rank.",
          false};
}

void collective_waits(const Context& ctx, std::vector<Advisory>& out) {
  std::map<int, int> named;     // GPU -> how many waits name it
  std::map<int, bool> busier;  // GPU -> the waits point at its SMs
  for (const DeviceView& d : ctx.devices) {
    const std::optional<CollectiveWait> w = collective_wait(ctx, d);
    if (!w) continue;
    out.push_back(collective_wait_advisory(d, *w));
    if (w->waits_for) {
      ++named[*w->waits_for];
      busier[*w->waits_for] = w->peer_sm_percent.has_value();
    }
  }
  auto straggler = std::find_if(out.begin(), out.end(), [](const Advisory& a) { return a.id == "balance.straggler"; });
  // Two GPUs, or a spread the balance detector does not single out: the
  // waits still point at one rank.
  if (straggler == out.end() && !named.empty()) {
    const int index = std::max_element(named.begin(), named.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                      })->first;
    if (busier[index]) {
      out.push_back(busier_straggler_advisory(ctx, index));
    } else {
      double others = 0;
      for (const DeviceView& d : ctx.devices) others += d.report->info.index == index ? 0 : util_mean(d);
      const std::size_t n = ctx.devices.size() - 1;
      out.push_back(straggler_advisory(index, util_mean(*view_of(ctx, index)), others / static_cast<double>(n), n,
                                       std::nullopt));
    }
    straggler = out.end() - 1;
  }
  if (straggler != out.end()) {
    const bool by_sm = straggler->device_index && busier.contains(*straggler->device_index) &&
                       busier[*straggler->device_index];
    name_straggler_cause(ctx, *straggler, by_sm);
  }
}

}  // namespace

std::optional<double> process_gone_s(const Context& ctx, const DeviceView& d) {
  if (!d.end || d.end->wall_ns.empty()) return std::nullopt;
  std::optional<std::int64_t> last_seen;
  for (const ProcessRecord& p : ctx.in.recent.processes) {
    if (p.device_index == d.report->info.index) last_seen = std::max(last_seen.value_or(0), p.last_seen_wall_ns);
  }
  const std::int64_t end = d.end->wall_ns.back();
  if (!last_seen || end - *last_seen < kProcessGoneNs) return std::nullopt;
  return static_cast<double>(end - *last_seen) / 1e9;
}

std::optional<CollectiveWait> collective_wait(const Context& ctx, const DeviceView& d) {
  const AdvisorConfig& c = ctx.config;
  if (ctx.devices.size() < 2) return std::nullopt;
  const std::optional<TypicalShape> shape = waiting_shape(ctx, d);
  if (!shape) return std::nullopt;
  CollectiveWait w{*shape, std::nullopt, std::nullopt, std::nullopt, window_link_traffic(*d.report)};
  const DeviceView* least = nullptr;    // the least busy peer
  const DeviceView* hardest = nullptr;  // the peer whose SMs are the most active
  bool all_wait_silently = links_silent(ctx, d);
  for (const DeviceView& p : ctx.devices) {
    if (p.report == d.report) continue;
    if (!typical_shape(ctx, p)) {
      all_wait_silently = false;
      continue;
    }
    if (!least || util_median(p) < util_median(*least)) least = &p;
    if (!hardest || sm_median(p) > sm_median(*hardest)) hardest = &p;
    if (!waiting_shape(ctx, p) || !links_silent(ctx, p)) all_wait_silently = false;
  }
  if (least && util_median(*least) <= shape->util_median_percent - c.straggler_gap_percent &&
      !waiting_shape(ctx, *least)) {
    w.waits_for = least->report->info.index;
    w.peer_util_percent = util_median(*least);
    return w;
  }
  if (hardest && util_median(*hardest) >= c.collective_wait_util_percent && !waiting_shape(ctx, *hardest) &&
      sm_median(*hardest) >= shape->sm_active_median_percent * (1 + c.collective_wait_peer_sm_excess_percent / 100)) {
    w.waits_for = hardest->report->info.index;
    w.peer_util_percent = util_median(*hardest);
    w.peer_sm_percent = sm_median(*hardest);
    return w;
  }
  if (all_wait_silently) return w;
  return std::nullopt;
}

void distributed_rules(const Context& ctx, std::vector<Advisory>& out) {
  if (ctx.warmed_up) collective_waits(ctx, out);
  job_hung(ctx, out);
}

}  // namespace gpuwatch::advisor_rules
