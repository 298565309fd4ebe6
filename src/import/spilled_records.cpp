#include "import/spilled_records.h"

#include <array>
#include <bit>

#include "import/import.h"

namespace gpuwatch {

namespace {

static_assert(kDeviceMetricCount <= 64 && kHostMetricCount <= 64, "a value mask is one 64-bit word");

template <typename Metric, typename Values>
void put_values(SpillFile& out, const Values& values, std::size_t count) {
  std::uint64_t mask = 0;
  for (std::size_t m = 0; m < count; ++m) {
    if (values.has(static_cast<Metric>(m))) mask |= std::uint64_t{1} << m;
  }
  spill_put(out, mask);
  for (std::size_t m = 0; m < count; ++m) {
    if (const auto v = values.get(static_cast<Metric>(m))) spill_put(out, *v);
  }
}

template <typename Metric, typename Values>
bool get_values(SpillFile::Reader& in, Values& values) {
  std::uint64_t mask = 0;
  if (!spill_get(in, mask)) return false;
  values = Values{};
  // The values in one read, not one call per value (import of a jsonl
  // export reads some 20 per row, issue 25).
  std::array<double, 64> read{};
  if (!in.read(read.data(), static_cast<std::size_t>(std::popcount(mask)) * sizeof(double))) return false;
  for (std::size_t k = 0; mask; ++k) {
    const int m = std::countr_zero(mask);
    mask &= mask - 1;
    values.set(static_cast<Metric>(m), read[k]);
  }
  return true;
}

void put_text(SpillFile& out, std::string_view text) {
  spill_put(out, static_cast<std::uint64_t>(text.size()));
  out.append(text.data(), text.size());
}

bool get_text(SpillFile::Reader& in, std::string& text) {
  std::uint64_t n = 0;
  if (!spill_get(in, n)) return false;
  text.resize(n);
  return in.read(text.data(), text.size());
}

template <typename T>
void put_optional(SpillFile& out, const std::optional<T>& value) {
  spill_put(out, static_cast<std::uint8_t>(value.has_value()));
  spill_put(out, value.value_or(T{}));
}

template <typename T>
bool get_optional(SpillFile::Reader& in, std::optional<T>& value) {
  std::uint8_t has = 0;
  T v{};
  if (!spill_get(in, has) || !spill_get(in, v)) return false;
  value = has ? std::optional<T>(v) : std::nullopt;
  return true;
}

bool read_process(SpillFile::Reader& in, ProcessRecord& p) {
  return spill_get(in, p.device_index) && spill_get(in, p.pid) && get_text(in, p.name) &&
         spill_get(in, p.first_seen_wall_ns) && spill_get(in, p.last_seen_wall_ns) &&
         get_optional(in, p.max_used_memory_bytes) && get_optional(in, p.max_gpu_percent) &&
         spill_get(in, p.gpu_percent_sum) && spill_get(in, p.gpu_percent_reads);
}

}  // namespace

void spill_device_row(SpillFile& out, std::uint64_t time, int gpu, const DeviceValues& values) {
  spill_put(out, RecordTag::Device);
  spill_put(out, time);
  spill_put(out, gpu);
  put_values<DeviceMetric>(out, values, kDeviceMetricCount);
}

void spill_host_row(SpillFile& out, std::uint64_t time, const HostValues& values, const std::vector<double>& cores) {
  spill_put(out, RecordTag::Host);
  spill_put(out, time);
  put_values<HostMetric>(out, values, kHostMetricCount);
  spill_put(out, static_cast<std::uint64_t>(cores.size()));
  out.append(cores.data(), cores.size() * sizeof(double));
}

void spill_event(SpillFile& out, std::uint64_t time, int device, std::string_view kind, std::string_view message) {
  spill_put(out, RecordTag::Event);
  spill_put(out, time);
  spill_put(out, device);
  put_text(out, kind);
  put_text(out, message);
}

void spill_process(SpillFile& out, const ProcessRecord& p) {
  spill_put(out, RecordTag::Process);
  spill_put(out, p.device_index);
  spill_put(out, p.pid);
  put_text(out, p.name);
  spill_put(out, p.first_seen_wall_ns);
  spill_put(out, p.last_seen_wall_ns);
  put_optional(out, p.max_used_memory_bytes);
  put_optional(out, p.max_gpu_percent);
  spill_put(out, p.gpu_percent_sum);
  spill_put(out, p.gpu_percent_reads);
}

bool read_record(SpillFile::Reader& in, SpilledRecord& r) {
  if (!spill_get(in, r.tag)) return false;
  bool ok = false;
  switch (r.tag) {
    case RecordTag::Device:
      ok = spill_get(in, r.time) && spill_get(in, r.device) && get_values<DeviceMetric>(in, r.device_values);
      break;
    case RecordTag::Host: {
      std::uint64_t cores = 0;
      ok = spill_get(in, r.time) && get_values<HostMetric>(in, r.host_values) && spill_get(in, cores);
      if (ok) {
        r.cores.resize(cores);
        ok = in.read(r.cores.data(), cores * sizeof(double));
      }
      break;
    }
    case RecordTag::Event:
      ok = spill_get(in, r.time) && spill_get(in, r.device) && get_text(in, r.kind) && get_text(in, r.message);
      break;
    case RecordTag::Process: ok = read_process(in, r.process); break;
  }
  // The spill is this process's own file: a short one is a bug or a disk fault.
  if (!ok) throw ImportError("the temporary file of the samples read back short (a disk fault?)");
  return true;
}

}  // namespace gpuwatch
