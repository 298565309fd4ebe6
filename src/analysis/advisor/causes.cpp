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

constexpr std::array<Action, 16> kActions{{
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

constexpr std::array<Link, 6> kLinks{{
    {"util.input_bound", "memory.batch_too_small", "the input keeps up"},
    {"util.input_bound", "memory.batch_could_grow", "the input keeps up"},
    {"util.host_bound", "memory.batch_too_small", "the host keeps up"},
    {"util.host_bound", "memory.batch_could_grow", "the host keeps up"},
    {"throttle.thermal", "balance.straggler", "its clocks are no longer held down by heat"},
    {"memory.leak", "memory.near_oom", "the leak is fixed"},
}};

bool covers(const Advisory& cause, const Advisory& consequence) {
  return !cause.device_index || cause.device_index == consequence.device_index;
}

}  // namespace

std::string_view next_action(std::string_view id) {
  const auto it = std::find_if(kActions.begin(), kActions.end(), [&](const Action& a) { return a.id == id; });
  return it == kActions.end() ? std::string_view("watch") : it->action;
}

void relate_causes(std::vector<Advisory>& advisories) {
  for (Advisory& a : advisories) a.action = std::string(next_action(a.id));
  for (const Link& link : kLinks) {
    for (Advisory& consequence : advisories) {
      if (consequence.id != link.consequence || consequence.explained_by) continue;
      const auto cause = std::find_if(advisories.begin(), advisories.end(), [&](const Advisory& c) {
        return c.id == link.cause && !c.explained_by && covers(c, consequence);
      });
      if (cause == advisories.end()) continue;
      cause->explains.push_back({consequence.id, consequence.device_index});
      consequence.explained_by = AdvisoryRef{cause->id, cause->device_index};
      consequence.severity = Severity::Info;
      consequence.suggestion = fmt::format("Once {}: {}", link.first, consequence.suggestion);
    }
  }
}

}  // namespace gpuwatch
