// The GPUs' processes as Prometheus series, for `exporter --processes`:
// opt-in because each process is a series of its own, and bounded because a
// scrape target must not grow without limit with what users run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

// Per GPU, the processes using most memory get a series; the rest are only
// counted in gpuwatch_gpu_processes.
inline constexpr std::size_t kMaxProcessSeriesPerGpu = 32;
// A command label longer than this is cut (at a character boundary).
inline constexpr std::size_t kMaxCommandLabelBytes = 64;

// Every gpuwatch_process_* family, and gpuwatch_gpu_processes, appended to
// `out`. `watched` lists the exported GPUs: one without processes says 0.
void append_process_families(std::string& out, const std::vector<GpuProcess>& processes,
                             const std::vector<int>& watched, const std::string& hostname);

// A command name as a label value: control characters become '?', and it
// is cut to kMaxCommandLabelBytes without splitting a UTF-8 character.
std::string command_label(std::string_view command);

}  // namespace gpuwatch
