// The importers on arbitrary bytes: every input gives a run or an
// ImportError, never a crash. A run must look like a stored one (columns as
// long as their times, times in order, values finite and within their
// metric's plausible range, a span of at most two years, `supported`
// exactly the metrics with values), reading the bytes a few at a time (as
// files are read, in chunks) must give the same run, and exporting it as
// JSON lines and importing that again must give back the same samples: the
// importer reads what the exporter writes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "import/import.h"
#include "import/plausible.h"
#include "render/seed_files.h"

namespace {

using gpuwatch::DeviceSeries;
using gpuwatch::kDeviceMetricCount;

// Two kMaxRunSeconds: samples lie within one of the median time.
constexpr double kMaxSpanNs = 2 * gpuwatch::kMaxRunSeconds * 1e9;

void check_series(const DeviceSeries& s) {
  const std::size_t n = s.mono_ns.size();
  if (s.wall_ns.size() != n || s.values.size() != kDeviceMetricCount) __builtin_trap();
  for (std::size_t i = 1; i < n; ++i) {
    if (s.mono_ns[i] < s.mono_ns[i - 1]) __builtin_trap();
  }
  if (n && (s.mono_ns[0] < 0 || static_cast<double>(s.mono_ns[n - 1]) > kMaxSpanNs)) __builtin_trap();
  std::size_t with_values = 0;
  for (std::size_t m = 0; m < kDeviceMetricCount; ++m) {
    if (s.values[m].size() != n) __builtin_trap();
    bool any = false;
    const auto& range = gpuwatch::plausible_range(static_cast<gpuwatch::DeviceMetric>(m));
    for (double v : s.values[m]) {
      if (std::isinf(v) || (!std::isnan(v) && !range.contains(v))) __builtin_trap();
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
  for (std::size_t m = 0; m < gpuwatch::kHostMetricCount; ++m) {
    const auto& range = gpuwatch::plausible_range(static_cast<gpuwatch::HostMetric>(m));
    for (double v : first.data.host.values[m]) {
      if (!std::isnan(v) && !range.contains(v)) __builtin_trap();
    }
  }

  // Chunks of 1 to 16 bytes, the size taken from the input: every record
  // is cut somewhere, and must come out as from one piece.
  const gpuwatch::ImportResult chunked = gpuwatch::import_text_in_chunks(text, "fuzz", 1 + size % 16);
  if (chunked.samples_read != first.samples_read || chunked.samples_dropped != first.samples_dropped ||
      chunked.warnings != first.warnings || chunked.data.devices.size() != first.data.devices.size()) {
    __builtin_trap();
  }
  for (std::size_t d = 0; d < first.data.devices.size(); ++d) {
    const DeviceSeries& a = first.data.devices[d];
    const DeviceSeries& b = chunked.data.devices[d];
    if (a.mono_ns != b.mono_ns || !same_values(a, b)) __builtin_trap();
  }

  std::string jsonl;
  gpuwatch::write_sample_rows(first.data, gpuwatch::OutputFormat::jsonl, [&jsonl](std::string_view s) { jsonl += s; });
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
