#include <algorithm>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/time_flag.h"
#include "render/report.h"
#include "render/runs.h"
#include "store/run_filter.h"
#include "store/store.h"

namespace gpuwatch::cli {

void add_runs(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("runs", "List stored runs, newest last");
  struct Flags {
    std::vector<std::string> store;
    OutputFormat format = OutputFormat::text;
    std::string since;
    std::size_t limit = 0;
    RunFilter filter;
  };
  auto flags = std::make_shared<Flags>();
  add_stores_option(*cmd, flags->store);
  add_format_option(*cmd, flags->format, {OutputFormat::text, OutputFormat::json}, "text or json");
  cmd->add_option("--name", flags->filter.name, "Only runs of this name, or whose name matches a glob ('bert-*')");
  cmd->add_option("--job", flags->filter.job, "Only runs of this job (record --job, Slurm's or torchelastic's id)");
  cmd->add_option("--since", flags->since, "Only runs started since: 2h, 30d (ago) or 2026-11-01 (local time)")
      ->check(time_bound_validator());
  cmd->add_option("--limit", flags->limit, "Only the newest N runs (after the other filters)")
      ->check(whole_check("runs", 1, std::nullopt, "20"));
  cmd->callback([flags, &exit_code] {
    std::vector<RunInfo> runs;
    const StoreList stores(flags->store);
    for (const auto& path : stores.paths()) {
      try {
        if (!std::filesystem::exists(path)) {
          if (stores.named()) throw StoreError(fmt::format("no run store at {} (no such file)", path.string()));
          continue;  // the default store, not created yet: no runs
        }
        const std::vector<RunInfo> listed = Store::open(path, true)->list_runs();
        runs.insert(runs.end(), listed.begin(), listed.end());
      } catch (const EmptyStoreError&) {
        // A recorder is creating the store: no run to list yet.
      }
    }
    // Several stores (one per node): one list, oldest first.
    std::stable_sort(runs.begin(), runs.end(),
                     [](const RunInfo& a, const RunInfo& b) { return a.start_wall_ns < b.start_wall_ns; });
    RunFilter filter = flags->filter;
    if (flags->limit > 0) filter.limit = flags->limit;
    if (!flags->since.empty()) filter.since_wall_ns = parse_time_bound_ns(flags->since, now().wall_ns);
    const bool filtered = !filter.name.empty() || !filter.job.empty() || filter.since_wall_ns || filter.limit;
    const std::vector<RunInfo> shown = filter_runs(runs, filter);
    if (flags->format == OutputFormat::text && shown.empty() && filtered && !runs.empty()) {
      fmt::print("No run matches (the store has {}).\n", runs.size());
    } else {
      print_output(render_runs(shown, flags->format));
    }
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
