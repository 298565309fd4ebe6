// The text of one DRM file descriptor's /proc/PID/fdinfo/N, parsed into what
// the kernel's DRM usage stats say about that client (the spec:
// Documentation/gpu/drm-usage-stats.rst; facts in ../shared/VENDORS.md
// section 1.1). Shared by every driver that follows the spec: amdgpu now,
// i915 and xe next. A pure function over the text: no I/O, no exceptions;
// lines it does not know or cannot read are skipped, so one garbled key
// costs that key only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch {

// One engine class ("gfx", "compute", "rcs", ...). A driver gives either
// busy time (drm-engine-<e>, amdgpu and i915) or cycles against a GPU
// timestamp (drm-cycles-<e> with drm-total-cycles-<e>, xe).
struct DrmEngine {
  std::string name;
  std::optional<std::uint64_t> busy_ns;       // drm-engine-<e>
  std::optional<std::uint64_t> cycles;        // drm-cycles-<e>
  std::optional<std::uint64_t> total_cycles;  // drm-total-cycles-<e>
  // drm-engine-capacity-<e>: identical engines in the class; the spec says
  // absent means 1 and forbids 0 (a 0 is read as 1).
  std::uint32_t capacity = 1;
};

// One memory region ("vram", "gtt", "cpu", "vram0", "system", ...), bytes.
struct DrmMemoryRegion {
  std::string name;
  std::optional<std::uint64_t> memory_bytes;    // drm-memory-<r>: the deprecated alias of resident
  std::optional<std::uint64_t> total_bytes;     // drm-total-<r>
  std::optional<std::uint64_t> shared_bytes;    // drm-shared-<r>
  std::optional<std::uint64_t> resident_bytes;  // drm-resident-<r>

  // Resident bytes under either name (drivers moving to the new keys print both).
  [[nodiscard]] std::optional<std::uint64_t> resident_or_memory() const {
    return resident_bytes ? resident_bytes : memory_bytes;
  }
};

struct DrmFdinfo {
  std::string driver;                     // drm-driver, e.g. "amdgpu"
  std::string pdev;                       // drm-pdev, "0000:03:00.0"; empty when not given
  std::optional<std::uint64_t> client_id; // drm-client-id
  std::vector<DrmEngine> engines;         // in the order first seen
  std::vector<DrmMemoryRegion> regions;   // in the order first seen

  [[nodiscard]] const DrmEngine* engine(std::string_view name) const;
  [[nodiscard]] const DrmMemoryRegion* region(std::string_view name) const;
};

// nullopt when the text has no drm-driver key: the fd is not a DRM client
// (or the kernel predates fdinfo stats). Sizes are "<n>", "<n> KiB" or
// "<n> MiB"; a size past 2^64 bytes, a busy time without "ns" and a number
// with trailing text are skipped.
std::optional<DrmFdinfo> parse_drm_fdinfo(std::string_view text);

}  // namespace gpuwatch
