#include <fmt/format.h>

#include "analysis/run_report.h"
#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run_selection.h"
#include "cli/run_source.h"
#include "render/job_report.h"
#include "render/report.h"
#include "render/run_group.h"
#include "store/store.h"

namespace gpuwatch::cli {

void add_report(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("report", "Analyse one run: statistics per GPU, energy, load balance, host");
  struct Flags {
    std::string run;
    std::vector<std::string> store;
    OutputFormat format = OutputFormat::text;
    std::string group;
    std::string job;
    AdvisorFlags advisor;
    bool full = false;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("RUN", flags->run, kRunHelp);
  add_format_option(*cmd, flags->format, {OutputFormat::text, OutputFormat::json, OutputFormat::markdown}, "text, json or markdown");
  cmd->add_option("--group", flags->group,
                  "Instead of one run: a summary row for every run whose name matches this shell pattern");
  cmd->add_option("--job", flags->job,
                  "Instead of one run: the job across nodes, every run of this job id (record --job, Slurm's or\n"
                  "torchelastic's) in the stores given, with the nodes' load balance and the straggler node");
  cmd->add_flag("--full", flags->full,
                "Text and Markdown: also list the events the recorder stores for itself (job_gpus, advisor_config,\n"
                "marks_dropped, ...), which the JSON always has");
  add_advisor_options(*cmd, flags->advisor);
  add_stores_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    if (!flags->job.empty()) {
      if (!flags->run.empty() || !flags->group.empty()) {
        throw CLI::ValidationError("--job", "give one of RUN, --group and --job");
      }
      print_output(render_job_report(load_job(flags->job, flags->store), flags->format));
      exit_code = 0;
      return;
    }
    if (!flags->group.empty()) {
      if (!flags->run.empty()) throw CLI::ValidationError("--group", "give either RUN or --group, not both");
      print_output(render_run_group(load_run_group(flags->group, flags->store), flags->format));
      exit_code = 0;
      return;
    }
    if (flags->run.empty()) throw CLI::RequiredError("RUN (or --group GLOB, or --job ID)");
    const RunReport report = report_run(flags->run, flags->store, advisor_choice(flags->advisor));
    print_output(render_report(report, flags->format, flags->full));
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
