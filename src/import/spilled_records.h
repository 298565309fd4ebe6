// The records a RunBuilder spills as it reads a file, one per device row,
// host row, event or process, in file order: the values that are present,
// nothing else (a row of one metric takes 29 bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/run.h"
#include "core/sample.h"
#include "import/spill.h"

namespace gpuwatch {

enum class RecordTag : std::uint8_t { Device = 'D', Host = 'H', Event = 'E', Process = 'P' };

// One record read back; the fields of its tag are set, the others are left
// as the previous record had them (one SpilledRecord is reused for all).
struct SpilledRecord {
  RecordTag tag = RecordTag::Device;
  std::uint64_t time = 0;  // time point: device, host, event
  int device = -1;         // device: its GPU; event: its GPU or -1
  DeviceValues device_values;
  HostValues host_values;
  std::vector<double> cores;
  std::string kind;     // event
  std::string message;  // event
  ProcessRecord process;
};

void spill_device_row(SpillFile& out, std::uint64_t time, int gpu, const DeviceValues& values);
void spill_host_row(SpillFile& out, std::uint64_t time, const HostValues& values, const std::vector<double>& cores);
void spill_event(SpillFile& out, std::uint64_t time, int device, std::string_view kind, std::string_view message);
void spill_process(SpillFile& out, const ProcessRecord& process);

// The next record; false at the end.
bool read_record(SpillFile::Reader& in, SpilledRecord& record);

}  // namespace gpuwatch
