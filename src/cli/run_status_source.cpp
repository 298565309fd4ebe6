#include "cli/run_status_source.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "cli/options.h"
#include "cli/status_checks.h"
#include "runs/run_status_window.h"

namespace gpuwatch::cli {

namespace {

struct Windows {
  std::int64_t now_end = 0;
  std::optional<std::int64_t> before_end;
};

// "Before" is the window that ended at the caller's last check (or S seconds
// ago with --since); the first check compares with the window before "now".
Windows choose_windows(const RunReader& reader, std::int64_t window_ns, std::optional<double> since_s,
                       bool remembered) {
  Windows w;
  w.now_end = reader.end_mono_ns();
  std::int64_t before_end = w.now_end - window_ns;
  if (since_s) {
    before_end = w.now_end - static_cast<std::int64_t>(*since_s * 1e9);
  } else if (remembered) {
    if (auto last = last_check_end_mono_ns(reader.run().id); last && *last < w.now_end) before_end = *last;
  }
  if (before_end > reader.run().start_mono_ns) w.before_end = before_end;
  return w;
}

}  // namespace

RunStatusReport run_status(const RunReader& reader, const AdvisorChoice& advisor, std::optional<double> since_s,
                           bool remembered) {
  const RunRead read = [&reader](const LoadOptions& o) { return reader.read(o); };
  const AdvisorConfig config = judging_config(read, advisor);
  const auto window_ns = static_cast<std::int64_t>(config.window_s * 1e9);
  const Windows w = choose_windows(reader, window_ns, since_s, remembered);
  return status_over_windows(reader.run(), read, StatusWindows{w.now_end, w.before_end}, config, reader.sources());
}

AdvisorConfig judging_config(const RunRead& read, const AdvisorChoice& advisor) {
  AdvisorConfig config = run_advisor_config(read, advisor.config, advisor.given);
  if (advisor.window_s) config.window_s = *advisor.window_s;
  return config;
}

std::optional<RunStatusReport> watched_run_status(const std::string& run_ref, const std::string& store_flag,
                                                  const AdvisorChoice& advisor) {
  if (!run_ref.empty()) return run_status(RunReader(run_ref, store_flag), advisor, std::nullopt, false);
  const auto path = store_path(store_flag);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  // One open per poll: the run is read through the store it was found in.
  std::unique_ptr<Store> store = Store::open(path, true);
  // A recorder whose process is gone is listed as interrupted, not recording.
  const std::vector<RunInfo> runs = store->list_runs();
  const auto it = std::find_if(runs.rbegin(), runs.rend(),
                               [](const RunInfo& r) { return r.status == RunStatus::Recording; });
  if (it == runs.rend()) return std::nullopt;
  return run_status(RunReader(std::move(store), *it), advisor, std::nullopt, false);
}

void add_watched_run_options(CLI::App& cmd, WatchedRunFlags& flags, std::string_view shown_as) {
  cmd.add_option("--run", flags.run,
                 fmt::format("{}\n{} (default: the store's run that is recording now, if any)", kRunHelp, shown_as));
  cmd.add_flag("--no-run", flags.no_run, "Show no run, even when one is recording");
  add_advisor_options(cmd, flags.advisor);
  add_store_option(cmd, flags.store);
}

std::function<std::optional<RunStatusReport>()> watched_run_reader(const WatchedRunFlags& flags) {
  if (flags.no_run && !flags.run.empty()) throw CLI::ValidationError("--no-run", "excludes --run");
  if (flags.no_run) return {};
  const AdvisorChoice advisor = advisor_choice(flags.advisor);
  if (!flags.run.empty()) (void)watched_run_status(flags.run, flags.store, advisor);
  return [run = flags.run, store = flags.store, advisor] { return watched_run_status(run, store, advisor); };
}

}  // namespace gpuwatch::cli
