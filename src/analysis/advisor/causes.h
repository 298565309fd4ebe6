// The advisor's causal model: a cause explains its consequences instead of
// standing beside them (docs/advisor.md, "Causes"). A GPU that waits for its
// input shows a small memory share too, but "try a larger batch" is the
// wrong fix while it waits (issue 23: a starved DataLoader's run was headed
// `memory.batch_too_small`). relate_causes() links each consequence to its
// cause, turns the consequence's advice into what to do after the cause is
// fixed, and lowers it to info, so that the verdict names the root cause.
// Pure: it reads and edits the advisories of one evaluation.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/advisor/advisory.h"

namespace gpuwatch {

// The next action an agent takes for an advisory id: "feed_faster",
// "relieve_host", "fuse_kernels", "use_tensor_cores", "raise_batch",
// "fix_leak", "rebalance", "fix_straggler", "check_cooling", "check_power_limit",
// "check_pcie_link", "reduce_memory", "find_straggler" (util.collective_wait),
// "restart_hung_job" (job.hung), "watch" (nothing to do yet).
std::string_view next_action(std::string_view id);

// Sets every advisory's action, explains and explained_by; an explained one
// becomes info, its suggestion prefixed with what must come first.
void relate_causes(std::vector<Advisory>& advisories);

}  // namespace gpuwatch
