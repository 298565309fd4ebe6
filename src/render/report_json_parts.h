// Pieces of the JSON report shared by report_json.cpp and
// report_json_detectors.cpp.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/run_report.h"
#include "base/json_writer.h"

namespace gpuwatch {

void write_summary(JsonWriter& w, const Summary& s);
// "idle_gaps", "throttling", "memory_trend", "pcie_link": objects or null.
void write_detectors(JsonWriter& w, const DeviceReport& d, const RunInfo& run);
// name: [ {label, occurrences, duration_s, devices: [...]} ]
void write_segments(JsonWriter& w, std::string_view name, const std::vector<SegmentStats>& segments);

}  // namespace gpuwatch
