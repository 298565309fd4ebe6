// Words on the pictures: metric names, run and GPU labels, event labels.
#pragma once

#include <string>
#include <string_view>

#include "core/metrics.h"
#include "core/run.h"
#include "render/plot/plot_data.h"

namespace gpuwatch::plot {

// "GPU utilization", "Memory used", ...: for titles.
std::string_view metric_title(DeviceMetric m);
// "Power (W)": an axis title with the unit shown.
std::string axis_title(std::string_view title, std::string_view unit);

// "GPU 3"
std::string device_label(const DeviceInfo& info);
// The run's name, or its id when it has none.
std::string run_label(const RunInfo& run);
// "run 3f2a9c1b0d2e (train) · started 2026-11-26 03:12:01 CET · 35h00m00s · 8 × NVIDIA H100 80GB HBM3"
std::string run_subtitle(const PlotRun& run);
// "2026-11-26 03:12:01 CET"
std::string local_start_time(std::int64_t wall_ns);
// The event's message, or its kind when it has none; "GPU 3: " before it
// when the event concerns one GPU and does not say which.
std::string event_label(const Event& e);

}  // namespace gpuwatch::plot
