#include "process/job_environment.h"

#include <charconv>
#include <cstdlib>

namespace gpuwatch {

namespace {

std::optional<std::string> usable_id(const EnvironmentLookup& env, const char* name) {
  auto v = env(name);
  if (!v || job_id_problem(*v)) return std::nullopt;
  return v;
}

// A whole number from 0 to 10^7 (ranks and counts); nullopt otherwise.
std::optional<int> count(const EnvironmentLookup& env, const char* name) {
  const auto v = env(name);
  if (!v || v->empty()) return std::nullopt;
  int n = -1;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc{} || end != v->data() + v->size() || n < 0 || n > 10'000'000) return std::nullopt;
  return n;
}

std::optional<int> first_count(const EnvironmentLookup& env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto n = count(env, name)) return n;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> job_id_problem(std::string_view id) {
  if (id.empty()) return "a job id cannot be empty";
  if (id.size() > 128) return "a job id has at most 128 bytes";
  for (const char c : id) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "a job id cannot hold control characters";
  }
  return std::nullopt;
}

JobInfo job_from_environment(const EnvironmentLookup& env) {
  JobInfo job;
  if (auto id = usable_id(env, "TORCHELASTIC_RUN_ID")) {
    job.id = *id;
    job.source = "torchelastic";
  } else if (auto slurm = usable_id(env, "SLURM_JOB_ID")) {
    const auto array_job = usable_id(env, "SLURM_ARRAY_JOB_ID");
    const auto task = count(env, "SLURM_ARRAY_TASK_ID");
    job.id = array_job && task ? *array_job + "_" + std::to_string(*task) : *slurm;
    job.source = "slurm";
  }
  job.rank = first_count(env, {"RANK", "SLURM_PROCID"});
  job.local_rank = first_count(env, {"LOCAL_RANK", "SLURM_LOCALID"});
  job.world_size = first_count(env, {"WORLD_SIZE", "SLURM_NTASKS"});
  job.node_rank = first_count(env, {"GROUP_RANK", "NODE_RANK", "SLURM_NODEID"});
  job.node_count = first_count(env, {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"});
  return job;
}

}  // namespace gpuwatch
