// The dashboard's JSON answers about stored runs (docs/serve.md), each over
// a read-only connection to the store: no answer ever writes to it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "analysis/advisor/config.h"
#include "serve/answer_cache.h"
#include "analysis/downsample.h"
#include "analysis/run_status.h"
#include "serve/request_target.h"
#include "serve/store_pool.h"
#include "store/store.h"

namespace gpuwatch {

// An answer that is not a 200: the status and a message for the client.
class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  [[nodiscard]] int status() const { return status_; }

 private:
  int status_;
};

// The schema_version of the dashboard's answers (docs/serve.md). Those that
// list GPUs (/api/runs, /api/runs/ID, its series, the live samples) are at 2
// since the GPU index is "gpu" (docs/report-json.md, "Changed in
// schema_version 2"); the others (errors, /api/info, host series, the live
// stream's end) did not change.
inline constexpr int kServeSchemaVersion = 1;
inline constexpr int kServeGpusSchemaVersion = 2;

inline constexpr std::size_t kDefaultSeriesPoints = 1000;
inline constexpr std::size_t kMaxSeriesPoints = 10000;
inline constexpr std::size_t kMaxComparedRuns = 8;
// Times past this many seconds of a run (three years) are refused: in
// nanoseconds they would no longer fit the run's clock.
inline constexpr double kMaxApiSeconds = 1e8;

// GET /api/runs: every run, newest first.
std::string runs_json(StorePools& stores);
// GET /api/runs/ID
std::string run_json(StorePools& stores, std::string_view run_ref);
// GET /api/runs/ID/series?metric=&from=&to=&points=
std::string series_json(StorePools& stores, std::string_view run_ref, const RequestTarget& query);
// GET /api/runs/ID/host?from=&to=&points=: the host's metrics over the span,
// reduced as a series is; those with no value in it left out.
std::string host_series_json(StorePools& stores, std::string_view run_ref, const RequestTarget& query);
// GET /api/runs/ID/report: `gpuwatch report ID --format json`, with the
// verdict `status` gives.
// A finished run's answer is kept in `cache` (another engineer's `report`
// may take seconds over a long run; a second page gets it at once).
std::string report_json(StorePools& stores, std::string_view run_ref, const AdvisorConfig& config, bool config_given,
                        AnswerCache& cache);
// GET /api/runs/ID/status: `gpuwatch status ID --format json` over the run's
// latest window, the window before it as the reference. Judged with the
// run's own advisor config unless `config_given` (analysis/run_verdict.h).
std::string status_json(StorePools& stores, std::string_view run_ref, const AdvisorConfig& config, bool config_given);
// GET /api/compare?runs=A,B: long runs from their per-minute rollups
// (analysis/compare_minutes.h); the answer of finished runs kept in `cache`.
std::string compare_json(StorePools& stores, const RequestTarget& query, AnswerCache& cache);

// from, to and points of a series request (to defaults to the run's end),
// checked: ApiError 400 otherwise.
BucketGrid series_grid(const RequestTarget& query, const RunInfo& run);

// The run's status with the window before its latest as the reference,
// judged with the run's own advisor config unless `config_given`.
RunStatusReport stored_status(const StorePools::Found& found, const AdvisorConfig& fallback, bool config_given);

// The run `run_ref` names (id, unique id prefix, name, "last"), on an open
// store; ApiError 404 when it names none.
RunInfo find_run(Store& store, std::string_view run_ref);

// The API's times: seconds since the run's start.
double seconds_since_start(const RunInfo& run, std::int64_t mono_ns);

// "{"schema_version": 1, "error": "..."}"
std::string error_json(std::string_view message);

}  // namespace gpuwatch
