#include "record/recorder.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <stop_token>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <csignal>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/compare.h"
#include "analysis/run_report.h"
#include "analysis/run_verdict.h"
#include "base/atomic_file.h"
#include "core/device_event_kinds.h"
#include "base/host_name.h"
#include "live/queued_sink.h"
#include "live/watcher.h"
#include "record/annotation_sources.h"
#include "process/child_process.h"
#include "record/end_summary.h"
#include "record/live_advisor.h"
#include "live/live_metrics.h"
#include "record/recording_sink.h"
#include "process/visible_devices.h"
#include "render/compare.h"
#include "render/plot/plot.h"
#include "render/report.h"
#include "render/seed_files.h"
#include "render/terminal_text.h"
#include "record/run_name.h"
#include "store/stored_columns.h"

namespace gpuwatch {

namespace {

std::string default_name(const RecordOptions& o) {
  if (!o.name.empty()) return o.name;
  if (!o.command.empty()) return default_run_name(o.command);
  if (o.attach_pid) return fmt::format("pid-{}", *o.attach_pid);
  return "record";
}

struct GpuChoice {
  std::vector<int> recorded;  // gpuwatch indices, ascending
  JobGpus job;                // the first decision; the process tree may refine it
};

// --gpus, else the GPUs the visible-devices variables show the command,
// else all; the job's GPUs are those the variables name (among the recorded
// ones), else those the command's processes will be seen on.
GpuChoice choose_gpus(const RecordOptions& o, const BackendSet& set, const SystemPaths& paths) {
  GpuChoice c;
  for (const DeviceInfo& d : set.devices) {
    if (o.gpus.empty() || std::find(o.gpus.begin(), o.gpus.end(), d.index) != o.gpus.end()) c.recorded.push_back(d.index);
  }
  c.job = {JobGpuSource::CommandNotSeen, c.recorded, {}};
  GpuVisibilityVariables variables = o.visibility;
  if (o.attach_pid) {
    // The attached process's own environment decides what its runtimes show
    // it (unreadable for another user's process: then gpuwatch's).
    std::ifstream in(paths.procfs_root / std::to_string(*o.attach_pid) / "environ", std::ios::binary);
    std::ostringstream read;
    if (in) read << in.rdbuf();
    const std::string text = read.str();
    if (!text.empty()) variables = GpuVisibilityVariables::from_environ(text);
  }
  const GpuVisibility shown = resolve_gpu_visibility(variables, set.devices);
  for (const std::string& note : shown.notes) fmt::print(stderr, "gpuwatch: {}\n", note);
  if (!shown.resolved || !shown.constrains_any()) return c;
  std::vector<int> job;
  for (int g : shown.gpus) {
    if (std::find(c.recorded.begin(), c.recorded.end(), g) != c.recorded.end()) job.push_back(g);
  }
  if (o.gpus.empty()) {
    // Each variable hides its own vendor's GPUs only.
    std::erase_if(c.recorded, [&](int g) {
      const auto d = std::find_if(set.devices.begin(), set.devices.end(), [&](const DeviceInfo& x) { return x.index == g; });
      return shown.constrains(d->backend) && std::find(job.begin(), job.end(), g) == job.end();
    });
    if (c.recorded.empty() && !set.devices.empty()) {
      fmt::print(stderr, "gpuwatch: {} shows the command no GPU; recording host metrics only (--gpus records GPUs "
                         "anyway)\n",
                 fmt::join(shown.variables, " and "));
    }
    c.job = {JobGpuSource::VisibleDevices, job, shown.variables};
  } else if (!job.empty()) {
    c.job = {JobGpuSource::VisibleDevices, job, shown.variables};
  }
  return c;
}

void write_output_dir(const std::filesystem::path& dir, const RunData& data, const std::string& summary_text,
                      bool graphs) {
  std::filesystem::create_directories(dir);
  const std::string stem = seed_file_stem(data.run.name, data.run.start_wall_ns);
  std::optional<int> first_gpu;
  if (!data.devices.empty()) first_gpu = data.devices.front().info.index;
  write_file_atomically(dir / (stem + ".json"),
                        [&](const WriteChunk& w) { write_seed_single_json(data, first_gpu, w); });
  if (data.devices.size() > 1) {
    write_file_atomically(dir / (stem + "_multi_gpu.json"),
                          [&](const WriteChunk& w) { write_seed_multi_json(data, w); });
  }
  write_file_atomically(dir / (stem + "_summary.txt"), [&](const WriteChunk& w) { w(summary_text); });
  if (graphs) {
    plot::PlotOptions timeline;
    timeline.kind = plot::PlotKind::Timeline;
    plot::write_plot(std::span<const RunData>(&data, 1), timeline, dir / (stem + "_plot.png"));
  }
  std::fputs(fmt::format("gpuwatch: wrote {}/{}{{.json{},_summary.txt{}}}\n", dir.string(), stem,
                         data.devices.size() > 1 ? ",_multi_gpu.json" : "", graphs ? ",_plot.png" : "")
                 .c_str(),
             stderr);
}

// Signals arrive on one thread (sigwait), never in a handler, so forwarding
// them and stopping the sampler are ordinary code.
class SignalThread {
 public:
  template <typename F>
  explicit SignalThread(F on_signal) {
    sigemptyset(&set_);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR2}) sigaddset(&set_, s);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this, on_signal] {
      pthread_setname_np(pthread_self(), "gw-signals");
      for (;;) {
        int sig = 0;
        if (sigwait(&set_, &sig) != 0) continue;
        if (sig == SIGUSR2 && quitting_.load()) return;
        if (sig != SIGUSR2) on_signal(sig);
      }
    });
  }
  ~SignalThread() {
    quitting_ = true;
    pthread_kill(thread_.native_handle(), SIGUSR2);
    thread_.join();
  }
  SignalThread(const SignalThread&) = delete;
  SignalThread& operator=(const SignalThread&) = delete;

 private:
  sigset_t set_{};
  std::atomic<bool> quitting_{false};
  std::thread thread_;
};

// Ends the process by the default action of `sig`, which is blocked in every
// thread while gpuwatch handles signals itself.
[[noreturn]] void die_of_signal(int sig) {
  std::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(sig);
  std::_Exit(128 + sig);
}

std::string end_reason(bool wrapped_command, const ChildOutcome& outcome, bool attached, ForeignWait target) {
  if (wrapped_command) return outcome.signal ? "signal" : "exited";
  // Ctrl-C on record --pid stops the recording; the target runs on.
  if (attached && target != ForeignWait::Stopped) return "target exited";
  return "stopped";
}

// The stored row with the end this process knows but could not store.
RunInfo with_outcome(RunInfo stored, const RunInfo& ended) {
  stored.status = ended.status;
  stored.end_wall_ns = ended.end_wall_ns;
  stored.exit_code = ended.exit_code;
  stored.exit_signal = ended.exit_signal;
  stored.end_reason = ended.end_reason;
  stored.jitter = ended.jitter;
  return stored;
}

WatchOptions watch_options(const RecordOptions& o, const GpuChoice& gpus) {
  WatchOptions watch;
  watch.interval_s = o.interval_s;
  watch.gpus = gpus.recorded;
  watch.no_gpus = gpus.recorded.empty();
  watch.closing_sample = true;
  watch.prime_slow_metrics = false;  // sample the command's start at once
  return watch;
}

void warn_no_gpu(const BackendSet& backends) {
  std::string why;
  for (const auto& n : backends.notes) why += (why.empty() ? "" : "; ") + n;
  fmt::print(stderr, "gpuwatch: no GPU found ({}); recording host metrics only\n", why.empty() ? "no backend" : why);
}

// The run's row as far as it is known before the command starts.
RunInfo new_run(const RecordOptions& o, const Watcher& watcher) {
  RunInfo run;
  run.name = default_name(o);
  run.command = o.command;
  run.cwd = std::filesystem::current_path().string();
  run.host = o.host.empty() ? host_name() : o.host;
  run.job = o.job;
  run.interval_s = o.interval_s;
  run.slow_interval_s = std::chrono::duration<double>(watcher.slow_interval()).count();
  run.version = GPUWATCH_VERSION;
  // The recorder's pid, start time and boot id are the store's to fill in,
  // read under GPUWATCH_PROCFS_ROOT like every other procfs read.
  run.attached_pid = o.attach_pid ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(*o.attach_pid))
                                  : std::nullopt;
  return run;
}

StatusLineOptions status_line_options(const RecordOptions& o) {
  StatusLineOptions status;
  status.enabled = o.status_line;
  status.tty = isatty(STDERR_FILENO) != 0;
  status.period = std::chrono::nanoseconds(static_cast<std::int64_t>(o.status_interval_s * 1e9));
  return status;
}

// The command's group, shared by the signal thread, the waiter (the thread
// that waits for the command) and the advisor. It is cleared before the
// command is reaped, so a signal never reaches a pid the system may have
// reused; a signal that comes before the command started waits for it.
class CommandControl {
 public:
  CommandControl(RecordingSink& sink, bool has_command) : sink_(sink), forwards_signals_(has_command) {}
  CommandControl(const CommandControl&) = delete;
  CommandControl& operator=(const CommandControl&) = delete;

  // Forwards `sig` to the command, or keeps it until the command starts.
  // Without a command, returns true: the recording is to stop.
  bool on_signal(int sig) {
    std::lock_guard lock(mutex_);
    sink_.post_event({now(), std::nullopt, "signal",
                      fmt::format("received SIG{}; {}", sigabbrev_np(sig),
                                  forwards_signals_ ? "forwarded to the command" : "stopping")});
    if (!forwards_signals_) {
      if (++stop_requests_ > 1) die_of_signal(sig);  // a second Ctrl-C while stopping: at once
      return true;
    }
    if (group_ > 0) {
      signal_process_group(group_, sig);
    } else {
      pending_signal_ = sig;
    }
    return false;
  }

  void started(pid_t group) {
    std::lock_guard lock(mutex_);
    group_ = group;
    if (pending_signal_ != 0) signal_process_group(group_, pending_signal_);
  }

  // Called while the exited command is still a zombie.
  void reaping() {
    std::lock_guard lock(mutex_);
    group_ = 0;
  }

  // --on-underuse kill and --on-hang kill: SIGTERM to the command's group,
  // SIGKILL if it is still there after a grace period (a DataLoader stuck in
  // a worker; a rank stuck in NCCL). `end` is the run's end reason.
  void stop(std::string_view end, const std::string& what, const std::string& reason) {
    std::lock_guard lock(mutex_);
    if (group_ <= 0 || !stopped_for_.empty()) return;
    stopped_for_ = end;
    std::fprintf(stderr, "gpuwatch: stopping the command: %s (%s)\n", what.c_str(), reason.c_str());
    sink_.post_event({now(), std::nullopt, std::string(end),
                      fmt::format("stopped by --on-{} kill: {}", end == "hung" ? "hang" : end, reason)});
    signal_process_group(group_, SIGTERM);
    killer_ = std::jthread([this](std::stop_token stop) {
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock wait_lock(m);
      cv.wait_for(wait_lock, stop, std::chrono::seconds(15), [] { return false; });
      if (stop.stop_requested()) return;
      std::lock_guard group_lock(mutex_);
      if (group_ > 0) signal_process_group(group_, SIGKILL);
    });
  }

  // --on-hang signal=NAME: the signal once per hang, for a job that dumps
  // its stacks on it; kill: as for underuse.
  void on_hang(const std::optional<HangAction>& action, const std::string& reason) {
    if (!action || action->kind == HangAction::Kind::Kill) {
      stop("hung", "the job is hung", reason);
      return;
    }
    std::lock_guard lock(mutex_);
    if (group_ <= 0) return;
    const std::string sig = signal_name(action->signal);
    std::fprintf(stderr, "gpuwatch: the job is hung: sending %s to the command (%s)\n", sig.c_str(), reason.c_str());
    sink_.post_event({now(), std::nullopt, "hung", fmt::format("{} sent by --on-hang: {}", sig, reason)});
    signal_process_group(group_, action->signal);
  }

  // "underuse", "hung", or empty: why gpuwatch stopped the command.
  std::string stopped_for() const {
    std::lock_guard lock(mutex_);
    return stopped_for_;
  }

 private:
  RecordingSink& sink_;
  const bool forwards_signals_;
  mutable std::mutex mutex_;
  pid_t group_ = 0;
  int pending_signal_ = 0;
  int stop_requests_ = 0;
  std::string stopped_for_;
  std::jthread killer_;  // last: joined before the members it reads go
};

// Starts the command, or checks the process to attach to, and makes it the
// root of the process tree the host reader follows.
std::optional<ChildProcess> start_command(const RecordOptions& o, AnnotationSources& annotations,
                                          CommandControl& command, Watcher& watcher) {
  std::optional<ChildProcess> child;
  if (!o.command.empty()) {
    child = ChildProcess::spawn(o.command, o.environment, annotations.child_environment(o.environment),
                                annotations.child_output());
    annotations.command_started();
    command.started(child->pid());
    watcher.host().set_tree_root(static_cast<std::uint32_t>(child->pid()));
  } else if (o.attach_pid) {
    if (kill(*o.attach_pid, 0) != 0 && errno == ESRCH) {
      throw std::runtime_error(fmt::format("--pid {}: no such process", *o.attach_pid));
    }
    watcher.host().set_tree_root(static_cast<std::uint32_t>(*o.attach_pid));
  }
  if (o.command.empty() && !annotations.socket_path().empty()) {
    std::fprintf(stderr, "gpuwatch: a process can send annotations with GPUWATCH_SOCKET=%s\n",
                 annotations.socket_path().c_str());
  }
  return child;
}

// --advise, --on-underuse kill and --on-hang: the advisor judges the live
// window and acts on the command through `command`.
void start_advisor(std::optional<LiveAdvisor>& advisor, const RecordOptions& o, const RunInfo& run,
                   const std::vector<DeviceInfo>& devices, CommandControl& command, RecordingSink& sink) {
  if (!o.advise && !o.kill_on_underuse_after_s && !o.on_hang) return;
  LiveAdvisorOptions a;
  a.config = o.advisor;
  a.check_interval_s = o.check_interval_s;
  a.print = o.advise;
  a.kill_after_s = o.kill_on_underuse_after_s;
  a.kill_rules = o.underuse_rules;
  a.on_hang = o.on_hang;
  a.hang_kill_after_s = o.hang_kill_after_s;
  advisor.emplace(
      a, run, devices,
      [&command](const std::string& reason) { command.stop("underuse", "it underuses its GPUs", reason); },
      [&command, &o](const std::string& reason) { command.on_hang(o.on_hang, reason); });
  sink.set_advisor(&*advisor);
}

// Stores the run's row (which gives `run` its id) and its first events.
void begin_stored_run(Store& store, RunInfo& run, const std::vector<DeviceInfo>& devices, RecordingSink& sink,
                      const GpuChoice& gpus, const AdvisorConfig& advisor, const std::optional<ChildProcess>& child) {
  const Timestamp start{run.start_mono_ns, run.start_wall_ns};
  try {
    store.begin_run(run, devices);
    sink.track_job_gpus(JobGpuTracker(gpus.job, gpus.recorded), start);
    // The thresholds the end summary judges with, kept with the run so that
    // `status`, `report`, `top`, `serve` and the exporter judge it alike.
    sink.post_event(Event{start, std::nullopt, std::string(kAdvisorConfigEventKind), format_advisor_config(advisor)});
  } catch (...) {
    // Nothing could be recorded: do not leave the command running unwatched.
    if (child) {
      signal_process_group(child->pid(), SIGTERM);
      child->wait();
    }
    throw;
  }
}

// How the command, or the process attached to, ended.
struct CommandEnd {
  ChildOutcome outcome;
  ForeignWait target = ForeignWait::Stopped;
};

// The waiter: waits for the command or the attached process to end, then
// stops the sampler. With neither, a signal stops the sampler.
std::thread start_waiter(const std::optional<ChildProcess>& child, std::optional<pid_t> attach_pid,
                         CommandControl& command, Watcher& watcher, const std::atomic<bool>& stop_watching,
                         CommandEnd& end) {
  return std::thread([&child, attach_pid, &command, &watcher, &stop_watching, &end] {
    pthread_setname_np(pthread_self(), "gw-wait");
    if (child) {
      end.outcome = child->wait([&command] { command.reaping(); });
    } else if (attach_pid) {
      end.target = wait_for_foreign_exit(*attach_pid, stop_watching);
    } else {
      return;  // until a signal stops the sampler
    }
    watcher.stop();
  });
}

// Samples until the watcher is stopped. The store's commits, the status line
// and the advisor run on a thread of their own (`store_writer`): a slow disk
// never delays a tick.
void sample_until_stopped(Watcher& watcher, LiveMetrics& live_metrics, QueuedSink& store_writer) {
  try {
    watcher.bus().subscribe(live_metrics);
    watcher.bus().subscribe(store_writer);
    watcher.run();
  } catch (const std::exception& e) {
    // The command keeps running: wait for it, save what was recorded.
    std::fprintf(stderr, "gpuwatch: sampling stopped: %s\n", e.what());
  }
}

void note_hidden_processes(const BackendSet& backends, RecordingSink& sink) {
  const std::size_t hidden = hidden_processes(backends);
  if (hidden == 0) return;
  sink.post_event({now(), std::nullopt, std::string(kProcessesHiddenEventKind),
                   fmt::format("{} {} of other users could not be looked into for GPU use (run as root to see "
                               "them)",
                               hidden, hidden == 1 ? "process" : "processes")});
}

void set_run_end(RunInfo& run, const RecordOptions& o, bool wrapped_command, const CommandEnd& end,
                 const std::string& stopped_for, const Watcher& watcher) {
  run.end_wall_ns = now().wall_ns;
  run.exit_code = end.outcome.exit_code;
  run.exit_signal = end.outcome.signal;
  run.end_reason = end_reason(wrapped_command, end.outcome, o.attach_pid.has_value(), end.target);
  if (!stopped_for.empty()) run.end_reason = stopped_for;
  run.jitter = watcher.jitter();
  run.status = RunStatus::Finished;
}

enum class RunStored { Whole, WithoutEnd, Nothing };

// Stores the last samples and the run's end; says what the store kept.
RunStored store_run_end(QueuedSink& store_writer, RecordingSink& sink, Store& store, const RunInfo& run) {
  try {
    store_writer.drain();
    sink.finish();
    store.finish_run(run);
    return RunStored::Whole;
  } catch (const RunNotStoredError& e) {
    std::fprintf(stderr, "gpuwatch: %s\n", e.what());
    return RunStored::Nothing;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuwatch: the end of the run could not be stored: %s\n", e.what());
    return RunStored::WithoutEnd;
  }
}

// What the sampler recorded but the store did not keep.
void warn_about_losses(const QueuedSink& store_writer, const Store& store) {
  if (const std::uint64_t late = store_writer.dropped_ticks(); late > 0) {
    std::fprintf(stderr, "gpuwatch: %llu ticks were dropped: the run store fell too far behind the sampler\n",
                 static_cast<unsigned long long>(late));
  }
  if (const StoreBacklog b = store.backlog(); b.dropped_samples + b.dropped_events > 0) {
    std::fprintf(stderr,
                 "gpuwatch: %llu samples and %llu events could not be saved (the run store could not be "
                 "written); the report covers what was\n",
                 static_cast<unsigned long long>(b.dropped_samples), static_cast<unsigned long long>(b.dropped_events));
  }
}

// The end summary, --output-dir's files and --compare-with's comparison,
// from what the store kept. The command has finished: a failure here is
// reported, and gpuwatch still exits with the command's status.
void report_finished_run(const RecordOptions& o, Store& store, const RunInfo& run, bool end_stored) {
  if (!o.summary && !o.output_dir && !o.compare_with) return;
  try {
    RunInfo stored = store.resolve(run.id);
    // What the store could not take, this process still knows.
    if (!end_stored) stored = with_outcome(std::move(stored), run);
    RunData base = load_run_base(store, stored);
    base.run = stored;  // the load reads the run's row again, without the outcome it could not take
    RunReport report = build_report(base, StoredColumns(o.store_path, stored));
    const std::string note = judge_finished_run(store, stored, report, o.advisor);
    const std::string text = render_report_text(report);
    if (o.summary) {
      const std::string shown = o.full_report ? text + note : end_summary(report, note, terminal_columns(stderr));
      write_terminal_text(stderr, "\n" + shown);
    }
    if (o.output_dir || o.compare_with) {
      const RunData data = store.load(stored);
      if (o.output_dir) write_output_dir(*o.output_dir, data, text, o.generate_graphs);
      if (o.compare_with) {
        const std::array<RunData, 2> pair{*o.compare_with, data};
        write_terminal_text(stderr, "\n" + render_compare_text(compare_runs(pair, CompareOptions{})));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuwatch: error after the command finished: %s\n", e.what());
  }
}

int exit_status(const std::string& stopped_for, bool wrapped_command, const ChildOutcome& outcome) {
  if (stopped_for == "underuse") return kUnderuseExitCode;
  if (stopped_for == "hung") return kHangExitCode;
  return wrapped_command ? outcome.status_code() : 0;
}

}  // namespace

int run_record(const RecordOptions& o) {
  Watcher watcher(o.paths);
  const BackendSet& backends = watcher.backends();
  check_gpu_indices(o.gpus, backends);
  const GpuChoice gpus = choose_gpus(o, backends, o.paths);
  watcher.prepare(watch_options(o, gpus));
  if (backends.devices.empty()) warn_no_gpu(backends);
  auto store = Store::open(o.store_path, false);
  RunInfo run = new_run(o, watcher);
  RecordingSink sink(*store, status_line_options(o));

  // Fail on an unusable --output-dir before the command starts, not after it ran.
  if (o.output_dir) std::filesystem::create_directories(*o.output_dir);

  CommandControl command(sink, !o.command.empty());
  SignalThread signals([&](int sig) {  // blocks the signals before any thread starts
    if (command.on_signal(sig)) watcher.stop();
  });

  // After the signal thread, which blocks the signals before any thread
  // starts; after the sink, which its threads deliver into until they stop.
  // gpuwatch.metrics() is answered from the latest values on the bus, on
  // the socket's thread: never from the sampling thread, never waiting.
  LiveMetrics live_metrics(JobGpuTracker(gpus.job, gpus.recorded), gpus.recorded);
  AnnotationSources annotations(sink, o.annotate_regex, o.socket_place,
                                [&live_metrics](const MetricsRequest& r) { return live_metrics.answer(r.id); });
  std::optional<LiveAdvisor> advisor;

  const Timestamp start = now();
  run.start_wall_ns = start.wall_ns;
  run.start_mono_ns = start.mono_ns;
  const std::optional<ChildProcess> child = start_command(o, annotations, command, watcher);
  start_advisor(advisor, o, run, watcher.devices(gpus.recorded), command, sink);
  begin_stored_run(*store, run, watcher.devices(gpus.recorded), sink, gpus, o.advisor, child);

  CommandEnd ended;
  std::atomic<bool> stop_watching{false};  // the waiter polls it for an attached process
  std::thread waiter = start_waiter(child, o.attach_pid, command, watcher, stop_watching, ended);
  QueuedSink store_writer(sink);
  sample_until_stopped(watcher, live_metrics, store_writer);
  stop_watching.store(true, std::memory_order_release);
  waiter.join();
  note_hidden_processes(backends, sink);

  // From here on the command has finished: whatever fails is reported, and
  // gpuwatch still exits with the command's status.
  annotations.command_finished();
  const std::string stopped_for = command.stopped_for();
  set_run_end(run, o, child.has_value(), ended, stopped_for, watcher);
  const RunStored stored = store_run_end(store_writer, sink, *store, run);
  warn_about_losses(store_writer, *store);
  // With nothing stored there is nothing to report on: the command's status stands.
  if (stored != RunStored::Nothing) report_finished_run(o, *store, run, stored == RunStored::Whole);
  return exit_status(stopped_for, child.has_value(), ended.outcome);
}

}  // namespace gpuwatch
