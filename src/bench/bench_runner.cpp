#include "bench/bench_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "base/host_name.h"
#include "live/watcher.h"
#include "process/child_process.h"

namespace gpuwatch {

namespace {

// Keeps every sample in memory: a bench lasts minutes, not hours.
class CollectingSink final : public SampleSink {
 public:
  explicit CollectingSink(RunData& data) : data_(data) {}
  void on_device_sample(const DeviceSample& s) override { append_sample(data_, s); }
  void on_host_sample(const HostSample& s) override { append_sample(data_, s); }
  void on_processes(const std::vector<GpuProcess>&, Timestamp) override {}
  void on_device_lost(int, Timestamp) override {}
  void on_tick(Timestamp) override {}

 private:
  RunData& data_;
};

struct WorkerLaunch {
  std::string worker;  // "cuda", "torch"
  std::vector<std::string> argv;
  std::vector<std::string> environment;  // inherited (BenchOptions::environment)
};

// Test windows and results as the workers report them, from several reader
// threads at once.
class Collector {
 public:
  Collector(std::size_t total_tests, bool progress, std::FILE* log) : total_(total_tests), progress_(progress), log_(log) {}

  void message(const std::string& worker, const WorkerMessage& m, Timestamp at) {
    std::lock_guard lock(mutex_);
    switch (m.kind) {
      case WorkerMessage::Kind::Info:
        infos_.push_back(m.info);
        break;
      case WorkerMessage::Kind::Start:
        starts_[{m.test_name, m.gpu}] = at.mono_ns;
        draw(fmt::format("{}{}", m.test_name, m.gpu ? fmt::format(" (GPU {})", *m.gpu) : ""));
        break;
      case WorkerMessage::Kind::Result: {
        const auto key = std::make_pair(m.result.test_name, m.result.gpu);
        const auto start = starts_.find(key);
        // A result without its start (a worker that does not say): the time
        // since the previous result of the same worker is the best guess.
        const std::int64_t from = start != starts_.end() ? start->second : last_end_[worker];
        windows_.push_back({from, at.mono_ns, m.result.gpu});
        tests_.push_back({worker, m.result, {}, std::nullopt, std::nullopt, false});
        last_end_[worker] = at.mono_ns;
        ++done_;
        if (log_) {
          std::fprintf(log_, "%s %s: %s\n", m.result.test_name.c_str(), m.result.success ? "ok" : "FAILED",
                       m.result.success ? "" : m.result.error_message.c_str());
        }
        draw(m.result.test_name);
        break;
      }
      case WorkerMessage::Kind::Error:
        errors_.push_back(fmt::format("{} worker: {}", worker, m.message));
        break;
    }
  }
  void error(std::string e) {
    std::lock_guard lock(mutex_);
    errors_.push_back(std::move(e));
  }
  void warning(std::string w) {
    std::lock_guard lock(mutex_);
    warnings_.push_back(std::move(w));
  }
  void start_worker(const std::string& worker, std::int64_t mono_ns) {
    std::lock_guard lock(mutex_);
    last_end_[worker] = mono_ns;
  }
  void finish_progress() {
    if (progress_) std::fputs("\r\x1b[K", stderr);
  }

  std::vector<WorkerInfo> infos_;
  std::vector<TestWindow> windows_;
  std::vector<BenchTest> tests_;
  std::vector<std::string> errors_;
  std::vector<std::string> warnings_;

 private:
  void draw(const std::string& what) {
    if (!progress_) return;
    const std::size_t width = 30;
    const std::size_t filled = total_ ? std::min(width, done_ * width / total_) : 0;
    std::fprintf(stderr, "\r\x1b[K[%s%s] %zu/%zu %s", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), done_, total_, what.substr(0, 40).c_str());
    std::fflush(stderr);
  }

  std::mutex mutex_;
  std::map<std::pair<std::string, std::optional<int>>, std::int64_t> starts_;
  std::map<std::string, std::int64_t> last_end_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool progress_;
  std::FILE* log_;
};

// The suite a worker runs, and how to get the worker when it is not there.
struct WorkerSpec {
  std::string suite;  // "micro", "models"
  std::string how_to_get;
};

WorkerSpec worker_spec(const std::string& worker) {
  if (worker == "cuda") {
    return {"micro",
            "it is built when CMake finds the CUDA toolkit (nvcc, cuBLASLt): install it, then build again "
            "(docs/bench-workers.md)"};
  }
  return {"models",
          "it is built when CMake finds libtorch: scripts/install-deps.sh --bench, then build again "
          "(docs/bench-workers.md)"};
}

std::filesystem::path worker_file(const BenchOptions& o, const std::string& worker) {
  return o.worker_dir / ("gpuwatch-bench-" + worker);
}

bool worker_there(const BenchOptions& o, const std::string& worker) {
  return access(worker_file(o, worker).c_str(), X_OK) == 0;
}

// "the torch worker is not there (PATH): it is built when ..."
std::string worker_missing(const BenchOptions& o, const std::string& worker) {
  return fmt::format("the {} worker is not there ({}): {}", worker, worker_file(o, worker).string(),
                     worker_spec(worker).how_to_get);
}

// A worker that --suite asks for by name must be there; --suite all runs
// those that are and says which suite it skipped (the README's set-up
// builds neither the CUDA nor the libtorch worker unless their toolkits are
// installed).
bool worker_wanted(const BenchOptions& o, const std::string& worker, std::vector<std::string>& skipped) {
  if (worker_there(o, worker)) return true;
  if (o.suite != "all") throw BenchError(worker_missing(o, worker));
  skipped.push_back(fmt::format("the {} suite: {}", worker_spec(worker).suite, worker_missing(o, worker)));
  return false;
}

std::vector<std::string> common_flags(const BenchOptions& o, const std::string& worker) {
  std::vector<std::string> flags;
  if (o.quick) flags.push_back("--quick");
  if (worker != "torch") return flags;
  auto number = [&](const char* name, std::optional<int> v) {
    if (v) flags.insert(flags.end(), {name, std::to_string(*v)});
  };
  number("--num-epochs", o.num_epochs);
  number("--num-batches", o.num_batches);
  number("--num-workers", o.num_workers);
  if (o.amp) flags.push_back("--amp");
  if (o.channels_last) flags.push_back("--channels-last");
  return flags;
}

// The workers to start; `skipped` gets a line for each suite of --suite all
// that cannot run here. Throws BenchError when nothing can.
std::vector<WorkerLaunch> plan(const BenchOptions& o, const std::vector<int>& gpus, std::vector<std::string>& skipped) {
  std::vector<WorkerLaunch> out;
  const bool micro = o.suite == "micro" || o.suite == "all";
  const bool models = o.suite == "models" || o.suite == "all";
  if (micro && o.device == "cpu") skipped.emplace_back("the micro suite: it measures GPUs (CUDA), not with --device cpu");
  if (micro && o.device == "cuda" && worker_wanted(o, "cuda", skipped)) {
    std::string list;
    for (int g : gpus) list += (list.empty() ? "" : ",") + std::to_string(g);
    std::vector<std::string> argv{worker_file(o, "cuda").string(), "--gpus", list};
    for (auto& f : common_flags(o, "cuda")) argv.push_back(f);
    out.push_back({"cuda", argv, o.environment});
  }
  if (models && worker_wanted(o, "torch", skipped)) {
    const std::string torch = worker_file(o, "torch").string();
    // Every GPU at once: the seed's suite looked at the first GPU only.
    const std::vector<int> targets = o.device == "cpu" ? std::vector<int>{-1} : gpus;
    for (int g : targets) {
      std::vector<std::string> argv{torch, "--device", o.device};
      if (g >= 0) argv.insert(argv.end(), {"--gpu", std::to_string(g)});
      for (auto& f : common_flags(o, "torch")) argv.push_back(f);
      out.push_back({"torch", argv, o.environment});
    }
  }
  if (out.empty()) {
    throw BenchError(fmt::format("no bench suite can run here: {}", fmt::join(skipped, "; ")));
  }
  return out;
}

// Counts a worker's tests with --list, for the progress bar.
std::size_t count_tests(const WorkerLaunch& w) {
  std::string command;
  for (const auto& a : w.argv) command += "'" + a + "' ";
  command += "--list 2>/dev/null";
  std::FILE* p = popen(command.c_str(), "r");
  if (!p) return 0;
  std::size_t lines = 0;
  for (int c; (c = std::fgetc(p)) != EOF;) lines += c == '\n';
  pclose(p);
  return lines;
}

// Runs one worker to its end, feeding every line of its stdout to `collector`.
void run_worker(const WorkerLaunch& w, Collector& collector, int stderr_fd) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    collector.error(fmt::format("{} worker: cannot create a pipe", w.worker));
    return;
  }
  std::optional<ChildProcess> child;
  try {
    child = ChildProcess::spawn(w.argv, w.environment, {}, ChildOutput{out[1], stderr_fd, false});
  } catch (const std::exception& e) {
    close(out[0]);
    close(out[1]);
    collector.error(fmt::format("{} worker: {}", w.worker, e.what()));
    return;
  }
  close(out[1]);
  collector.start_worker(w.worker, now().mono_ns);
  std::string pending;
  char buffer[8192];
  std::string why;
  std::size_t junk = 0;
  for (;;) {
    const ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    std::size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      if (line.empty()) continue;
      if (auto m = parse_worker_line(line, why)) {
        collector.message(w.worker, *m, now());
      } else {
        ++junk;
      }
    }
  }
  close(out[0]);
  const ChildOutcome outcome = child->wait();
  if (outcome.signal || outcome.exit_code.value_or(0) != 0) {
    collector.error(fmt::format("{} worker ({}) ended with {}", w.worker, w.argv.size() > 2 ? w.argv[2] : "",
                                outcome.signal ? fmt::format("signal {}", *outcome.signal)
                                               : fmt::format("exit status {}", *outcome.exit_code)));
  }
  if (junk > 0) {
    collector.warning(fmt::format("{} worker printed {} line(s) that are not messages (the first: {})", w.worker,
                                  junk, why));
  }
}

BenchSystemInfo system_info(const BackendSet& backends, const std::vector<WorkerInfo>& infos, const std::string& device) {
  BenchSystemInfo s;
  s.hostname = host_name();
  s.device = device;
  for (const DeviceInfo& d : backends.devices) {
    s.gpu_names.push_back(d.name);
    if (s.driver_version.empty()) s.driver_version = d.driver_version;
  }
  for (const WorkerInfo& i : infos) {
    if (i.cuda_version && !s.cuda_version) s.cuda_version = i.cuda_version;
    if (i.torch_version && !s.torch_version) s.torch_version = i.torch_version;
  }
  s.cpu_count = static_cast<int>(std::thread::hardware_concurrency());
  s.memory_total_bytes = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  s.gpuwatch_version = GPUWATCH_VERSION;
  return s;
}

// The GPUs to load: --gpus, else every one found.
std::vector<int> bench_gpus(const BenchOptions& o, const BackendSet& backends) {
  check_gpu_indices(o.gpus, backends);
  std::vector<int> gpus = o.gpus;
  if (gpus.empty()) {
    for (const DeviceInfo& d : backends.devices) gpus.push_back(d.index);
  }
  if (o.device == "cuda" && gpus.empty()) {
    throw BenchError("no GPU found; --device cpu runs the model suite on the CPU");
  }
  return gpus;
}

// --log-file, opened before any worker starts; null without one.
std::FILE* open_bench_log(const BenchOptions& o) {
  if (!o.log_file) return nullptr;
  std::FILE* log = std::fopen(o.log_file->c_str(), "w");
  if (!log) throw BenchError(fmt::format("cannot write the log file {}", o.log_file->string()));
  return log;
}

// An empty series per loaded GPU, for the sampler's samples.
RunData empty_series(const BackendSet& backends, const std::vector<int>& gpus) {
  RunData samples;
  for (const DeviceInfo& d : backends.devices) {
    if (std::find(gpus.begin(), gpus.end(), d.index) == gpus.end()) continue;
    DeviceSeries s;
    s.info = d;
    samples.devices.push_back(std::move(s));
  }
  return samples;
}

WatchOptions bench_watch_options(const BenchOptions& o, const std::vector<int>& gpus) {
  WatchOptions watch;
  watch.interval_s = o.sample_interval_s;
  // Throttle reasons and temperatures every 0.2 s at most: tests last seconds.
  watch.slow_interval_s = std::max(o.sample_interval_s, 0.2);
  watch.gpus = gpus;
  watch.processes = false;
  return watch;
}

// Runs the workers while the watcher samples, until the last one ends.
void run_workers(const std::vector<WorkerLaunch>& launches, Collector& collector, std::FILE* log, Watcher& watcher) {
  std::thread sampling([&] { watcher.run(); });
  // CUDA micro-benchmarks first, alone: they must have the GPUs to themselves.
  std::vector<std::thread> torch_workers;
  for (const WorkerLaunch& w : launches) {
    if (w.worker == "cuda") run_worker(w, collector, log ? fileno(log) : STDERR_FILENO);
  }
  for (const WorkerLaunch& w : launches) {
    if (w.worker == "torch") {
      torch_workers.emplace_back([&, w] { run_worker(w, collector, log ? fileno(log) : STDERR_FILENO); });
    }
  }
  for (std::thread& t : torch_workers) t.join();
  watcher.stop();
  sampling.join();
}

// What the workers reported, each test joined to what the sampler saw
// during it.
void add_results(BenchRun& run, Collector& collector, const RunData& samples) {
  run.tests = std::move(collector.tests_);
  for (std::size_t i = 0; i < run.tests.size(); ++i) {
    run.tests[i].resources = test_resources(samples, collector.windows_[i]);
  }
  run.errors = std::move(collector.errors_);
  run.warnings = std::move(collector.warnings_);
}

}  // namespace

std::filesystem::path default_worker_dir(const std::optional<std::string>& variable) {
  if (variable && !variable->empty()) return *variable;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(".") : self.parent_path();
}

BenchRun run_bench(const BenchOptions& o) {
  if (o.device != "cuda" && o.device != "cpu") throw BenchError("--device is cuda or cpu");
  if (o.device == "cpu" && o.suite == "micro") {
    throw BenchError("the micro suite measures GPUs (CUDA); with --device cpu run --suite models");
  }
  Watcher watcher(o.paths);
  const BackendSet& backends = watcher.backends();
  const std::vector<int> gpus = bench_gpus(o, backends);
  std::vector<std::string> skipped;
  const std::vector<WorkerLaunch> launches = plan(o, gpus, skipped);

  std::FILE* log = open_bench_log(o);
  std::size_t total = 0;
  if (o.progress) {
    for (const WorkerLaunch& w : launches) total += count_tests(w);
  }

  RunData samples = empty_series(backends, gpus);
  watcher.prepare(bench_watch_options(o, gpus));
  CollectingSink sink(samples);
  watcher.bus().subscribe(sink);

  BenchRun run;
  run.suite = o.suite;
  run.quick = o.quick;
  run.sample_interval_s = o.sample_interval_s;
  const Timestamp start = now();
  run.start_wall_ns = start.wall_ns;
  Collector collector(total, o.progress, log);
  run_workers(launches, collector, log, watcher);
  collector.finish_progress();
  if (log) std::fclose(log);
  run.duration_s = static_cast<double>(now().mono_ns - start.mono_ns) / 1e9;
  add_results(run, collector, samples);
  run.skipped = std::move(skipped);
  run.system = system_info(backends, collector.infos_, o.device);
  add_peaks_and_spreads(run, samples);
  return run;
}

}  // namespace gpuwatch
