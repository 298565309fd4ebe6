// Line formats for a stream of samples, shared by `sample` (live) and
// `export` (stored): an aligned table, JSON lines, and CSV.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/run.h"
#include "core/sample.h"
#include "core/slow_carry.h"
#include "render/output_format.h"

namespace gpuwatch {

// Every jsonl line carries it. 2: the GPU index is "gpu", and the line says
// its schema_version (docs/report-json.md, "Changed in schema_version 2");
// csv's column is "gpu" too.
inline constexpr int kSampleLinesSchemaVersion = 2;

class SampleFormatter {
 public:
  virtual ~SampleFormatter() = default;
  // Text before the first row (a header line, or nothing).
  virtual void begin(std::string& out) = 0;
  // elapsed_s is by the monotonic clock from start_mono_ns: a clock step
  // of the wall times does not move it. A row between two slow reads gets
  // the last one's values (core/slow_carry.h): rows of each device must
  // come in time order.
  void device(std::string& out, const DeviceSample& sample, const DeviceInfo& info, std::int64_t start_mono_ns);
  // Host rows: only formats that can mix row kinds print them.
  virtual void host(std::string& out, const HostSample& sample, std::int64_t start_mono_ns) = 0;
  // A process the drivers listed during the run, after every sample row:
  // only formats that can mix row kinds print them.
  virtual void process(std::string& /*out*/, const ProcessRecord& /*process*/) {}
  // One of the run's events (annotations, advisories, the advisor config it
  // was recorded with), among the rows at its time: only formats that can
  // mix row kinds print them, so that an imported export is judged as the
  // run was.
  virtual void event(std::string& /*out*/, const Event& /*event*/, std::int64_t /*start_mono_ns*/) {}
  // For a stored run: the rows before this first slow read get it too (SlowCarry::carry_back).
  void carry_back(const DeviceSample& first_read) { carry_.carry_back(first_read); }

 protected:
  virtual void write_device(std::string& out, const DeviceSample& sample, bool slow_values_carried,
                            const DeviceInfo& info, std::int64_t start_mono_ns) = 0;

 private:
  SlowCarry carry_;
};

// text (sample's "table"), jsonl or csv; nullptr for any other format.
std::unique_ptr<SampleFormatter> make_sample_formatter(OutputFormat format);

}  // namespace gpuwatch
