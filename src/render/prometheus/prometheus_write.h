// The exposition format's pieces (HELP/TYPE lines, samples with escaped
// labels), shared by the GPU and the recording run's families.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/metrics.h"

namespace gpuwatch::prometheus_text {

using PromLabels = std::vector<std::pair<std::string_view, std::string>>;

// HELP text: backslash and newline escaped (quotes are fine there).
std::string prometheus_help_text(std::string_view text);

// A metric's HELP: the catalogue's label (core/metrics.h), the unit it is
// exposed in (empty: the catalogue's own) and a note, "Power (W)",
// "Process GPU use (0-1, since the previous read)".
std::string metric_help(const MetricInfo& metric, std::string_view unit, std::string_view note);

// Shortest text that reads back as the same double.
std::string prometheus_number(double value);

void family_header(std::string& out, std::string_view name, std::string_view help, bool counter);

void write_sample(std::string& out, std::string_view name, const PromLabels& labels, double value);

}  // namespace gpuwatch::prometheus_text
