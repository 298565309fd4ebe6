// `gpuwatch rm RUN...` and `gpuwatch prune --older-than 30d`: deleting runs.
#include <algorithm>

#include <fmt/format.h>

#include "cli/cmd_rm.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/status_checks.h"
#include "cli/time_flag.h"
#include "render/runs.h"
#include "render/terminal_text.h"
#include "store/run_filter.h"
#include "store/store_delete.h"
#include "store/store.h"

namespace gpuwatch::cli {

namespace {

std::string label(const RunInfo& r) {
  return r.name.empty() ? r.id : fmt::format("{} ({})", r.id, terminal_safe(r.name));
}

// Deletes `runs` (or, with dry_run, says what would go) and reports it.
void delete_and_report(const std::filesystem::path& path, const std::vector<RunInfo>& runs, bool force, bool dry_run,
                       bool vacuum) {
  const std::string verb = dry_run ? "would delete" : "deleted";
  if (!dry_run) {
    std::vector<std::string> ids;
    for (const RunInfo& r : runs) ids.push_back(r.id);
    delete_runs(path, ids, force);
    for (const RunInfo& r : runs) forget_check(r.id);
  }
  for (const RunInfo& r : runs) {
    const bool refused = dry_run && r.status == RunStatus::Recording && !force;
    fmt::print("{} {}{}\n", verb, label(r), refused ? " (still recording: refused without --force)" : "");
  }
  fmt::print("{} {} run{}\n", verb, runs.size(), runs.size() == 1 ? "" : "s");
  if (vacuum && !dry_run && !runs.empty()) vacuum_store(path);
}

}  // namespace

void add_rm(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("rm", "Delete stored runs with all their samples and events");
  struct Flags {
    std::vector<std::string> runs;
    std::string store;
    bool force = false;
    bool dry_run = false;
    bool vacuum = false;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("RUN", flags->runs, "Run id, unique id prefix, run name (its latest run) or 'last'")->required();
  cmd->add_flag("--force", flags->force, "Delete a run that is still being recorded too");
  cmd->add_flag("--dry-run", flags->dry_run, "Only say what would be deleted");
  cmd->add_flag("--vacuum", flags->vacuum, "Then shrink the store file (rewrites it; not while another run records)");
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    const auto path = store_path(flags->store);
    if (!std::filesystem::exists(path)) throw StoreError(fmt::format("no run store at {}", path.string()));
    auto store = Store::open(path, true);
    // Every reference is resolved before anything is deleted: one bad
    // reference deletes nothing.
    std::vector<RunInfo> runs;
    for (const std::string& ref : flags->runs) {
      RunInfo r = store->resolve(ref);
      const bool seen = std::any_of(runs.begin(), runs.end(), [&r](const RunInfo& x) { return x.id == r.id; });
      if (!seen) runs.push_back(std::move(r));
    }
    store.reset();
    delete_and_report(path, runs, flags->force, flags->dry_run, flags->vacuum);
    exit_code = 0;
  });
}

void add_prune(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("prune", "Delete stored runs that ended before a given age; never a live one");
  struct Flags {
    std::string older_than;
    std::string name;
    std::string store;
    bool dry_run = false;
    bool vacuum = false;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--older-than", flags->older_than, "Age, e.g. 30d, 12h, 2w: runs last written to before then go")
      ->required()
      ->check(duration_validator());
  cmd->add_option("--name", flags->name, "Only runs of this name, or whose name matches a glob ('bert-*')");
  cmd->add_flag("--dry-run", flags->dry_run, "Only say what would be deleted");
  cmd->add_flag("--vacuum", flags->vacuum, "Then shrink the store file (rewrites it; not while another run records)");
  add_store_option(*cmd, flags->store);
  cmd->callback([flags, &exit_code] {
    const auto path = store_path(flags->store);
    exit_code = 0;
    if (!std::filesystem::exists(path)) {
      // A mistyped --store is not an empty store.
      if (!flags->store.empty()) throw StoreError(fmt::format("no run store at {} (no such file)", path.string()));
      fmt::print("No run store at {}: nothing to prune.\n", path.string());
      return;
    }
    auto store = Store::open(path, true);
    RunFilter filter;
    filter.name = flags->name;
    const std::int64_t cutoff = now().wall_ns - *parse_duration_ns(flags->older_than);
    const std::vector<RunInfo> runs = runs_to_prune(filter_runs(store->list_runs(), filter), cutoff);
    store.reset();
    delete_and_report(path, runs, false, flags->dry_run, flags->vacuum);
  });
}

}  // namespace gpuwatch::cli
