// The DRM fdinfo parser on any bytes: it must return or reject, never crash,
// and what it returns must keep the spec's rules.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backends/drm_fdinfo/fdinfo_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto f = gpuwatch::parse_drm_fdinfo(text);
  if (!f) return 0;
  if (f->driver.empty() || f->driver.size() > size) __builtin_trap();
  if (f->engines.size() > 64 || f->regions.size() > 64) __builtin_trap();
  for (const gpuwatch::DrmEngine& e : f->engines) {
    if (e.name.empty() || e.capacity == 0) __builtin_trap();  // the spec forbids capacity 0
    if (f->engine(e.name) != &e) __builtin_trap();             // one entry per name
  }
  for (const gpuwatch::DrmMemoryRegion& r : f->regions) {
    if (r.name.empty() || f->region(r.name) != &r) __builtin_trap();
  }
  return 0;
}
