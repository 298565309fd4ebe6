// A run's job (RunInfo::job) as report, runs and serve show it.
#pragma once

#include <string>

#include "core/run.h"
#include "base/json_writer.h"

namespace gpuwatch {

// "77 (slurm): rank 3 of 16, local rank 3, node 1 of 2"; "" for no job.
std::string describe_job(const JobInfo& job);
// A "job" key: null for a run on its own, else an object with id, source,
// rank, local_rank, world_size, node_rank and node_count (each null where
// unknown). docs/report-json.md.
void write_job_field(JsonWriter& w, const JobInfo& job);

}  // namespace gpuwatch
