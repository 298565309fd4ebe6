#include "backends/amdgpu/amdgpu_kfd.h"

#include <fcntl.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>

#include "backends/amdgpu/amdgpu_parse.h"
#include "backends/procfs/host.h"
#include "backends/procfs/read_at.h"
#include "core/lines.h"
#include "core/whole_number.h"

namespace gpuwatch::amdgpu {
namespace {

namespace fs = std::filesystem;

std::optional<std::uint32_t> hex_number(std::string_view text) {
  std::uint32_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

// "DDDD:BB:DD.F" as the PCI core names a device.
std::optional<KfdNodePlace> place_of_bus_id(std::string_view id) {
  const auto c1 = id.find(':');
  const auto c2 = id.find(':', c1 == std::string_view::npos ? c1 : c1 + 1);
  const auto dot = id.find('.', c2 == std::string_view::npos ? c2 : c2 + 1);
  if (c1 == std::string_view::npos || c2 == std::string_view::npos || dot == std::string_view::npos) return std::nullopt;
  const auto domain = hex_number(id.substr(0, c1));
  const auto bus = hex_number(id.substr(c1 + 1, c2 - c1 - 1));
  const auto device = hex_number(id.substr(c2 + 1, dot - c2 - 1));
  if (!domain || !bus || !device) return std::nullopt;
  return KfdNodePlace{*domain, *bus, *device};
}

std::optional<std::uint64_t> read_number(const fs::path& path, std::string& buf) {
  const std::optional<std::string_view> text = read_at(AT_FDCWD, path.c_str(), buf);
  if (!text) return std::nullopt;
  return parse_whole_number<std::uint64_t>(trimmed(*text, kWhiteSpace));
}

const fs::path kKfd = "class/kfd/kfd";

}  // namespace

std::vector<std::uint32_t> kfd_gpu_ids_of(const fs::path& sysfs_root, std::string_view pci_bus_id) {
  std::vector<std::uint32_t> ids;
  const std::optional<KfdNodePlace> card = place_of_bus_id(pci_bus_id);
  if (!card) return ids;
  std::string buf;
  std::error_code ec;
  for (fs::directory_iterator it(sysfs_root / kKfd / "topology/nodes", ec), end; !ec && it != end; it.increment(ec)) {
    const auto gpu_id = read_number(it->path() / "gpu_id", buf);
    if (!gpu_id || *gpu_id == 0 || *gpu_id > UINT32_MAX) continue;
    const std::optional<std::string_view> props = read_at(AT_FDCWD, (it->path() / "properties").c_str(), buf);
    const std::optional<KfdNodePlace> place = props ? parse_kfd_node_properties(*props) : std::nullopt;
    if (place && place->domain == card->domain && place->bus == card->bus && place->device == card->device) {
      ids.push_back(static_cast<std::uint32_t>(*gpu_id));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<KfdProcess> kfd_processes(const fs::path& sysfs_root, std::span<const std::uint32_t> gpu_ids) {
  std::vector<KfdProcess> out;
  if (gpu_ids.empty()) return out;
  std::string buf;
  std::error_code ec;
  for (fs::directory_iterator it(sysfs_root / kKfd / "proc", ec), end; !ec && it != end; it.increment(ec)) {
    const auto pid = parse_whole_number<std::uint32_t>(it->path().filename().native());
    if (!pid) continue;
    KfdProcess p{.pid = *pid};
    bool any = false;
    for (const std::uint32_t id : gpu_ids) {
      if (const auto bytes = read_number(it->path() / ("vram_" + std::to_string(id)), buf)) {
        p.vram_bytes = saturating_add(p.vram_bytes, *bytes);
        any = true;
      }
    }
    if (any) out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const KfdProcess& a, const KfdProcess& b) { return a.pid < b.pid; });
  return out;
}

void merge_kfd_processes(std::vector<GpuProcess>& processes, std::span<const KfdProcess> kfd,
                         const fs::path& procfs_root) {
  for (const KfdProcess& k : kfd) {
    auto it = std::lower_bound(processes.begin(), processes.end(), k.pid,
                               [](const GpuProcess& p, std::uint32_t pid) { return p.pid < pid; });
    if (it == processes.end() || it->pid != k.pid) {
      GpuProcess p;
      p.pid = k.pid;
      p.name = read_process_name(procfs_root, k.pid);
      it = processes.insert(it, std::move(p));
    }
    it->used_memory_bytes = std::max(it->used_memory_bytes.value_or(0), k.vram_bytes);
    it->kind = "compute";
    it->gpu_percent.reset();
  }
}

}  // namespace gpuwatch::amdgpu
