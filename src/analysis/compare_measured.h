// What the two ways of comparing (samples: compare.cpp; per-minute rollups:
// compare_minutes.cpp) share once a run's metric is a summary and a series of
// weighted points: the block bootstrap, the differences and the assembly of
// the Comparison. Internal to analysis/compare*.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "analysis/bootstrap.h"
#include "analysis/compare.h"

namespace gpuwatch::compare_detail {

// One run's metric, measured, with its bootstrap means kept for the
// differences (runs are independent, so replicate r of A pairs with
// replicate r of B).
struct Measured {
  RunStatistics statistics;
  std::vector<double> bootstrap_means;
};

// The circular block bootstrap of the points (block length from the data),
// and the effective samples that its spread is worth.
Measured measure_points(const Summary& summary, const BinnedSeries& points, const CompareOptions& options,
                        std::uint64_t seed);

// A different stream per run and metric, all from the one fixed seed.
std::uint64_t stream_seed(std::uint64_t seed, std::size_t run, std::size_t metric);

// Run `run`'s metric inside its window; none when it has no value there.
using MeasureRun = std::function<std::optional<Measured>(std::size_t run, RunMetric metric)>;

// Every metric of every run measured, the differences against runs[0] and
// the notes on rough intervals.
Comparison assemble(std::vector<ComparedRun> runs, const CompareOptions& options, const MeasureRun& measure);

}  // namespace gpuwatch::compare_detail
