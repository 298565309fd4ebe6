// A process's owner as JSON, the same object in every document that lists
// processes (top --format json, report --format json): docs/report-json.md,
// "Process attribution".
#pragma once

#include <vector>

#include "analysis/process_owners.h"
#include "base/json_writer.h"
#include "core/process_attribution.h"

namespace gpuwatch {

// "attribution": {"job", "step", "array_job", "array_task", "slurm_job",
// "container", "container_short", "container_runtime", "pod_uid", "qos",
// "unit"}: every key always there, null where unknown.
void write_attribution(JsonWriter& w, const ProcessAttribution& a);

// "owners": [{"owner", "kind", "container_runtime", "pod_uid", "qos",
// "processes", "pids", "gpus", "users", "gpu_memory_bytes",
// "gpu_util_percent_sum", "cpu_percent_sum"}] in the order given
// (docs/top.md, "Owners").
void write_owner_groups(JsonWriter& w, const std::vector<OwnerGroup>& groups);

}  // namespace gpuwatch
