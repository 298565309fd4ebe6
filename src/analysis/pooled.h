// Statistics of several GPUs taken together, from each GPU's own summary: a
// report of a 35-hour run never holds two GPUs' samples at once, and means,
// spreads and extremes combine exactly. Percentiles do not (they need the
// samples side by side), so the pooled view has none.
#pragma once

#include <optional>
#include <span>

#include "analysis/stats.h"

namespace gpuwatch {

struct Pooled {
  std::size_t gpus = 0;      // summaries combined
  std::size_t count = 0;     // samples, all GPUs
  double span_s = 0;         // summed over GPUs
  double mean = 0;           // over all GPUs' time, each weighted by its span
  double std = 0;            // of all samples together (within- and between-GPU spread)
  double min = 0;
  double max = 0;
  double sum_of_means = 0;   // e.g. total power or memory of the machine, on average
};

// Nullopt without summaries. A summary with span 0 (a single sample) weighs
// as one second, like summarize() weighs a lone sample.
std::optional<Pooled> pool(std::span<const Summary* const> per_gpu);

}  // namespace gpuwatch
