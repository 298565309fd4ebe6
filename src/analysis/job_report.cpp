#include "analysis/job_report.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

std::optional<double> value(const JobRun& r, GroupColumn c) { return r.values[static_cast<std::size_t>(c)]; }

std::optional<double> sum(const std::vector<std::optional<double>>& xs) {
  std::optional<double> out;
  for (const auto& x : xs) {
    if (x) out = out.value_or(0) + *x;
  }
  return out;
}

JobNode node_of(const std::vector<JobRun>& runs, std::string host, std::vector<std::size_t> members) {
  JobNode n;
  n.host = std::move(host);
  n.runs = std::move(members);
  double weighted = 0;
  double weight = 0;
  std::vector<std::optional<double>> power;
  std::vector<std::optional<double>> energy;
  for (std::size_t i : n.runs) {
    const JobRun& r = runs[i];
    n.gpus += r.gpus.size();
    if (const auto util = value(r, GroupColumn::GpuUtilPercent)) {
      // A run without a duration (one sample) still counts, a little.
      const double w = std::max(value(r, GroupColumn::DurationS).value_or(0), 1e-9);
      weighted += *util * w;
      weight += w;
    }
    power.push_back(value(r, GroupColumn::PowerWatts));
    energy.push_back(value(r, GroupColumn::EnergyJoules));
    if (r.steps_per_s) n.steps_per_s = std::min(n.steps_per_s.value_or(*r.steps_per_s), *r.steps_per_s);
  }
  if (weight > 0) n.util_mean = weighted / weight;
  n.power_watts = sum(power);
  n.energy_joules = sum(energy);
  return n;
}

double mean_of_others(const std::vector<std::pair<std::size_t, double>>& xs, std::size_t except) {
  double total = 0;
  std::size_t n = 0;
  for (const auto& [node, v] : xs) {
    if (node == except) continue;
    total += v;
    ++n;
  }
  return n == 0 ? 0 : total / static_cast<double>(n);
}

// The step-rate rule; nullopt (with `why` said) when it does not apply.
std::optional<Straggler> by_step_rate(const std::vector<JobNode>& nodes, std::string& why) {
  std::vector<std::pair<std::size_t, double>> rates;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].steps_per_s) rates.emplace_back(i, *nodes[i].steps_per_s);
  }
  if (rates.size() < 2) return std::nullopt;
  const auto [slow, fast] = std::minmax_element(rates.begin(), rates.end(),
                                                [](const auto& a, const auto& b) { return a.second < b.second; });
  const double spread = fast->second > 0 ? (fast->second - slow->second) / fast->second * 100 : 0;
  if (spread <= kStepRateSpreadPercent) {
    why = fmt::format("the nodes' step rates agree within {:.1f} % (lockstep: the steps do not say which node the "
                      "others wait for); ",
                      spread);
    return std::nullopt;
  }
  return Straggler{slow->first, StragglerRule::StepRate, slow->second, mean_of_others(rates, slow->first)};
}

}  // namespace

std::string_view to_string(StragglerRule rule) {
  return rule == StragglerRule::StepRate ? "step_rate" : "utilization";
}

std::optional<double> step_rate(const std::vector<Event>& events) {
  std::optional<std::pair<std::int64_t, std::int64_t>> first;  // (mono_ns, step)
  std::optional<std::pair<std::int64_t, std::int64_t>> last;
  for (const Event& e : events) {
    if (e.kind != "step") continue;
    std::int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(e.message.data(), e.message.data() + e.message.size(), n);
    if (ec != std::errc() || ptr != e.message.data() + e.message.size()) continue;
    if (!first) first = {e.time.mono_ns, n};
    last = {e.time.mono_ns, n};
  }
  if (!first || last->first <= first->first || last->second < first->second) return std::nullopt;
  return static_cast<double>(last->second - first->second) / (static_cast<double>(last->first - first->first) / 1e9);
}

JobRun job_run(const RunData& data) {
  JobRun r;
  r.run = data.run;
  const RunReport report = build_report(data);
  r.values = group_values(data, report);
  for (const DeviceReport& d : report.devices) {
    JobGpu g{d.info.index, d.info.name, std::nullopt, std::nullopt};
    if (const Summary* s = d.find(DeviceMetric::GpuUtilPercent)) g.util_mean = s->mean;
    if (const Summary* s = d.find(DeviceMetric::MemUsedBytes)) g.mem_used_peak = s->max;
    r.gpus.push_back(std::move(g));
  }
  r.steps_per_s = step_rate(data.events);
  return r;
}

JobReport build_job_report(std::string job_id, std::vector<JobRun> runs) {
  JobReport j;
  j.job_id = std::move(job_id);
  j.runs = std::move(runs);
  std::stable_sort(j.runs.begin(), j.runs.end(), [](const JobRun& a, const JobRun& b) {
    const auto rank = [](const JobRun& r) { return r.run.job.rank.value_or(-1); };
    if (a.run.host != b.run.host) return a.run.host < b.run.host;
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.run.start_wall_ns < b.run.start_wall_ns;
  });

  std::map<std::string, std::vector<std::size_t>> by_host;
  std::optional<std::int64_t> first_start;
  std::optional<std::int64_t> last_end;
  std::vector<std::optional<double>> energy;
  for (std::size_t i = 0; i < j.runs.size(); ++i) {
    const JobRun& r = j.runs[i];
    by_host[r.run.host].push_back(i);
    j.gpus += r.gpus.size();
    energy.push_back(value(r, GroupColumn::EnergyJoules));
    first_start = std::min(first_start.value_or(r.run.start_wall_ns), r.run.start_wall_ns);
    if (const auto d = value(r, GroupColumn::DurationS)) {
      const auto end = r.run.start_wall_ns + static_cast<std::int64_t>(*d * 1e9);
      last_end = std::max(last_end.value_or(end), end);
    }
  }
  if (first_start && last_end) j.span_s = static_cast<double>(*last_end - *first_start) / 1e9;
  j.energy_joules = sum(energy);
  for (auto& [host, members] : by_host) j.nodes.push_back(node_of(j.runs, host, std::move(members)));

  std::vector<double> utils;
  std::vector<std::size_t> with_util;
  for (std::size_t i = 0; i < j.nodes.size(); ++i) {
    if (!j.nodes[i].util_mean) continue;
    utils.push_back(*j.nodes[i].util_mean);
    with_util.push_back(i);
  }
  j.node_balance = load_balance(utils);

  if (j.nodes.size() < 2) {
    j.straggler_reason = "one node: no other node to hold back";
    return j;
  }
  std::string why;
  if ((j.straggler = by_step_rate(j.nodes, why))) {
    j.straggler_reason = fmt::format(
        "step rate: {} logged the fewest steps per second, {:.3g} against {:.3g} on the other nodes (rates more "
        "than {} % apart)",
        j.nodes[j.straggler->node].host, j.straggler->value, j.straggler->others_mean, kStepRateSpreadPercent);
    return j;
  }
  if (!j.node_balance) {
    j.straggler_reason = why + "fewer than two nodes have a GPU utilization: none named";
    return j;
  }
  if (j.node_balance->band == BalanceBand::Excellent || j.node_balance->band == BalanceBand::Good) {
    j.straggler_reason = why + fmt::format("the nodes' utilization CV {:.1f} % is within the 'good' band (< 10 %): "
                                           "none named",
                                           j.node_balance->cv_percent);
    return j;
  }
  const auto lowest = static_cast<std::size_t>(std::min_element(utils.begin(), utils.end()) - utils.begin());
  std::vector<std::pair<std::size_t, double>> pairs;
  for (std::size_t k = 0; k < utils.size(); ++k) pairs.emplace_back(with_util[k], utils[k]);
  j.straggler = Straggler{with_util[lowest], StragglerRule::Utilization, utils[lowest],
                          mean_of_others(pairs, with_util[lowest])};
  j.straggler_reason = why + fmt::format(
      "utilization: {}'s GPUs were the least busy, {:.1f} % against {:.1f} % on the other nodes (CV {:.1f} %, {}): "
      "the others likely waited for it",
      j.nodes[j.straggler->node].host, j.straggler->value, j.straggler->others_mean, j.node_balance->cv_percent,
      to_string(j.node_balance->band));
  return j;
}

}  // namespace gpuwatch
