#include "analysis/advisor/causes.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

struct Action {
  std::string_view id;
  std::string_view action;
};

constexpr std::array<Action, 18> kActions{{
    {"job.hung", "restart_hung_job"},
    {"util.collective_wait", "find_straggler"},
    {"util.input_bound", "feed_faster"},
    {"util.host_bound", "relieve_host"},
    {"util.launch_bound", "fuse_kernels"},
    {"util.tensor_idle", "use_tensor_cores"},
    {"util.low", "raise_batch"},
    {"memory.batch_too_small", "raise_batch"},
    {"memory.batch_could_grow", "raise_batch"},
    {"memory.leak", "fix_leak"},
    {"memory.growing", "watch"},
    {"memory.near_oom", "reduce_memory"},
    {"memory.drop", "watch"},
    {"balance.imbalance", "rebalance"},
    {"balance.straggler", "fix_straggler"},
    {"throttle.thermal", "check_cooling"},
    {"throttle.power", "check_power_limit"},
    {"pcie.degraded", "check_pcie_link"},
}};

// A cause and a consequence it explains on the same GPU (or on every GPU,
// when the cause is about the run as a whole), with what the consequence's
// fix waits for.
struct Link {
  std::string_view cause;
  std::string_view consequence;
  std::string_view first;  // "once <first>: <the consequence's suggestion>"
};

// First: a hang explains everything after it, on every GPU.
constexpr std::array<Link, 9> kHangLinks{{
    {"job.hung", "balance.straggler", "the job runs again"},
    {"job.hung", "balance.imbalance", "the job runs again"},
    {"job.hung", "util.collective_wait", "the job runs again"},
    {"job.hung", "util.launch_bound", "the job runs again"},
    {"job.hung", "util.low", "the job runs again"},
    {"job.hung", "util.input_bound", "the job runs again"},
    {"job.hung", "util.host_bound", "the job runs again"},
    {"job.hung", "memory.batch_too_small", "the job runs again"},
    {"job.hung", "memory.batch_could_grow", "the job runs again"},
}};

constexpr std::array<Link, 9> kLinks{{
    {"util.input_bound", "memory.batch_too_small", "the input keeps up"},
    {"util.input_bound", "memory.batch_could_grow", "the input keeps up"},
    {"util.host_bound", "memory.batch_too_small", "the host keeps up"},
    {"util.host_bound", "memory.batch_could_grow", "the host keeps up"},
    // A rank whose GPU waits for its own input or host is the one the others wait for.
    {"util.input_bound", "balance.straggler", "its input keeps up"},
    {"util.host_bound", "balance.straggler", "its host keeps up"},
    {"throttle.thermal", "balance.straggler", "its clocks are no longer held down by heat"},
    {"throttle.power", "balance.straggler", "its clocks are no longer held down by the power limit"},
    {"memory.leak", "memory.near_oom", "the leak is fixed"},
}};

// Last: a cause on one GPU of the job explaining consequences on the
// others; the cause may have a cause of its own (heat -> straggler -> waits).
constexpr std::array<Link, 4> kJobLinks{{
    {"balance.straggler", "util.collective_wait", "the rank they wait for keeps up"},
    {"balance.straggler", "balance.imbalance", "the rank the others wait for keeps up"},
    // A rank that waits for another is not held back by its batch.
    {"balance.straggler", "memory.batch_too_small", "the rank this GPU waits for keeps up"},
    {"balance.straggler", "memory.batch_could_grow", "the rank this GPU waits for keeps up"},
}};

bool covers(const Advisory& cause, const Advisory& consequence) {
  return !cause.device_index || cause.device_index == consequence.device_index;
}

void relate(std::vector<Advisory>& advisories, const Link& link, bool across_gpus) {
  for (Advisory& consequence : advisories) {
    if (consequence.id != link.consequence || consequence.explained_by) continue;
    const auto cause = std::find_if(advisories.begin(), advisories.end(), [&](const Advisory& c) {
      if (c.id != link.cause) return false;
      return across_gpus ? c.device_index != consequence.device_index : !c.explained_by && covers(c, consequence);
    });
    if (cause == advisories.end()) continue;
    cause->explains.push_back({consequence.id, consequence.device_index});
    consequence.explained_by = AdvisoryRef{cause->id, cause->device_index};
    consequence.severity = Severity::Info;
    consequence.suggestion = fmt::format("Once {}: {}", link.first, consequence.suggestion);
  }
}

}  // namespace

std::string_view next_action(std::string_view id) {
  const auto it = std::find_if(kActions.begin(), kActions.end(), [&](const Action& a) { return a.id == id; });
  return it == kActions.end() ? std::string_view("watch") : it->action;
}

void relate_causes(std::vector<Advisory>& advisories) {
  for (Advisory& a : advisories) a.action = std::string(next_action(a.id));
  for (const Link& link : kHangLinks) relate(advisories, link, false);
  for (const Link& link : kLinks) relate(advisories, link, false);
  for (const Link& link : kJobLinks) relate(advisories, link, true);
}

}  // namespace gpuwatch
