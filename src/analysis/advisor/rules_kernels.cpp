// Rules only the SM-level counters (NVIDIA's GPM, Hopper and newer) allow:
// utilization says a kernel ran, not how much of the GPU it used. A GPU
// "busy" with kernels too small to fill it reads high utilization with its
// SMs nearly idle (launch-bound); matrix math in plain FP32 keeps the SMs
// busy with the tensor cores idle.
#include <fmt/format.h>

#include "analysis/advisor/rules.h"

namespace gpuwatch::advisor_rules {

std::optional<LaunchBound> sm_light(const Context& ctx, const DeviceView& d, double min_util_percent,
                                    double sm_share_percent) {
  const Summary* util = d.report->find(DeviceMetric::GpuUtilPercent);
  const Summary* sm = d.report->find(DeviceMetric::SmActivePercent);
  if (util == nullptr || sm == nullptr || util->span_s < ctx.min_coverage_s || sm->span_s < ctx.min_coverage_s) {
    return std::nullopt;
  }
  if (util->mean < min_util_percent || sm->mean >= util->mean * sm_share_percent / 100) return std::nullopt;
  return LaunchBound{util->mean, sm->mean, util->span_s};
}

std::optional<LaunchBound> launch_bound(const Context& ctx, const DeviceView& d) {
  return sm_light(ctx, d, ctx.config.launch_bound_util_percent, ctx.config.launch_bound_sm_share_percent);
}

namespace {

void launch_bound_advisory(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const std::optional<LaunchBound> lb = launch_bound(ctx, d);
  // A GPU waiting in a collective has this shape too: util.collective_wait says it.
  if (!lb || collective_wait(ctx, d)) return;
  std::vector<Evidence> evidence{{"util_mean_percent", lb->util_mean_percent, "percent"},
                                 {"sm_active_mean_percent", lb->sm_active_mean_percent, "percent"},
                                 {"window_s", lb->window_s, "seconds"}};
  if (const Summary* occupancy = d.report->find(DeviceMetric::SmOccupancyPercent)) {
    evidence.push_back({"sm_occupancy_mean_percent", occupancy->mean, "percent"});
  }
  // It stands in for util.low (which it suppresses), so it must stop a job
  // util.low would have stopped; above that it is advice only.
  const bool underuse = sustained_low_share(ctx, d).has_value();
  out.push_back({"util.launch_bound", Severity::Warning, d.report->info.index,
                 fmt::format("utilization {} but the SMs active only {} over {}: the kernels are too small, or the "
                             "CPU launches them one by one (launch-bound)",
                             percent(lb->util_mean_percent), percent(lb->sm_active_mean_percent),
                             seconds(lb->window_s)),
                 std::move(evidence),
                 "Give each kernel more work: a larger batch; fuse small operations (torch.compile); capture the "
                 "step in CUDA graphs; avoid per-step synchronization (.item(), printing tensors).",
                 underuse});
}

void tensor_idle(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const AdvisorConfig& c = ctx.config;
  const Summary* sm = d.report->find(DeviceMetric::SmActivePercent);
  const Summary* tensor = d.report->find(DeviceMetric::TensorActivePercent);
  const Summary* fp32 = d.report->find(DeviceMetric::Fp32ActivePercent);
  if (sm == nullptr || tensor == nullptr || fp32 == nullptr || sm->span_s < ctx.min_coverage_s) return;
  if (sm->mean < c.tensor_idle_sm_active_percent || fp32->mean < c.tensor_idle_fp32_percent ||
      tensor->mean >= c.tensor_idle_max_percent) {
    return;
  }
  out.push_back({"util.tensor_idle", Severity::Info, d.report->info.index,
                 fmt::format("SMs active {} with the FP32 pipes at {} and the tensor cores at {} over {}: the math "
                             "runs in plain FP32",
                             percent(sm->mean), percent(fp32->mean), percent(tensor->mean), seconds(sm->span_s)),
                 {{"sm_active_mean_percent", sm->mean, "percent"},
                  {"fp32_active_mean_percent", fp32->mean, "percent"},
                  {"tensor_active_mean_percent", tensor->mean, "percent"},
                  {"window_s", sm->span_s, "seconds"}},
                 "If it is matrix math, let the tensor cores do it: "
                 "torch.set_float32_matmul_precision('high') (TF32), or autocast to bf16.",
                 false});
}

}  // namespace

void kernel_rules(const Context& ctx, std::vector<Advisory>& out) {
  if (!ctx.warmed_up) return;
  for (const DeviceView& d : ctx.devices) {
    launch_bound_advisory(ctx, d, out);
    tensor_idle(ctx, d, out);
  }
}

}  // namespace gpuwatch::advisor_rules
