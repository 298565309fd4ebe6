// Line formats for a stream of samples, shared by `sample` (live) and
// `export` (stored): an aligned table, JSON lines, and CSV.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/sample.h"

namespace gpuwatch {

class SampleFormatter {
 public:
  virtual ~SampleFormatter() = default;
  // Text before the first row (a header line, or nothing).
  virtual void begin(std::string& out) = 0;
  // elapsed_s is by the monotonic clock from start_mono_ns: a clock step
  // of the wall times does not move it.
  virtual void device(std::string& out, const DeviceSample& sample, const DeviceInfo& info,
                      std::int64_t start_mono_ns) = 0;
  // Host rows: only formats that can mix row kinds print them.
  virtual void host(std::string& out, const HostSample& sample, std::int64_t start_mono_ns) = 0;
};

// "table", "jsonl" or "csv"; nullptr for anything else.
std::unique_ptr<SampleFormatter> make_sample_formatter(std::string_view format);

}  // namespace gpuwatch
