#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/format_option.h"
#include "cli/gpu_required.h"
#include "cli/number_flags.h"
#include "cli/options.h"
#include "live/watcher.h"
#include "render/sample_format.h"
#include "sampler/sampler.h"

namespace gpuwatch::cli {

namespace {

// Prints each sample as it arrives; flushes per tick so pipes see it live.
// Every format repeats the last slow read (temperature, clocks) on the ticks
// between, as nvidia-smi dmon does; jsonl and csv mark such rows.
class PrintSink final : public SampleSink {
 public:
  PrintSink(SampleFormatter& format, const BackendSet& set, std::int64_t start)
      : format_(format), set_(set), start_(start) {
    format_.begin(buf_);
  }
  void on_device_sample(const DeviceSample& s) override {
    format_.device(buf_, s, set_.devices[static_cast<std::size_t>(s.device_index)], start_);
  }
  void on_host_sample(const HostSample& s) override { format_.host(buf_, s, start_); }
  void on_processes(const std::vector<GpuProcess>&, Timestamp) override {}
  void on_device_lost(int index, Timestamp) override { fmt::print(stderr, "gpuwatch: GPU {} was lost\n", index); }
  // On stderr, as the loss: stdout keeps its one format for the pipe.
  void on_device_event(const Event& e) override {
    fmt::print(stderr, "gpuwatch: GPU {}: {}\n", e.device_index.value_or(-1), e.message);
  }
  void on_tick(Timestamp) override {
    std::fwrite(buf_.data(), 1, buf_.size(), stdout);
    std::fflush(stdout);
    buf_.clear();
  }

 private:
  SampleFormatter& format_;
  const BackendSet& set_;
  std::int64_t start_;
  std::string buf_;
};

}  // namespace

void add_sample(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "sample", "Stream samples to stdout, like nvidia-smi dmon (exits 9 when there is no GPU)");
  struct Flags {
    double interval = 1.0;
    std::uint64_t count = 0;
    double duration = 0;
    OutputFormat format = OutputFormat::text;
    std::string gpus;
  };
  auto flags = std::make_shared<Flags>();
  cmd->add_option("--interval", flags->interval, "Seconds between samples (0.01 to 86400)")
      ->check(seconds_check(0.01, 86400, "0.5"))
      ->capture_default_str();
  cmd->add_option("--count", flags->count, "Stop after N samples per GPU")->check(whole_check("samples", 1, std::nullopt, "10"));
  cmd->add_option("--duration", flags->duration, "Stop after S seconds (at most a year)")
      ->check(seconds_check(0.001, 366.0 * 86400, "60"));
  // json is jsonl: one JSON object a line is the only JSON a stream can be.
  add_format_option(*cmd, flags->format,
                    {{"table", OutputFormat::text},
                     {"jsonl", OutputFormat::jsonl},
                     {"json", OutputFormat::jsonl},
                     {"csv", OutputFormat::csv}},
                    "table, jsonl (or json) or csv");
  add_gpus_option(*cmd, flags->gpus, "GPU indices to sample, e.g. 0,2 or 0-3 (default: all)");
  cmd->callback([flags, &exit_code] {
    Watcher watcher(SystemPaths::from_environment());
    require_gpus(watcher.backends());
    for (const auto& note : watcher.backends().notes) fmt::print(stderr, "gpuwatch: {}\n", note);
    WatchOptions options;
    options.interval_s = flags->interval;
    if (!flags->gpus.empty()) options.gpus = parse_gpu_list(flags->gpus);
    options.host = flags->format == OutputFormat::jsonl;
    watcher.prepare(options);
    std::uint64_t ticks = flags->count;
    if (flags->duration > 0) {
      const auto by_duration = static_cast<std::uint64_t>(std::max(1.0, std::round(flags->duration / flags->interval)));
      ticks = ticks == 0 ? by_duration : std::min(ticks, by_duration);
    }
    auto format = make_sample_formatter(flags->format);
    PrintSink sink(*format, watcher.backends(), now().mono_ns);
    watcher.bus().subscribe(sink);
    watcher.run(ticks);
    exit_code = 0;
  });
}

}  // namespace gpuwatch::cli
