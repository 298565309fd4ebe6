#include <unistd.h>

#include <ctime>

#include <fmt/format.h>

#include "base/environment.h"
#include "base/system_paths.h"
#include "bench/bench_file.h"
#include "bench/bench_render.h"
#include "bench/bench_runner.h"
#include "cli/commands.h"
#include "cli/former_flag_names.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "cli/output.h"
#include "base/atomic_file.h"

namespace gpuwatch::cli {

namespace {

// Seed 003's default: a timestamped file in the current directory.
std::string default_output() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  return fmt::format("gpuwatch_bench_{:04}{:02}{:02}_{:02}{:02}{:02}.json", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void add_bench_compare(CLI::App& bench, int& exit_code) {
  auto* cmd = bench.add_subcommand("compare", "Two bench result files side by side (two machines, two cards)");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("FILES", *files, "A.json B.json")->required()->expected(2);
  cmd->callback([files, &exit_code] {
    const BenchFile a = read_bench_file((*files)[0]);
    const BenchFile b = read_bench_file((*files)[1]);
    print_output(render_bench_comparison(a, b));
    exit_code = 0;
  });
}

}  // namespace

void add_bench(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "bench",
      "Load-test the GPUs (seed 003): CUDA micro-benchmarks and a model suite, each result with what the\n"
      "sampler saw during it and the % of the hardware's peak. Exits 1 when a test fails.");
  struct Flags {
    BenchOptions options;
    std::string gpus;
    std::string output;
    std::string log_file;
    int num_epochs = 0;
    int num_batches = 0;
    int num_workers = -1;
  };
  auto flags = std::make_shared<Flags>();
  BenchOptions& o = flags->options;
  cmd->add_option("--suite", o.suite, "micro (CUDA worker), models (libtorch worker) or all")
      ->check(CLI::IsMember({"micro", "models", "all"}))
      ->capture_default_str();
  cmd->add_flag("--quick", o.quick, "Smaller sizes and fewer iterations");
  cmd->add_option("--device", o.device, "cuda or cpu (cpu: the model suite on the CPU, no GPU needed)")
      ->check(CLI::IsMember({"cuda", "cpu"}))
      ->capture_default_str();
  add_gpus_option(*cmd, flags->gpus, "GPUs to test, e.g. 0,2 or 0-3 (default: all)");
  cmd->add_option("-o,--output", flags->output, "Results as JSON (default: gpuwatch_bench_<time>.json here)");
  cmd->add_option("--log-file", flags->log_file, "The workers' log and one line per test");
  cmd->add_option("--metrics-interval", o.sample_interval_s, "Seconds between samples while the tests run")
      ->check(seconds_check(0.01, 60, "0.1"))
      ->capture_default_str();
  add_former_flag_name(*cmd, "--metrics-sample-rate", o.sample_interval_s, seconds_check(0.01, 60, "0.1"));
  cmd->add_option("--num-epochs", flags->num_epochs, "Model suite: epochs per test")->check(whole_check("epochs", 1, 1e6, "3"));
  cmd->add_option("--num-batches", flags->num_batches, "Model suite: batches per epoch")->check(whole_check("batches", 1, 1e8, "100"));
  cmd->add_option("--num-workers", flags->num_workers, "Model suite: threads making the synthetic data")
      ->check(whole_check("threads", 0, 256, "4"));
  cmd->add_flag("--amp", o.amp, "Model suite: automatic mixed precision");
  cmd->add_flag("--channels-last", o.channels_last, "Model suite: channels-last memory format");
  add_bench_compare(*cmd, exit_code);
  cmd->callback([cmd, flags, &exit_code] {
    if (cmd->got_subcommand("compare")) return;
    BenchOptions options = flags->options;
    if (!flags->gpus.empty()) options.gpus = parse_gpu_list(flags->gpus);
    if (flags->num_epochs > 0) options.num_epochs = flags->num_epochs;
    if (flags->num_batches > 0) options.num_batches = flags->num_batches;
    if (flags->num_workers >= 0) options.num_workers = flags->num_workers;
    if (!flags->log_file.empty()) options.log_file = flags->log_file;
    options.progress = isatty(STDERR_FILENO) != 0;
    options.worker_dir = default_worker_dir(environment_value("GPUWATCH_BENCH_WORKER_DIR"));
    options.paths = SystemPaths::from_environment();
    options.environment = environment_entries();
    const std::string output = flags->output.empty() ? default_output() : flags->output;
    const BenchRun run = run_bench(options);
    const std::string json = render_bench_json(run);
    write_file_atomically(output, [&](const WriteChunk& w) { w(json); });
    print_output(render_bench_table(run));
    fmt::print(stderr, "gpuwatch: wrote {}\n", output);
    exit_code = run.failed() ? 1 : 0;
  });
}

}  // namespace gpuwatch::cli
