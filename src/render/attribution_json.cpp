#include "render/attribution_json.h"

#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch {
namespace {

std::optional<std::string_view> or_null(std::string_view s) {
  return s.empty() ? std::nullopt : std::optional(s);
}

}  // namespace

void write_attribution(JsonWriter& w, const ProcessAttribution& a) {
  w.key("attribution").begin_object();
  w.field("job", or_null(a.job)).field("step", or_null(a.step));
  w.field("array_job", or_null(a.array_job)).field("array_task", or_null(a.array_task));
  // As squeue writes it: "1233_7.0".
  const std::string slurm_job = slurm_job_text(a);
  w.field("slurm_job", or_null(slurm_job));
  w.field("container", or_null(a.container)).field("container_short", or_null(short_container_id(a.container)));
  w.field("container_runtime", or_null(a.runtime));
  w.field("pod_uid", or_null(a.pod_uid)).field("qos", or_null(a.qos));
  w.field("unit", or_null(a.unit));
  w.end_object();
}

}  // namespace gpuwatch
