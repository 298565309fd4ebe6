#include "top/top_app.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "backends/procfs/process_details.h"
#include "base/process_identity.h"
#include "base/host_name.h"
#include "live/live_window.h"
#include "live/periodic_read.h"
#include "live/watcher.h"
#include "render/top/process_table.h"
#include "render/top/top_json.h"
#include "render/top/top_screen.h"
#include "top/terminal.h"
#include "top/process_details_cache.h"
#include "top/top_keys.h"
#include "top/wake_pipe.h"

namespace gpuwatch {

namespace {

// History kept per device: one sample per column of the widest graphs.
constexpr std::size_t kHistory = 512;

// Wakes the screen loop when a tick has been delivered.
class TickPipe final : public SampleSink {
 public:
  void on_device_sample(const DeviceSample&) override {}
  void on_host_sample(const HostSample&) override {}
  void on_processes(const std::vector<GpuProcess>&, Timestamp) override {}
  void on_device_lost(int, Timestamp) override {}
  void on_tick(Timestamp) override { pipe_.notify(); }
  [[nodiscard]] int fd() const { return pipe_.read_fd(); }
  void drain() const { pipe_.drain(); }

 private:
  WakePipe pipe_;
};

// Signals go to the screen loop, whose poll() they wake: Ctrl-C and a resize
// act at once even when the next tick is a minute away. Threads started
// after this call inherit the mask.
void leave_signals_to_the_screen() {
  sigset_t screen_signals;
  sigemptyset(&screen_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH}) sigaddset(&screen_signals, sig);
  pthread_sigmask(SIG_BLOCK, &screen_signals, nullptr);
}

// The recording run is read again this often.
constexpr std::chrono::seconds kRunPeriod{2};

// Sampling on its own thread into the window, restartable at a new interval.
class LiveSampling {
 public:
  LiveSampling(const SystemPaths& paths, const TopOptions& options, LiveWindow& window, SampleSink& ticks)
      : watcher_(paths), gpus_(options.gpus) {
    watcher_.bus().subscribe(window);
    watcher_.bus().subscribe(ticks);
    start(options.interval_s);
  }
  ~LiveSampling() { stop(); }
  LiveSampling(const LiveSampling&) = delete;
  LiveSampling& operator=(const LiveSampling&) = delete;

  // The backends stay open: a new interval only builds a new sampler.
  void start(double interval_s) {
    stop();
    {
      std::lock_guard lock(failure_mutex_);
      failure_.clear();
    }
    WatchOptions options;
    options.interval_s = interval_s;
    options.gpus = gpus_;
    options.prime_slow_metrics = false;  // the screen comes up at once; slow values follow within a second
    watcher_.prepare(options);
    thread_ = std::thread([this] {
      leave_signals_to_the_screen();  // the sampler's own threads inherit it
      try {
        watcher_.run();
      } catch (const std::exception& e) {
        std::lock_guard lock(failure_mutex_);
        failure_ = e.what();
      }
    });
  }
  void stop() {
    watcher_.stop();
    if (thread_.joinable()) thread_.join();
  }
  [[nodiscard]] Watcher& watcher() { return watcher_; }
  [[nodiscard]] std::string failure() const {
    std::lock_guard lock(failure_mutex_);
    return failure_;
  }

 private:
  Watcher watcher_;
  std::vector<int> gpus_;
  std::thread thread_;
  mutable std::mutex failure_mutex_;
  std::string failure_;
};

// The processes the driver lists, each with what procfs says of it.
std::vector<TopProcess> join_processes(const LiveSnapshot& live, ProcessDetailsCache& cache, Timestamp time) {
  const auto& details = cache.details(live.processes, live.processes_seen, time);
  std::vector<TopProcess> out;
  for (const GpuProcess& p : live.processes) {
    TopProcess row;
    row.pid = p.pid;
    row.gpu = p.device_index;
    row.gpu_memory_bytes = p.used_memory_bytes;
    row.gpu_percent = p.gpu_percent;
    row.kind = p.kind;
    row.attribution = p.attribution;
    row.other_pid_namespace = p.other_pid_namespace;
    const auto it = std::find_if(details.begin(), details.end(), [&](const ProcessDetails& d) { return d.pid == p.pid; });
    if (it != details.end() && !it->gone) {
      row.uid = it->uid;
      row.start_ticks = it->start_ticks;
      row.user = it->user;
      row.cpu_percent = it->cpu_percent;
      row.rss_bytes = it->rss_bytes;
      row.command = it->command;
    }
    out.push_back(std::move(row));
  }
  return out;
}

void fill_devices(TopView& view, Watcher& watcher) {
  view.devices = watcher.devices(watcher.watched_gpus());
  view.notes = watcher.backends().notes;
  if (view.devices.empty() && view.notes.empty()) view.notes.emplace_back("no GPU found");
}

// The owner row selected, by its owner: the row it is on moves as sums change.
std::optional<Owner> selected_owner_row(const TopView& view) {
  const auto groups = owner_groups(view.processes, view.sort);
  if (groups.empty()) return std::nullopt;
  return groups[std::min(view.selected, groups.size() - 1)].owner;
}

// Refreshes everything but the view's own state, keeping the selected pid
// selected after the re-sort. `history`: samples per device to copy, no more
// than the widest graph shows (a graph has at most one column per sample).
void refresh(TopView& view, const LiveWindow& window, const BackendSet& backends, ProcessDetailsCache& processes,
             std::size_t history) {
  const Timestamp t = now();
  // A pid may have a row per GPU: the row is the pid on its GPU.
  std::optional<std::pair<std::uint32_t, int>> selected_row;
  if (!view.processes.empty()) {
    const TopProcess& row = view.processes[std::min(view.selected, view.processes.size() - 1)];
    selected_row = {row.pid, row.gpu};
  }
  const std::optional<Owner> selected_owner = view.by_owner ? selected_owner_row(view) : std::nullopt;
  view.live = window.snapshot(std::min(history, window.capacity()));
  view.now_mono_ns = t.mono_ns;
  view.now_wall_ns = t.wall_ns;
  view.all_processes = join_processes(view.live, processes, t);
  view.hidden_processes = hidden_processes(backends);
  sort_processes(view.all_processes, view.sort);
  show_processes(view);
  if (selected_owner) {
    const auto groups = owner_groups(view.processes, view.sort);
    const auto it = std::find_if(groups.begin(), groups.end(), [&](const OwnerGroup& g) { return g.owner == *selected_owner; });
    if (it != groups.end()) view.selected = static_cast<std::size_t>(it - groups.begin());
  } else if (selected_row) {
    const auto it = std::find_if(view.processes.begin(), view.processes.end(), [&](const TopProcess& p) {
      return p.pid == selected_row->first && p.gpu == selected_row->second;
    });
    if (it != view.processes.end()) view.selected = static_cast<std::size_t>(it - view.processes.begin());
  }
  if (const std::size_t rows = table_rows(view); rows > 0) view.selected = std::min(view.selected, rows - 1);
}

// The terminal's width when stdout is one (bash does not export COLUMNS),
// else $COLUMNS, else 100.
std::size_t once_columns(const std::optional<std::string>& columns) {
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) return size.ws_col;
  if (columns) {
    const long n = std::strtol(columns->c_str(), nullptr, 10);
    if (n >= 40 && n <= 1000) return static_cast<std::size_t>(n);
  }
  return 100;
}

// Ticks of a snapshot at `interval_s`: it spans a second, or one interval
// when that is longer, and one interval more. The host's CPU share needs two
// readings, the processes' a second between their first and last; the
// driver's process list (and so the processes' procfs reads) comes from the
// slow thread on its own, and its second reading must have time to land on
// a busy machine before the snapshot is printed.
std::size_t once_ticks(double interval_s) {
  return 2 + static_cast<std::size_t>(std::ceil(std::max(1.0, interval_s) / interval_s - 1e-9));
}

// One snapshot, sampled for a second (or --interval) so that CPU shares are
// measured, as `top -b -n 1` does after its first refresh.
int run_once(const SystemPaths& paths, const TopOptions& options) {
  Watcher watcher(paths);
  // The interval asked for, the host read at each tick.
  WatchOptions watch;
  watch.interval_s = options.interval_s;
  watch.slow_interval_s = options.interval_s;
  watch.gpus = options.gpus;
  watcher.prepare(watch);
  LiveWindow window(kHistory);
  watcher.bus().subscribe(window);
  TickPipe ticks;
  watcher.bus().subscribe(ticks);
  ProcessDetailsCache processes(paths.procfs_root);
  std::exception_ptr failure;
  std::atomic<bool> done = false;
  std::thread sampling([&] {
    try {
      watcher.run(once_ticks(watch.interval_s));
    } catch (...) {
      failure = std::current_exception();
    }
    done = true;
  });
  // At the first tick each process's CPU counters get their starting point.
  pollfd first_tick{ticks.fd(), POLLIN, 0};
  while (!done && ::poll(&first_tick, 1, 100) <= 0) {
  }
  (void)join_processes(window.snapshot(0), processes, now());
  sampling.join();
  if (failure) std::rethrow_exception(failure);
  TopView view;
  view.hostname = host_name();
  view.interval_s = watch.interval_s;
  view.by_owner = options.by_owner;
  fill_devices(view, watcher);
  refresh(view, window, watcher.backends(), processes, kHistory);
  if (options.watched_run) {
    try {
      view.run = options.watched_run();
    } catch (const std::exception& e) {
      view.run_error = e.what();
    }
  }
  if (options.format == OutputFormat::json) {
    std::fputs(render_top_json(view).c_str(), stdout);
  } else {
    const std::size_t width = options.width != 0 ? options.width : once_columns(options.columns_variable);
    // Tall enough for every panel and every process: a snapshot for a bug
    // report leaves nothing out, and has no taller graphs than it needs (a
    // second or two of history).
    const std::size_t height = options.height != 0 ? options.height : snapshot_height(view);  // at most
    std::fputs(plain_text(compose_top_snapshot(view, width, height)).c_str(), stdout);
  }
  return 0;
}

int run_interactive(const SystemPaths& paths, const TopOptions& options) {
  Terminal::require_terminal();  // before any backend is opened (`gpuwatch top | less`)
  LiveWindow window(kHistory);
  TickPipe ticks;
  LiveSampling sampling(paths, options, window, ticks);
  ProcessDetailsCache processes(paths.procfs_root);
  const PeriodicRead<RunStatusReport> run_watch(options.watched_run, kRunPeriod, leave_signals_to_the_screen);
  TopView view;
  view.hostname = host_name();
  view.interval_s = options.interval_s;
  view.by_owner = options.by_owner;
  fill_devices(view, sampling.watcher());
  TopKeys keys(::getuid(), ::geteuid() == 0);
  Terminal terminal(options.term, options.no_colour);
  bool dirty = true;
  while (!Terminal::stop_requested()) {
    if (dirty) {
      if (const auto failure = sampling.failure(); !failure.empty() && view.message.empty()) {
        view.message = "sampling stopped: " + failure;
      }
      terminal.draw(compose_top_screen(view, terminal.width(), terminal.height()));
      dirty = false;
    }
    pollfd fds[3] = {{STDIN_FILENO, POLLIN, 0}, {ticks.fd(), POLLIN, 0}, {terminal.wake_fd(), POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0 && errno != EINTR) break;
    // The terminal went away without a SIGHUP reaching us: nothing to draw on.
    if ((fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) break;
    if ((fds[2].revents & POLLIN) != 0) terminal.drain_wake();
    if ((fds[1].revents & POLLIN) != 0) {
      ticks.drain();
      if (!view.paused) {
        refresh(view, window, sampling.watcher().backends(), processes, terminal.width());
        auto latest = run_watch.latest();
        view.run = std::move(latest.value);
        view.run_error = std::move(latest.error);
        dirty = true;
      }
    }
    for (int key = terminal.read_key(); key != -1; key = terminal.read_key()) {
      dirty = true;
      if (key == kKeyResize) continue;
      const KeyOutcome outcome = keys.handle(key, view);
      if (outcome.quit) return 0;
      if (outcome.interval_s) {
        view.interval_s = *outcome.interval_s;
        sampling.start(view.interval_s);
      }
      if (outcome.signal) {
        // The answer may come long after the question: the pid must still
        // name the process that was chosen.
        const auto started = process_start_ticks(paths.procfs_root, outcome.signal->pid);
        int error = ESRCH;
        if (started == outcome.signal->start_ticks) {
          error = ::kill(static_cast<pid_t>(outcome.signal->pid), outcome.signal->signal) == 0 ? 0 : errno;
        }
        keys.signal_sent(*outcome.signal, error, view);
      }
    }
  }
  return 0;
}

}  // namespace

int run_top(const SystemPaths& paths, const TopOptions& options) {
  return options.once ? run_once(paths, options) : run_interactive(paths, options);
}

}  // namespace gpuwatch
