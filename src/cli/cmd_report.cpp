#include <fmt/format.h>

#include "analysis/run_report.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/run_source.h"
#include "render/report.h"
#include "store/store.h"

namespace gpuwatch::cli {

void add_report(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("report", "Analyse one run: statistics per GPU, energy, load balance, host");
  struct Flags {
    std::string run;
    std::string store;
    std::string format = "text";
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("RUN", flags->run, kRunHelp)->required();
  cmd->add_option("--format", flags->format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    const RunReport report = build_report(load_run(flags->run, flags->store));
    fmt::print("{}", flags->format == "json" ? render_report_json(report) : render_report_text(report));
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
