#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "annotate/output_pattern.h"
#include "base/environment.h"
#include "base/process_identity.h"
#include "base/system_paths.h"
#include "cli/advisor_options.h"
#include "cli/commands.h"
#include "cli/former_flag_names.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/run_source.h"
#include "process/child_process.h"
#include "record/hang_action.h"
#include "process/job_environment.h"
#include "record/recorder.h"

namespace gpuwatch::cli {

namespace {

struct RecordFlags {
  RecordOptions options;
  std::string gpus;
  std::string store;
  std::string output_dir;
  std::string pid;
  bool no_summary = false;
  bool full = false;
  bool generate_graphs = false;
  std::string compare_with;
  std::string job;
  AdvisorFlags advisor;
  std::string on_underuse;
  std::string underuse_rules;
  double underuse_after_s = 0;
  std::string on_hang;
  CLI::Option* rules = nullptr;  // --rules, to tell it given from not
};

// The flags in the order --help lists them: what the run is and how often it samples.
void add_run_flags(CLI::App& cmd, RecordFlags& flags) {
  RecordOptions& o = flags.options;
  cmd.add_option("--name", o.name, "Name of the run (default: the command's name)");
  cmd.add_option("--job", flags.job,
                 "The distributed job this run belongs to, the same id on every node (default: Slurm's\n"
                 "SLURM_JOB_ID or torchelastic's TORCHELASTIC_RUN_ID from the environment; torchrun sets\n"
                 "the latter only for its workers, so `record -- torchrun ...` needs --job). `report --job ID`\n"
                 "reports the job across nodes")
      ->check(CLI::Validator(
          [](std::string& id) -> std::string { return job_id_problem(id).value_or(""); }, "ID"));
  cmd.add_option("--host", o.host,
                 "The host name the run records (default: this machine's); where a container's hostname\n"
                 "is not the node's name, e.g. --host \"$NODE_NAME\"");
  cmd.add_option("--interval", o.interval_s, "Seconds between samples, 0.01 to 86400")
      ->check(seconds_check(0.01, 86400, "0.5"))
      ->capture_default_str();
  add_gpus_option(cmd, flags.gpus,
                  "GPU indices to record, e.g. 0,2 or 0-3 (default: those CUDA_VISIBLE_DEVICES, HIP_ or\n"
                  "ROCR_VISIBLE_DEVICES or ZE_AFFINITY_MASK show the command, else all)");
  cmd.add_flag("--status-line", o.status_line, "Print a live GPU/VRAM/CPU/RAM line on stderr");
  cmd.add_option("--status-interval", o.status_interval_s,
                 "Seconds between status lines when stderr is not a terminal")
      ->check(seconds_check(0.01, 86400, "10"))
      ->capture_default_str();
  add_former_flag_name(cmd, "--status-every", o.status_interval_s, seconds_check(0.01, 86400, "10"));
}

// Then the files beside the store, the process to attach to, and what is
// taken from the command's output.
void add_output_flags(CLI::App& cmd, RecordFlags& flags) {
  RecordOptions& o = flags.options;
  cmd.add_option("--output-dir", flags.output_dir,
                 "Also write the seed files gpu_stats_<name>_<time>.json, _multi_gpu.json, _summary.txt here");
  cmd.add_flag("--generate-graphs", flags.generate_graphs,
               "With --output-dir: also write a timeline picture, gpu_stats_<name>_<time>_plot.png");
  cmd.add_option("--compare-with", flags.compare_with,
                 "At the end, compare this run with RUN (a stored run or a file), RUN as the baseline");
  cmd.add_option("--pid", flags.pid, "Attach to a running process instead of starting one");
  cmd.add_option("--annotate-regex", o.annotate_regex,
                 "Take annotations from the command's output lines (PCRE2: Python re syntax): named groups step,\n"
                 "epoch, phase, mark, or any other name for a scalar, e.g.\n"
                 "'(?i)Epoch (?P<epoch>\\d+).*loss (?P<loss>[0-9.]+)'. Repeatable.")
      ->allow_extra_args(false);  // one pattern per flag: the command after -- is not a pattern
}

// Then the advisor and what it may do to the command.
void add_advisor_action_flags(CLI::App& cmd, RecordFlags& flags) {
  RecordOptions& o = flags.options;
  cmd.add_flag("--advise", o.advise,
               "Print the advisor's advisories on stderr as they change (rules over a sliding window,\n"
               "docs/advisor.md)");
  cmd.add_option("--check-interval", o.check_interval_s, "Seconds between the advisor's checks")
      ->check(seconds_check(0.1, 3600, "5"))
      ->capture_default_str();
  add_former_flag_name(cmd, "--check-every", o.check_interval_s, seconds_check(0.1, 3600, "5"));
  cmd.add_option("--on-underuse", flags.on_underuse,
                 "kill: stop the command when a low-utilization advisory (util.low, util.input_bound,\n"
                 "util.host_bound, util.launch_bound when as low) on one of the job's GPUs has held for\n"
                 "--after seconds; gpuwatch then exits 75. Memory alone (memory.batch_too_small) acts only\n"
                 "when --rules names it. While the command's processes are seen on no GPU (containers,\n"
                 "`docker run`, launchers whose workers are not its children), it acts only when every\n"
                 "recorded GPU is low: another tenant's GPU never stops the job")
      ->check(CLI::IsMember({"kill"}));
  flags.rules = cmd.add_option("--rules", flags.underuse_rules,
                  "With --on-underuse: the advisories that act, ids or prefixes, e.g.\n"
                  "memory.batch_too_small,util.* (default: util.*)");
  cmd.add_option("--on-hang", flags.on_hang,
                 "What to do when the advisor says job.hung (the job's GPUs in a collective with no progress\n"
                 "for longer than hang_after_s, docs/advisor.md); never done by default.\n"
                 "kill: stop the command (SIGTERM to its group, SIGKILL 15 s later) once job.hung has held\n"
                 "--after seconds; gpuwatch then exits 76.\n"
                 "signal=NAME: send signal NAME (USR1, SIGUSR1, ...) to the command's group once each time\n"
                 "job.hung appears, for a job that dumps its stacks on it; the command goes on")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            try {
              parse_hang_action(value);
              return "";
            } catch (const HangActionError& e) {
              return e.what();
            }
          },
          "kill|signal=NAME"));
  cmd.add_option("--after", flags.underuse_after_s,
                 "With --on-underuse kill or --on-hang kill: seconds the underuse or the hang must last")
      ->check(seconds_check(1, 1e7, "300"));
}

void apply_pid_flag(const RecordFlags& flags, RecordOptions& options) {
  if (flags.pid.empty()) return;
  const auto pid = parse_pid(flags.pid);
  if (!pid) {
    // Shown as typed but cut short: the message stays one line whatever was passed.
    const std::string shown = flags.pid.size() > 24 ? flags.pid.substr(0, 24) + "..." : flags.pid;
    throw CLI::ValidationError("--pid", fmt::format("'{}' is not a process id (a positive whole number)", shown));
  }
  if (!options.command.empty()) throw CLI::ValidationError("--pid", "give either --pid or a command, not both");
  options.attach_pid = static_cast<pid_t>(*pid);
}

void check_annotate_regex(const RecordOptions& options) {
  if (!options.annotate_regex.empty() && options.command.empty()) {
    throw CLI::ValidationError("--annotate-regex", "needs a command to read the output of");
  }
  for (const std::string& re : options.annotate_regex) {
    try {
      OutputPattern{re};
    } catch (const PatternError& e) {
      throw CLI::ValidationError("--annotate-regex", fmt::format("'{}': {}", re, e.what()));
    }
  }
}

// --on-underuse, --rules, --on-hang and the --after they share.
void apply_action_flags(const RecordFlags& flags, RecordOptions& options) {
  const bool rules_given = flags.rules->count() > 0;
  if (!flags.on_underuse.empty()) {
    if (flags.underuse_after_s <= 0) throw CLI::ValidationError("--on-underuse", "needs --after S");
    if (options.command.empty()) throw CLI::ValidationError("--on-underuse", "needs a command to stop");
    options.kill_on_underuse_after_s = flags.underuse_after_s;
    if (rules_given) {
      try {
        options.underuse_rules = UnderuseRules::parse(flags.underuse_rules);
      } catch (const UnderuseRulesError& e) {
        throw CLI::ValidationError("--rules", e.what());
      }
    }
  } else if (rules_given) {
    throw CLI::ValidationError("--rules", "goes with --on-underuse kill");
  }
  if (!flags.on_hang.empty()) {
    options.on_hang = parse_hang_action(flags.on_hang);  // checked by its validator
    if (options.command.empty()) throw CLI::ValidationError("--on-hang", "needs a command to stop or signal");
    if (options.on_hang->kind == HangAction::Kind::Kill) {
      if (flags.underuse_after_s <= 0) throw CLI::ValidationError("--on-hang", "kill needs --after S");
      options.hang_kill_after_s = flags.underuse_after_s;
    }
  }
  if (flags.underuse_after_s > 0 && flags.on_underuse.empty() &&
      !(options.on_hang && options.on_hang->kind == HangAction::Kind::Kill)) {
    throw CLI::ValidationError("--after", "goes with --on-underuse kill or --on-hang kill");
  }
}

// --output-dir, --generate-graphs, --compare-with, the store and the summary.
void apply_output_flags(const RecordFlags& flags, RecordOptions& options) {
  if (!flags.output_dir.empty()) {
    prepare_output_dir(flags.output_dir);
    options.output_dir = flags.output_dir;
  }
  if (flags.generate_graphs && !options.output_dir) {
    throw CLI::ValidationError("--generate-graphs", "needs --output-dir: the picture goes beside the seed files");
  }
  options.generate_graphs = flags.generate_graphs;
  if (!flags.compare_with.empty()) {
    try {
      options.compare_with = load_run(flags.compare_with, flags.store);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("--compare-with {}: {}", flags.compare_with, e.what()));
    }
  }
  options.store_path = store_path(flags.store);
  options.summary = !flags.no_summary;
  options.full_report = flags.full;
}

// The flags checked together, and what the library is not to read itself:
// the environment (only the command line reads it).
RecordOptions record_options(const RecordFlags& flags) {
  RecordOptions options = flags.options;
  if (!flags.gpus.empty()) options.gpus = parse_gpu_list(flags.gpus);
  options.paths = SystemPaths::from_environment();
  options.visibility = GpuVisibilityVariables::from_lookup(environment_value);
  options.job = job_from_environment(environment_value);
  options.environment = environment_entries();
  options.socket_place.runtime_dir = environment_value("XDG_RUNTIME_DIR").value_or("");
  options.socket_place.temp_dir = environment_value("TMPDIR").value_or("");
  options.socket_place.procfs_root = options.paths.procfs_root;
  if (!flags.job.empty()) {
    options.job.id = flags.job;
    options.job.source = "flag";
  }
  apply_pid_flag(flags, options);
  check_annotate_regex(options);
  apply_action_flags(flags, options);
  options.advisor = advisor_config(flags.advisor);
  apply_output_flags(flags, options);
  return options;
}

}  // namespace

void add_record(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "record",
      "Run a command and record GPUs and host while it runs (record [options] -- CMD [ARGS...]).\n"
      "Without a command, records until Ctrl-C; with --pid, until that process exits.\n"
      "Exits with the command's status (128+N if signal N killed it).");
  auto flags = std::make_shared<RecordFlags>();
  add_run_flags(*cmd, *flags);
  add_output_flags(*cmd, *flags);
  add_advisor_action_flags(*cmd, *flags);
  add_advisor_options(*cmd, flags->advisor);
  cmd->add_flag("--no-summary", flags->no_summary, "Do not print the report at the end");
  cmd->add_flag("--full", flags->full,
                "Print the full report at the end (as `gpuwatch report RUN` does), not the short summary");
  add_store_option(*cmd, flags->store);
  cmd->add_option("command", flags->options.command, "The command to run, after --");
  cmd->callback([flags, &exit_code] {
    const RecordOptions options = record_options(*flags);
    try {
      exit_code = run_record(options);
    } catch (const SpawnError& e) {
      // As shells do: 127 when the command cannot be run.
      fmt::print(stderr, "gpuwatch: {}\n", e.what());
      exit_code = 127;
    }
  });
}

}  // namespace gpuwatch::cli
