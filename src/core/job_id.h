// Which runs a job id names (`runs --job`, `report --job`).
#pragma once

#include <string_view>

#include "core/run.h"

namespace gpuwatch {

// Whether `id` names the job `job` is of: its id, or for a Slurm array task
// ("77_3") the array's id ("77") too, as squeue, sacct and scancel take it
// for every task of the array (the id sbatch prints).
bool job_id_matches(const JobInfo& job, std::string_view id);

}  // namespace gpuwatch
