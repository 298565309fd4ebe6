// Which distributed job a recording belongs to, read from the environment
// the recorder was started in, so that runs recorded on several nodes can be
// reported as one job (`report --job ID`).
//
// Slurm sets its variables for every process of a job step, so
// `srun gpuwatch record --store /shared/gpuwatch/$(hostname).db -- CMD`
// knows its job. torchrun sets TORCHELASTIC_RUN_ID, RANK, ... for the
// workers it starts, not for the process that starts torchrun: under
// `gpuwatch record -- torchrun ...` they are not in the recorder's
// environment, so give the job its id with `record --job ID` (the same on
// every node, e.g. torchrun's --rdzv-id), or export the variables yourself.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/environment_lookup.h"
#include "core/run.h"

namespace gpuwatch {

// The id, in this order: TORCHELASTIC_RUN_ID (the most specific: one
// torchrun job of possibly several in an allocation), then SLURM_JOB_ID, or
// "<SLURM_ARRAY_JOB_ID>_<SLURM_ARRAY_TASK_ID>" for a task of an array (as
// squeue names it). Each rank fact from torch's variable, else Slurm's
// (run.h lists them). Values that are not what they should be (a rank that
// is no whole number, an id with control characters) are left out.
JobInfo job_from_environment(const EnvironmentLookup& env);

// Why `id` cannot be a job id (empty, over 128 bytes, control characters),
// or nullopt when it can.
std::optional<std::string> job_id_problem(std::string_view id);

}  // namespace gpuwatch
