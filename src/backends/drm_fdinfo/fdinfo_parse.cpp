#include "backends/drm_fdinfo/fdinfo_parse.h"

#include <algorithm>

#include "core/lines.h"
#include "core/whole_number.h"

namespace gpuwatch {
namespace drm_fdinfo {
namespace {

// A real client has a dozen engine classes and regions at most; a text with
// thousands of made-up keys must not grow the result without bound.
constexpr std::size_t kMaxNamedEntries = 64;

// "<n>" followed by `unit` (after blanks), or by nothing when unit is empty.
std::optional<std::uint64_t> number_with_unit(std::string_view value, std::string_view unit) {
  const std::size_t digits = std::min(value.find_first_not_of("0123456789"), value.size());
  const std::string_view rest = trimmed(value.substr(digits), kWhiteSpace);
  if (rest != unit) return std::nullopt;
  return parse_whole_number<std::uint64_t>(value.substr(0, digits));
}

// drm_print_memory_stats() prints sizes in bytes, KiB or MiB (the spec's
// "[KiB|MiB]"; no unit is bytes).
std::optional<std::uint64_t> size_bytes(std::string_view value) {
  struct Unit {
    std::string_view name;
    std::uint64_t bytes;
  };
  for (const Unit u : {Unit{"", 1}, Unit{"KiB", 1024}, Unit{"MiB", 1024 * 1024}}) {
    const std::optional<std::uint64_t> n = number_with_unit(value, u.name);
    if (!n) continue;
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(*n, u.bytes, &bytes)) return std::nullopt;
    return bytes;
  }
  return std::nullopt;
}

// The entry of that name, added when new (and when there is room).
template <typename Entry>
Entry* entry_named(std::vector<Entry>& entries, std::string_view name) {
  if (name.empty()) return nullptr;
  for (Entry& e : entries) {
    if (e.name == name) return &e;
  }
  if (entries.size() >= kMaxNamedEntries) return nullptr;
  Entry& added = entries.emplace_back();
  added.name = std::string(name);
  return &added;
}

// key/value of one line, or false for a line without ':' or with an empty
// key. A name is the part of a key after its prefix: no blanks in it.
bool split_line(std::string_view line, std::string_view& key, std::string_view& value) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  key = line.substr(0, colon);
  value = trimmed(line.substr(colon + 1), kWhiteSpace);
  return !key.empty() && key.find_first_of(" \t") == std::string_view::npos;
}

bool take_prefix(std::string_view& key, std::string_view prefix) {
  if (!key.starts_with(prefix)) return false;
  key.remove_prefix(prefix.size());
  return true;
}

void set_if(std::optional<std::uint64_t>& field, std::optional<std::uint64_t> value) {
  if (value) field = value;
}

// Engine keys. The longer prefixes are tried first: drm-engine-capacity-gfx
// is gfx's capacity, not an engine called "capacity-gfx".
bool read_engine_key(std::string_view key, std::string_view value, DrmFdinfo& out) {
  if (take_prefix(key, "drm-engine-capacity-")) {
    const auto n = number_with_unit(value, "");
    if (DrmEngine* e = entry_named(out.engines, key); e && n && *n > 0 && *n <= UINT32_MAX) {
      e->capacity = static_cast<std::uint32_t>(*n);
    }
    return true;
  }
  if (take_prefix(key, "drm-engine-")) {
    const auto ns = number_with_unit(value, "ns");
    if (DrmEngine* e = ns ? entry_named(out.engines, key) : nullptr) e->busy_ns = ns;
    return true;
  }
  if (take_prefix(key, "drm-total-cycles-")) {
    const auto n = number_with_unit(value, "");
    if (DrmEngine* e = n ? entry_named(out.engines, key) : nullptr) e->total_cycles = n;
    return true;
  }
  if (take_prefix(key, "drm-cycles-")) {
    const auto n = number_with_unit(value, "");
    if (DrmEngine* e = n ? entry_named(out.engines, key) : nullptr) e->cycles = n;
    return true;
  }
  return false;
}

bool read_memory_key(std::string_view key, std::string_view value, DrmFdinfo& out) {
  std::optional<std::uint64_t> DrmMemoryRegion::*field = nullptr;
  if (take_prefix(key, "drm-memory-")) {
    field = &DrmMemoryRegion::memory_bytes;
  } else if (take_prefix(key, "drm-total-")) {
    field = &DrmMemoryRegion::total_bytes;
  } else if (take_prefix(key, "drm-shared-")) {
    field = &DrmMemoryRegion::shared_bytes;
  } else if (take_prefix(key, "drm-resident-")) {
    field = &DrmMemoryRegion::resident_bytes;
  } else {
    return false;
  }
  const auto bytes = size_bytes(value);
  if (DrmMemoryRegion* r = bytes ? entry_named(out.regions, key) : nullptr) set_if(r->*field, bytes);
  return true;
}

}  // namespace
}  // namespace drm_fdinfo

const DrmEngine* DrmFdinfo::engine(std::string_view name) const {
  const auto it = std::find_if(engines.begin(), engines.end(), [&](const DrmEngine& e) { return e.name == name; });
  return it == engines.end() ? nullptr : &*it;
}

const DrmMemoryRegion* DrmFdinfo::region(std::string_view name) const {
  const auto it = std::find_if(regions.begin(), regions.end(), [&](const DrmMemoryRegion& r) { return r.name == name; });
  return it == regions.end() ? nullptr : &*it;
}

std::optional<DrmFdinfo> parse_drm_fdinfo(std::string_view text) {
  using namespace drm_fdinfo;
  DrmFdinfo out;
  bool has_driver = false;
  while (!text.empty()) {
    const std::size_t eol = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(std::min(eol + 1, text.size()));
    std::string_view key;
    std::string_view value;
    if (!split_line(line, key, value)) continue;
    if (key == "drm-driver") {
      has_driver = !value.empty();
      out.driver = std::string(value);
    } else if (key == "drm-pdev") {
      out.pdev = std::string(value);
    } else if (key == "drm-client-id") {
      set_if(out.client_id, parse_whole_number<std::uint64_t>(value));
    } else if (!read_engine_key(key, value, out)) {
      // drm-total-cycles-<e> is taken above, before drm-total-<region>.
      read_memory_key(key, value, out);
    }
  }
  if (!has_driver) return std::nullopt;
  return out;
}

}  // namespace gpuwatch
