// The importers on arbitrary bytes: every input gives a run or an
// ImportError, never a crash. A run must look like a stored one (columns as
// long as their times, times in order, values finite, `supported` exactly
// the metrics with values), and exporting it as JSON lines and importing
// that again must give back the same samples: the importer reads what the
// exporter writes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "import/import.h"
#include "render/seed_files.h"

namespace {

using gpuwatch::DeviceSeries;
using gpuwatch::kDeviceMetricCount;

void check_series(const DeviceSeries& s) {
  const std::size_t n = s.mono_ns.size();
  if (s.wall_ns.size() != n || s.values.size() != kDeviceMetricCount) __builtin_trap();
  for (std::size_t i = 1; i < n; ++i) {
    if (s.mono_ns[i] < s.mono_ns[i - 1]) __builtin_trap();
  }
  std::size_t with_values = 0;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (s.values[m].size() != n) __builtin_trap();
    bool any = false;
    for (double v : s.values[m]) {
      if (std::isinf(v)) __builtin_trap();
      any = any || !std::isnan(v);
    }
    with_values += any ? 1 : 0;
  }
  if (with_values != s.info.supported.size()) __builtin_trap();
}

bool same_values(const DeviceSeries& a, const DeviceSeries& b) {
  if (a.wall_ns != b.wall_ns || a.info.index != b.info.index) return false;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    for (std::size_t i = 0; i < a.mono_ns.size(); ++i) {
      const double x = a.values[m][i], y = b.values[m][i];
      if (std::isnan(x) != std::isnan(y) || (!std::isnan(x) && x != y)) return false;
    }
  }
  return true;
}

bool strictly_increasing(const std::vector<std::int64_t>& v) {
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i] <= v[i - 1]) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuwatch::ImportResult first;
  try {
    first = gpuwatch::import_text(text, "fuzz");
  } catch (const gpuwatch::ImportError&) {
    return 0;
  }
  if (first.samples_read == 0) __builtin_trap();
  for (const DeviceSeries& s : first.data.devices) check_series(s);

  std::string jsonl;
  gpuwatch::write_sample_rows(first.data, "jsonl", [&jsonl](std::string_view s) { jsonl += s; });
  const gpuwatch::ImportResult second = gpuwatch::import_text(jsonl, "again");  // must not throw
  if (second.samples_dropped != 0 || second.data.devices.size() != first.data.devices.size()) __builtin_trap();
  for (std::size_t d = 0; d < first.data.devices.size(); ++d) {
    const DeviceSeries& a = first.data.devices[d];
    const DeviceSeries& b = second.data.devices[d];
    if (b.mono_ns.size() != a.mono_ns.size()) __builtin_trap();
    // Rows come back in wall-time order; where that is the first order too,
    // they must be the same rows.
    if (strictly_increasing(a.wall_ns) && strictly_increasing(a.mono_ns) && !same_values(a, b)) __builtin_trap();
  }
  return 0;
}
