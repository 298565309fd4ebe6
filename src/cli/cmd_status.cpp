#include <fmt/format.h>

#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run_source.h"
#include "cli/run_status_source.h"
#include "cli/status_checks.h"
#include "render/run_status.h"

namespace gpuwatch::cli {

void add_status(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "status",
      "A short verdict on a live or finished run, for people and agents: the GPUs over the last\n"
      "window, the change since the previous check, and the advisor's advisories");
  struct Flags {
    std::string run = "last";
    std::vector<std::string> store;
    OutputFormat format = OutputFormat::text;
    double window_s = 0;
    double since_s = 0;
    bool no_remember = false;
    bool print_config = false;
    AdvisorFlags advisor;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("RUN", flags->run, std::string(kRunHelp) + " (default: last)");
  add_format_option(*cmd, flags->format, {OutputFormat::text, OutputFormat::json}, "text or json");
  cmd->add_option("--window", flags->window_s, "Seconds of the run's end to look at (default: window_s, 60)")
      ->check(seconds_check(1, 1e7, "60"));
  cmd->add_option("--since", flags->since_s,
                  "Compare with the window that ended S seconds before the run's end (default: the\n"
                  "previous `status` of this run, else the window before)")
      ->check(seconds_check(0.001, 1e9, "300"));
  cmd->add_flag("--no-remember", flags->no_remember, "Do not remember this check for the next one's comparison");
  cmd->add_flag("--print-advisor-config", flags->print_config,
                "Print the advisor's thresholds as a config file (the defaults, or what --advisor-config gives)");
  add_advisor_options(*cmd, flags->advisor);
  add_stores_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    AdvisorChoice advisor = advisor_choice(flags->advisor);
    if (flags->print_config) {
      print_output(format_advisor_config(advisor.config));
      exit_code = 0;
      return;
    }
    if (flags->window_s > 0) advisor.window_s = flags->window_s;
    const RunReader reader(flags->run, flags->store);
    const bool remember = reader.stored() && !flags->no_remember;
    const std::optional<double> since = flags->since_s > 0 ? std::optional(flags->since_s) : std::nullopt;
    const RunStatusReport status = run_status(reader, advisor, since, remember);
    print_output(render_run_status(status, flags->format));
    if (remember) remember_check(reader.run().id, reader.end_mono_ns());
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
