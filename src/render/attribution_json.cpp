#include "render/attribution_json.h"

#include <optional>
#include <string>
#include <string_view>

#include "render/units.h"

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

void write_owner_groups(JsonWriter& w, const std::vector<OwnerGroup>& groups) {
  w.key("owners").begin_array();
  for (const OwnerGroup& g : groups) {
    w.begin_object();
    w.field("owner", or_null(g.owner.name)).field("kind", to_string(g.owner.kind));
    w.field("container_runtime", or_null(g.runtime)).field("pod_uid", or_null(g.pod_uid)).field("qos", or_null(g.qos));
    w.field("processes", static_cast<std::uint64_t>(g.pids.size()));
    w.key("pids").begin_array();
    for (const std::uint32_t pid : g.pids) w.value(static_cast<std::uint64_t>(pid));
    w.end_array();
    w.key("gpus").begin_array();
    for (const int gpu : g.gpus) w.value(gpu);
    w.end_array();
    w.key("users").begin_array();
    for (const std::string& user : g.users) w.value(user);
    w.end_array();
    // Sums of averaged shares: one decimal, as the process rows give CPU.
    const auto one_decimal = [](const std::optional<double>& v) {
      return v ? std::optional(round_to(*v, 1)) : std::nullopt;
    };
    w.field("gpu_memory_bytes", g.gpu_memory_bytes).field("gpu_util_percent_sum", one_decimal(g.gpu_util_percent_sum));
    w.field("cpu_percent_sum", one_decimal(g.cpu_percent_sum));
    w.end_object();
  }
  w.end_array();
}

}  // namespace gpuwatch
