#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "render/report.h"
#include "render/runs.h"
#include "store/store.h"

namespace gpuwatch::cli {

void add_runs(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("runs", "List stored runs, newest last");
  auto store = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  add_store_option(*cmd, *store);
  cmd->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  cmd->callback([store, format, &exit_code] {
    const auto path = store_path(*store);
    std::vector<RunInfo> runs;
    if (std::filesystem::exists(path)) runs = Store::open(path, true)->list_runs();
    fmt::print("{}", *format == "json" ? render_runs_json(runs) : render_runs_text(runs));
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
