// The advisor: rules over a sliding window of a run (seed 002's memory
// matrix, seed 004's low-utilization causes, leaks, drops, throttling,
// balance, PCIe). Pure: the caller loads the window, builds its report and
// calls advise() as often as it likes; diff_advisories() says what changed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/advisor/advisory.h"
#include "analysis/advisor/config.h"
#include "analysis/run_report.h"
#include "core/device_columns.h"
#include "core/run.h"

namespace gpuwatch {

struct DevicePeak {
  int device_index = 0;
  double peak_bytes = 0;  // highest memory used during the epoch
};

// One completed epoch: from its "epoch" event to the next one.
struct EpochPeak {
  std::string label;  // the event's message (the epoch number)
  std::int64_t start_mono_ns = 0;
  std::int64_t end_mono_ns = 0;
  std::vector<DevicePeak> devices;  // devices with a memory sample in the epoch, in device order
};

// Epochs in time order, each with every device's peak memory used. The last
// epoch is still open (or ended with the run, maybe cut short) and is left
// out. Meant for the whole run so far, not the window: a leak shows across
// epochs that a one-minute window never holds together.
std::vector<EpochPeak> epoch_peaks(const RunData& data);
// The same for a run without device samples in memory (`base`: its events
// and devices' facts), its memory read one device at a time from `columns`.
// end_ns: the last sample of the run.
std::vector<EpochPeak> epoch_peaks(const RunData& base, const DeviceColumns& columns, std::int64_t end_ns);

struct AdvisorInput {
  const RunReport& recent;     // build_report() over the window's samples
  const RunData& recent_data;  // those samples; its events should hold the
                               // run's latest model_params log (sent once, at start)
  double run_age_s = 0;        // how long the run has been going
  std::span<const EpochPeak> epochs;  // epoch_peaks() of the whole run so far
  // The last advisor_span_s() of samples and events, when the caller read
  // more than the window for the hang rule (job.hung needs hang_after_s of
  // samples, longer than the default window); null: recent_data is all.
  const RunData* hang_span = nullptr;
  // A finished run too long to hold in memory (runs/run_status_window.h):
  // `recent` is its whole report, `recent_data` its events and devices'
  // facts without samples, `hang_span` its end. The few rules that judge
  // samples over the whole run (low utilization's share and bursts, steady
  // memory growth) read the column they need from here, one device at a
  // time, only when the report already points that way.
  const DeviceColumns* columns = nullptr;
  // With `columns`: the run's first sample (recent_data has none), where the
  // step timing the rules judge begins.
  std::optional<std::int64_t> first_sample_ns = std::nullopt;
};

// The last window_s (ending at end_mono_ns) of `span`, which a caller read
// for advisor_span_s(): its samples before the window dropped, its events
// kept. The rules see this as recent_data, the hang rule `span` as hang_span.
RunData advisor_window(const RunData& span, const AdvisorConfig& config, std::int64_t end_mono_ns);

// At most one advisory per (id, device), most severe first, then by id and
// device: the order is stable from one evaluation to the next.
std::vector<Advisory> advise(const AdvisorInput& in, const AdvisorConfig& config);

// advise()'s order: causes before what they explain, then most severe
// first, then by id and device.
void order_advisories(std::vector<Advisory>& advisories);

}  // namespace gpuwatch
