#include <fmt/format.h>

#include "analysis/advisor/advisor.h"
#include "analysis/run_report.h"
#include "analysis/run_status.h"
#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/run_source.h"
#include "cli/status_checks.h"
#include "render/run_status.h"

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

RunStatusReport run_status(const RunReader& reader, const AdvisorConfig& config, std::optional<double> since_s,
                           bool remembered) {
  const auto window_ns = static_cast<std::int64_t>(config.window_s * 1e9);
  const Windows w = choose_windows(reader, window_ns, since_s, remembered);

  LoadOptions span;
  span.since_mono_ns = w.now_end - window_ns;
  const RunData now = reader.read(span);
  const RunReport now_report = build_report(now);
  std::optional<RunReport> before_report;
  if (w.before_end) {
    LoadOptions before_span;
    before_span.since_mono_ns = *w.before_end - window_ns;
    before_span.until_mono_ns = *w.before_end;
    before_report = build_report(reader.read(before_span));
  }
  // A leak shows across epochs: the whole run's memory, when it has them.
  std::vector<EpochPeak> epochs;
  const auto epoch_events = std::count_if(now.events.begin(), now.events.end(), [](const Event& e) { return e.kind == "epoch"; });
  if (epoch_events > config.leak_min_epochs) {
    LoadOptions memory;
    memory.metrics = std::vector<DeviceMetric>{DeviceMetric::MemUsedBytes};
    memory.host = false;
    RunData history = reader.read(memory);
    history.events = now.events;
    epochs = epoch_peaks(history);
  }
  const double age_s = static_cast<double>(w.now_end - reader.run().start_mono_ns) / 1e9;
  const std::vector<Advisory> advisories = advise(AdvisorInput{now_report, now, age_s, epochs}, config);
  const double covered_s = std::min(config.window_s, age_s);
  return build_run_status(RunStatusInput{now_report, before_report ? &*before_report : nullptr, w.now_end,
                                         w.before_end, now.events, advisories, age_s, covered_s,
                                         reader.run().status == RunStatus::Recording});
}

}  // namespace

void add_status(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "status",
      "A short verdict on a live or finished run, for people and agents: the GPUs over the last\n"
      "window, the change since the previous check, and the advisor's advisories");
  struct Flags {
    std::string run = "last";
    std::string store;
    std::string format = "text";
    double window_s = 0;
    double since_s = 0;
    bool no_remember = false;
    bool print_config = false;
    AdvisorFlags advisor;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("RUN", flags->run, std::string(kRunHelp) + " (default: last)");
  cmd->add_option("--format", flags->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--window", flags->window_s, "Seconds of the run's end to look at (default: window_s, 60)")
      ->check(CLI::Range(1.0, 1e7));
  cmd->add_option("--since", flags->since_s,
                  "Compare with the window that ended S seconds before the run's end (default: the\n"
                  "previous `status` of this run, else the window before)")
      ->check(CLI::Range(0.001, 1e9));
  cmd->add_flag("--no-remember", flags->no_remember, "Do not remember this check for the next one's comparison");
  cmd->add_flag("--print-advisor-config", flags->print_config,
                "Print the advisor's thresholds as a config file (the defaults, or what --advisor-config gives)");
  add_advisor_options(*cmd, flags->advisor);
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    AdvisorConfig config = advisor_config(flags->advisor);
    if (flags->print_config) {
      fmt::print("{}", format_advisor_config(config));
      exit_code = 0;
      return;
    }
    if (flags->window_s > 0) config.window_s = flags->window_s;
    const RunReader reader(flags->run, flags->store);
    const bool remember = reader.stored() && !flags->no_remember;
    const std::optional<double> since = flags->since_s > 0 ? std::optional(flags->since_s) : std::nullopt;
    const RunStatusReport status = run_status(reader, config, since, remember);
    fmt::print("{}", flags->format == "json" ? render_run_status_json(status) : render_run_status_text(status));
    if (remember) remember_check(reader.run().id, reader.end_mono_ns());
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
