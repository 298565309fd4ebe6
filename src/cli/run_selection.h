// Many runs at once, for group summaries: `--group GLOB` picks stored runs
// by name; a list of RUNs goes through load_run like every other command.
// Runs are loaded, reduced to their summary row and dropped one at a time,
// so a group of long runs needs the memory of one.
#pragma once

#include <span>
#include <string>

#include "analysis/job_report.h"
#include "analysis/run_group.h"
#include "cli/options.h"

namespace gpuwatch::cli {

// Every stored run, of every store given, whose name matches the shell
// pattern (fnmatch: *, ?, [...]). Throws StoreError when none does.
RunGroup load_run_group(const std::string& glob, const StoreList& stores);
// Every run of the job (RunInfo::job.id) in the stores, reduced to its row
// one at a time, as one report. Throws StoreError when no run has that job.
JobReport load_job(const std::string& job_id, const StoreList& stores);
// The runs given, in the order of their start.
RunGroup load_run_group(std::span<const std::string> run_refs, const StoreList& stores);

}  // namespace gpuwatch::cli
