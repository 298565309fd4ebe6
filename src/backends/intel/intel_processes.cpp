#include "backends/intel/intel_processes.h"

#include <algorithm>
#include <map>
#include <string>

#include "backends/procfs/host.h"
#include "backends/procfs/read_at.h"

namespace gpuwatch::intel {
namespace {

bool is_local_region(std::string_view name) { return name.starts_with("vram") || name.starts_with("local"); }

// Local memory of one client: resident where the driver says, else total.
std::optional<std::uint64_t> local_memory(const DrmFdinfo& info) {
  std::optional<std::uint64_t> sum;
  for (const DrmMemoryRegion& r : info.regions) {
    if (!is_local_region(r.name)) continue;
    const std::optional<std::uint64_t> bytes = r.resident_or_memory() ? r.resident_or_memory() : r.total_bytes;
    if (bytes) sum = saturating_add(sum.value_or(0), *bytes);
  }
  return sum;
}

// Busy time (i915) or busy cycles (xe) of the classes named, for telling
// compute work from graphics; units do not mix within one driver.
std::uint64_t engine_counter(const DrmFdinfo& info, std::string_view a, std::string_view b) {
  std::uint64_t sum = 0;
  for (const DrmEngine& e : info.engines) {
    if (e.name != a && e.name != b) continue;
    sum = saturating_add(sum, e.busy_ns ? *e.busy_ns : e.cycles.value_or(0));
  }
  return sum;
}

bool on_card(const DrmClient& c, std::string_view pci_bus_id, std::string_view driver) {
  return c.info.driver == driver && c.info.pdev == pci_bus_id;
}

std::optional<double> busiest(const std::map<std::string, double, std::less<>>& by_class) {
  std::optional<double> top;
  for (const auto& [name, percent] : by_class) top = std::max(top.value_or(0), std::min(100.0, percent));
  return top;
}

}  // namespace

CardUse card_use(const DrmScan& scan, std::string_view pci_bus_id, std::string_view driver) {
  CardUse use;
  use.engines = card_engine_use(scan, pci_bus_id, driver);
  use.busiest_percent = busiest(use.engines);
  for (const DrmClient& c : scan.clients) {
    if (!on_card(c, pci_bus_id, driver)) continue;
    if (const auto bytes = local_memory(c.info)) {
      use.local_memory_bytes = saturating_add(use.local_memory_bytes.value_or(0), *bytes);
    }
  }
  return use;
}

std::vector<GpuProcess> processes_on(const DrmScan& scan, std::string_view pci_bus_id, std::string_view driver,
                                     const std::filesystem::path& procfs_root) {
  struct PerPid {
    GpuProcess process;
    std::map<std::string, double, std::less<>> by_class;
    std::uint64_t render = 0;
    std::uint64_t compute = 0;
  };
  std::map<std::uint32_t, PerPid> by_pid;
  for (const DrmClient& c : scan.clients) {
    if (!on_card(c, pci_bus_id, driver)) continue;
    PerPid& p = by_pid[c.pid];
    p.process.pid = c.pid;
    if (const auto bytes = local_memory(c.info)) {
      p.process.used_memory_bytes = saturating_add(p.process.used_memory_bytes.value_or(0), *bytes);
    }
    for (const DrmEngineUse& u : c.engine_use) p.by_class[u.name] += u.percent;
    p.render = saturating_add(p.render, engine_counter(c.info, "render", "rcs"));
    p.compute = saturating_add(p.compute, engine_counter(c.info, "compute", "ccs"));
  }
  std::vector<GpuProcess> out;
  out.reserve(by_pid.size());
  for (auto& [pid, p] : by_pid) {
    p.process.gpu_percent = busiest(p.by_class);
    p.process.kind = p.compute > p.render ? "compute" : "graphics";
    p.process.name = read_process_name(procfs_root, pid);
    out.push_back(std::move(p.process));
  }
  return out;
}

}  // namespace gpuwatch::intel
