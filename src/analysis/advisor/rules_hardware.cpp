// Hardware rules: clocks held down (power, heat) and a PCIe link below its
// capability. Not held back by the warm-up: a hot or mis-seated card is one
// from the first minute.
#include <fmt/format.h>

#include "analysis/advisor/rules.h"

namespace gpuwatch::advisor_rules {

namespace {

void throttling(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const auto& t = d.report->throttle;
  if (!t) return;
  const AdvisorConfig& c = ctx.config;
  const int index = d.report->info.index;
  if (t->power_percent >= c.throttle_power_percent) {
    std::vector<Evidence> evidence{{"power_throttled_percent", t->power_percent, "percent"},
                                   {"sampled_s", t->sampled_s, "seconds"}};
    if (const Summary* p = d.report->find(DeviceMetric::PowerWatts)) evidence.push_back({"power_mean_watts", p->mean, "watts"});
    if (const Summary* l = d.report->find(DeviceMetric::PowerLimitWatts)) {
      evidence.push_back({"power_limit_watts", l->max, "watts"});
    }
    // Running into the power limit under full load is how these cards are
    // built to work: worth knowing, not alarming.
    out.push_back({"throttle.power", Severity::Info, index,
                   fmt::format("clocks held down by the power limit {} of {}", percent(t->power_percent),
                               seconds(t->sampled_s)),
                   std::move(evidence),
                   "Expected under full load; if the job is slower than it should be, check the power limit "
                   "(nvidia-smi -q -d POWER).",
                   false});
  }
  if (t->thermal_percent >= c.throttle_thermal_percent) {
    std::vector<Evidence> evidence{{"thermal_throttled_percent", t->thermal_percent, "percent"},
                                   {"sampled_s", t->sampled_s, "seconds"}};
    if (const Summary* temp = d.report->find(DeviceMetric::TempGpuCelsius)) {
      evidence.push_back({"temp_max_celsius", temp->max, "celsius"});
    }
    // AMD throttles on its hotspot as often as on its edge (gpu_metrics'
    // TEMP_HOTSPOT bit): where the card has the sensor, it is the evidence.
    if (const Summary* junction = d.report->find(DeviceMetric::TempJunctionCelsius)) {
      evidence.push_back({"junction_max_celsius", junction->max, "celsius"});
    }
    out.push_back({"throttle.thermal", Severity::Warning, index,
                   fmt::format("clocks held down by heat {} of {}", percent(t->thermal_percent), seconds(t->sampled_s)),
                   std::move(evidence), "Check the cooling: fans, airflow, the room's temperature, dust.", false});
  }
}

void pcie(const Context& ctx, const DeviceView& d, std::vector<Advisory>& out) {
  const auto& link = d.report->pcie_link;
  const AdvisorConfig& c = ctx.config;
  if (!link || link->busy_s < c.pcie_min_busy_s || link->degraded_percent < c.pcie_degraded_percent) return;
  out.push_back({"pcie.degraded", Severity::Warning, d.report->info.index,
                 fmt::format("PCIe link at gen {} x{} while busy, capable of gen {} x{} ({} of the busy time)",
                             link->worst_busy_gen, link->worst_busy_width, link->max_gen, link->max_width,
                             percent(link->degraded_percent)),
                 {{"degraded_percent", link->degraded_percent, "percent"},
                  {"busy_s", link->busy_s, "seconds"},
                  {"gen", static_cast<double>(link->worst_busy_gen), "gen"},
                  {"width", static_cast<double>(link->worst_busy_width), "lanes"},
                  {"max_gen", static_cast<double>(link->max_gen), "gen"},
                  {"max_width", static_cast<double>(link->max_width), "lanes"}},
                 "Reseat the card or move it to a full-width slot; check risers and the BIOS PCIe settings.", false});
}

}  // namespace

void hardware_rules(const Context& ctx, std::vector<Advisory>& out) {
  for (const DeviceView& d : ctx.devices) {
    throttling(ctx, d, out);
    pcie(ctx, d, out);
  }
}

}  // namespace gpuwatch::advisor_rules
