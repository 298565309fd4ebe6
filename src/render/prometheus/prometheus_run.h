// The recording run beside the GPUs, as Prometheus series: which run the
// GPUs belong to, how far its training is, and what the advisor says of it.
// No other exporter can tell a dashboard that a GPU's low utilization is one
// run's input pipeline.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/run_status.h"

namespace gpuwatch {

// Every gpuwatch_run_* family of `run`, appended to `out`.
void append_run_families(std::string& out, const RunStatusReport& run, const std::string& hostname);

// An epoch as annotated ("3", "3/10", "3 of 10"): its leading number, or
// none when it does not start with one.
std::optional<double> epoch_number(std::string_view epoch);

}  // namespace gpuwatch
