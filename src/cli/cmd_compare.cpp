#include <filesystem>

#include <fmt/format.h>

#include "analysis/compare.h"
#include "analysis/compare_minutes.h"
#include "analysis/parallel_for.h"
#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/run_selection.h"
#include "cli/run_source.h"
#include "render/compare.h"
#include "render/run_group.h"

namespace gpuwatch::cli {

namespace {
// Up to this many runs, one table per run against the first; more runs get
// the group summary (one row per run), which stays readable at any count.
constexpr std::size_t kMaxPairwiseRuns = 4;

struct CompareFlags {
  std::vector<std::string> runs;
  std::vector<std::string> store;
  OutputFormat format = OutputFormat::text;
  std::string align = "time";
  std::string span = "common";
  std::string group;
  std::string resolution = "auto";
  double warmup_s = 0;
};

// Whether the runs together hold more device-samples than compare reads
// whole; a file (imported in memory) never counts as long.
bool long_runs(const CompareFlags& f) {
  double device_samples = 0;
  LoadOptions facts;
  facts.device_samples = false;
  facts.host_samples = false;
  for (const std::string& ref : f.runs) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(ref, ec)) return false;
    const RunReader reader(ref, f.store);
    device_samples += estimated_device_samples(reader.run(), reader.read(facts).devices.size());
  }
  return device_samples > kCompareMinutesAboveDeviceSamples;
}

// The runs from their per-minute rollups, or none when one has none (a
// file, a run still recording) and `required` is false.
std::optional<Comparison> compare_by_minutes(const CompareFlags& f, const CompareOptions& options, bool required) {
  // Each run through its own store connection, at once: reading a long
  // run's rollups and host samples was half of compare's time at 100 M.
  constexpr std::size_t kReadWorkers = 4;
  std::vector<std::optional<StoredRunMinutes>> read(f.runs.size());
  parallel_for(read.size(), kReadWorkers, [&](std::size_t i) { read[i] = load_run_minutes(f.runs[i], f.store); });
  std::vector<RunData> facts;
  std::vector<RunMinutes> minutes;
  for (std::size_t i = 0; i < read.size(); ++i) {
    if (!read[i] && !required) return std::nullopt;
    if (!read[i]) {
      throw CompareError(fmt::format("run {} has no per-minute rollups (a file, or a run still recording); "
                                     "compare it with --resolution samples",
                                     f.runs[i]));
    }
    facts.push_back(std::move(read[i]->facts));
    minutes.push_back(std::move(read[i]->minutes));
  }
  return compare_minutes(facts, minutes, options);
}

Comparison compare_as_asked(const CompareFlags& f, const CompareOptions& options) {
  if (f.resolution == "minutes" || (f.resolution == "auto" && long_runs(f))) {
    if (auto c = compare_by_minutes(f, options, f.resolution == "minutes")) return std::move(*c);
  }
  std::vector<RunData> runs;
  for (const std::string& ref : f.runs) runs.push_back(load_run(ref, f.store));
  return compare_runs(runs, options);
}

}  // namespace

void add_compare(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "compare",
      "Compare runs: each against the first (the baseline A), metric by metric, with a confidence interval\n"
      "that says whether each difference is real. More than 4 runs, or --group, give one summary row per run.");
  auto flags = std::make_shared<CompareFlags>();
  cmd->add_option("RUN", flags->runs, "Runs: id, unique id prefix, run name or 'last'; the first is the baseline");
  cmd->add_option("--warmup", flags->warmup_s, "Leave out the first S seconds of every run")
      ->check(number_check({"seconds", 0, std::nullopt, false, "30"}))
      ->capture_default_str();
  cmd->add_option("--align", flags->align, "Match runs by elapsed time, or by epoch/step annotations")
      ->check(CLI::IsMember({"time", "epoch", "step"}))
      ->capture_default_str();
  auto* span = cmd->add_option("--span", flags->span, "common: the span every run covers; full: whole runs")
                   ->check(CLI::IsMember({"common", "full"}))
                   ->capture_default_str();
  cmd->add_option("--resolution", flags->resolution,
                  "auto: runs of over 1 M device-samples together from their per-minute rollups (a block bootstrap\n"
                  "over minutes), shorter ones from every sample; samples or minutes: always that way")
      ->check(CLI::IsMember({"auto", "samples", "minutes"}))
      ->capture_default_str();
  add_format_option(*cmd, flags->format, {OutputFormat::text, OutputFormat::json, OutputFormat::markdown}, "text, json or markdown");
  cmd->add_option("--group", flags->group,
                  "Summarize every stored run whose name matches this shell pattern (e.g. 'adamw*') instead");
  add_stores_option(*cmd, flags->store);
  cmd->callback([flags, span, &exit_code] {
    const CompareFlags& f = *flags;
    if (!f.group.empty()) {
      if (!f.runs.empty()) throw CLI::ValidationError("--group", "give either RUNs or --group, not both");
      print_output(render_run_group(load_run_group(f.group, f.store), f.format));
      exit_code = 0;
      return;
    }
    if (f.runs.size() < 2) throw CLI::ValidationError("RUN", "compare needs two runs or more (or --group GLOB)");
    if (f.align != "time" && span->count() > 0 && f.span == "full") {
      throw CLI::ValidationError("--span", "--span full compares whole runs; it does not go with --align " + f.align);
    }
    if (f.runs.size() > kMaxPairwiseRuns) {
      print_output(render_run_group(load_run_group(f.runs, f.store), f.format));
      exit_code = 0;
      return;
    }
    CompareOptions options;
    options.warmup_s = f.warmup_s;
    options.alignment = f.align == "epoch" ? Alignment::Epoch : (f.align == "step" ? Alignment::Step : Alignment::ElapsedTime);
    options.span = f.span == "full" ? SpanMode::Full : SpanMode::Common;
    print_output(render_compare(compare_as_asked(f, options), f.format));
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
