// A run's status (`gpuwatch status`), also what `top` shows beside the GPUs:
// one place that reads a run's last window and asks the advisor about it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/advisor/config.h"
#include "analysis/run_status.h"
#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/run_source.h"

namespace gpuwatch::cli {

// The status of the run `reader` reads. The reference ("before") window ends
// `since_s` before the data's end, else at the caller's last check when
// `remembered`, else one window before. Judged with the run's own advisor
// config unless the user gave one (AdvisorChoice).
RunStatusReport run_status(const RunReader& reader, const AdvisorChoice& advisor, std::optional<double> since_s,
                           bool remembered);

// The config a run is judged with: the user's (AdvisorChoice) or the run's
// own, with the user's window.
AdvisorConfig judging_config(const RunRead& read, const AdvisorChoice& advisor);

// For `top`: the status of RUN, or with run_ref empty of the store's latest
// run that is still recording (none: no store, or nothing recording). Reads
// the store on a read-only connection, which never blocks its writer.
// Throws StoreError (or an import error) for a RUN that names nothing.
std::optional<RunStatusReport> watched_run_status(const std::string& run_ref, const std::string& store_flag,
                                                  const AdvisorChoice& advisor);

// --run, --no-run, --store and the advisor's options of a live view that
// shows the recording run beside the GPUs (top, exporter).
struct WatchedRunFlags {
  std::string run;
  std::string store;
  bool no_run = false;
  AdvisorFlags advisor;
};
void add_watched_run_options(CLI::App& cmd, WatchedRunFlags& flags, std::string_view shown_as);

// What reads the watched run, or nothing with --no-run. A RUN that names
// nothing throws now, not later on the screen or in a scrape.
std::function<std::optional<RunStatusReport>()> watched_run_reader(const WatchedRunFlags& flags);

}  // namespace gpuwatch::cli
