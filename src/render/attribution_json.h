// A process's owner as JSON, the same object in every document that lists
// processes (top --format json, report --format json): docs/report-json.md,
// "Process attribution".
#pragma once

#include "base/json_writer.h"
#include "core/process_attribution.h"

namespace gpuwatch {

// "attribution": {"job", "step", "array_job", "array_task", "slurm_job",
// "container", "container_short", "container_runtime", "pod_uid", "qos",
// "unit"}: every key always there, null where unknown.
void write_attribution(JsonWriter& w, const ProcessAttribution& a);

}  // namespace gpuwatch
