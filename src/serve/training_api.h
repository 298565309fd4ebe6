// The dashboard's answers about what a run's training said of itself (its
// annotations: steps, logged scalars, the loop's step timing), reduced to
// what a chart draws, and the one-row summary of a run the runs list shows.
// docs/serve.md.
#pragma once

#include <string>
#include <string_view>

#include "analysis/advisor/config.h"
#include "serve/request_target.h"
#include "serve/store_pool.h"

namespace gpuwatch {

// GET /api/runs/ID/training?from=&to=&points=: the step counter, steps/s
// (and samples/s when a batch_size is logged), the share of each step spent
// waiting for data, and every logged scalar over the span, each reduced to
// at most about 2 x points values.
std::string training_json(StorePools& stores, std::string_view run_ref, const RequestTarget& query);

// Past this many device-samples (estimated), a summary carries no verdict:
// judging a finished run reads it whole.
inline constexpr double kSummaryVerdictMaxDeviceSamples = 1e6;

// GET /api/runs/ID/summary: duration, GPUs, mean utilization, energy, final
// loss, steps/s and the verdict with its root cause: the runs list's columns.
std::string summary_json(StorePools& stores, std::string_view run_ref, const AdvisorConfig& config, bool config_given);

}  // namespace gpuwatch
