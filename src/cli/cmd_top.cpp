#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/run_status_source.h"
#include "base/environment.h"
#include "top/top_app.h"
#include "top/top_keys.h"

namespace gpuwatch::cli {

void add_top(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "top", "Live view of every GPU, its processes and the host (q quits, h lists the keys)");
  struct Flags {
    TopOptions options;
    std::string gpus;
    WatchedRunFlags run;
    std::string group_by = "process";
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--interval", flags->options.interval_s, "Seconds between samples (0.1 to 60)")
      ->check(seconds_check(kTopIntervals[0], 60, "2"))
      ->capture_default_str();
  add_gpus_option(*cmd, flags->gpus, "GPU indices to show, e.g. 0,2 or 0-3 (default: all)");
  cmd->add_flag("--once", flags->options.once,
                "Print one snapshot and exit: no keys, no padding (samples for a second, or one --interval\n"
                "when longer, so CPU shares cover it)");
  add_format_option(*cmd, flags->options.format, {OutputFormat::text, OutputFormat::json}, "With --once: text or json");
  cmd->add_option("--width", flags->options.width, "With --once --format text: columns (default $COLUMNS or 100)")
      ->check(whole_check("columns", 40, 1000, "120"));
  cmd->add_option("--height", flags->options.height, "With --once --format text: lines (default: all it needs)")
      ->check(whole_check("lines", 10, 1000, "40"));
  cmd->add_option("--group-by", flags->group_by,
                  "process: one row per process (the default); owner: one row per Slurm job, container, pod,\n"
                  "unit or user, with its processes' GPU memory and GPU use summed (the o key switches)")
      ->check(CLI::IsMember({"process", "owner"}))
      ->capture_default_str();
  add_watched_run_options(*cmd, flags->run, "shown beside the GPUs: progress, steps/s, advisories");
  cmd->callback([flags, cmd, &exit_code] {
    if (!flags->options.once) {
      for (const char* once_only : {"--format", "--width", "--height"}) {
        if (cmd->count(once_only) > 0) throw CLI::ValidationError(once_only, "needs --once");
      }
    }
    if (!flags->gpus.empty()) flags->options.gpus = parse_gpu_list(flags->gpus);
    flags->options.by_owner = flags->group_by == "owner";
    flags->options.watched_run = watched_run_reader(flags->run);
    flags->options.columns_variable = environment_value("COLUMNS");
    flags->options.term = environment_value("TERM").value_or("");
    flags->options.no_colour = !environment_value("NO_COLOR").value_or("").empty();
    exit_code = run_top(SystemPaths::from_environment(), flags->options);
  });
}

}  // namespace gpuwatch::cli
