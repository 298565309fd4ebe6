#include <fmt/format.h>

#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/run_source.h"
#include "cli/run_status_source.h"
#include "top/top_app.h"
#include "top/top_keys.h"

namespace gpuwatch::cli {

void add_top(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "top", "Live view of every GPU, its processes and the host (q quits, h lists the keys)");
  struct Flags {
    TopOptions options;
    std::string gpus;
    std::string run;
    std::string store;
    bool no_run = false;
    AdvisorFlags advisor;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--interval", flags->options.interval_s, "Seconds between samples (0.1 to 60)")
      ->check(CLI::Range(kTopIntervals[0], 60.0))
      ->capture_default_str();
  add_gpus_option(*cmd, flags->gpus, "GPU indices to show, e.g. 0,2 or 0-3 (default: all)");
  cmd->add_flag("--once", flags->options.once,
                "Print one snapshot and exit (samples for one second, so CPU shares cover it)");
  cmd->add_option("--format", flags->options.format, "With --once: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--width", flags->options.width, "With --once --format text: columns (default $COLUMNS or 100)")
      ->check(CLI::Range(40, 1000));
  cmd->add_option("--height", flags->options.height, "With --once --format text: lines (default: all it needs)")
      ->check(CLI::Range(10, 1000));
  cmd->add_option("--run", flags->run,
                  std::string(kRunHelp) + "\nshown beside the GPUs: progress, steps/s, advisories (default: the\n"
                  "store's run that is recording now, if any)");
  cmd->add_flag("--no-run", flags->no_run, "Show no run, even when one is recording");
  add_advisor_options(*cmd, flags->advisor);
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, cmd, &exit_code] {
    if (!flags->options.once) {
      for (const char* once_only : {"--format", "--width", "--height"}) {
        if (cmd->count(once_only) > 0) throw CLI::ValidationError(once_only, "needs --once");
      }
    }
    if (!flags->gpus.empty()) flags->options.gpus = parse_gpu_list(flags->gpus);
    if (flags->no_run && !flags->run.empty()) throw CLI::ValidationError("--no-run", "excludes --run");
    if (!flags->no_run) {
      // A RUN that names nothing is an error now, not a line on the screen.
      const AdvisorConfig config = advisor_config(flags->advisor);
      if (!flags->run.empty()) (void)watched_run_status(flags->run, flags->store, config);
      flags->options.watched_run = [run = flags->run, store = flags->store, config] {
        return watched_run_status(run, store, config);
      };
    }
    exit_code = run_top(SystemPaths::from_environment(), flags->options);
  });
}

}  // namespace gpuwatch::cli
