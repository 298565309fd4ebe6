// Renders a Comparison: text for terminals (tables that fit 100 columns,
// one table per run against the baseline, so any number of runs fits), JSON
// for programs (schema in docs/compare.md; bump kCompareSchemaVersion on an
// incompatible change) and markdown for notes and pull requests.
#pragma once

#include <string>
#include <string_view>

#include "analysis/compare.h"
#include "render/output_format.h"

namespace gpuwatch {

inline constexpr int kCompareSchemaVersion = 1;

std::string render_compare_text(const Comparison& comparison);
std::string render_compare_json(const Comparison& comparison);
std::string render_compare_markdown(const Comparison& comparison);
// In `format`: text, json or markdown (any other: text).
std::string render_compare(const Comparison& comparison, OutputFormat format);

// The finding for one metric of run `run` (1 or later) against the baseline,
// as one sentence, e.g. "B (adamwprune) uses 7.5 % less GPU memory than A
// (adamw): 10.83 GiB vs 11.71 GiB, 95 % CI −8.1 % to −6.9 % (circular block
// bootstrap, block 12 s)". Empty when either run has no values.
std::string compare_sentence(const Comparison& comparison, const MetricComparison& metric, std::size_t run);

}  // namespace gpuwatch
