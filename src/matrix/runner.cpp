#include "matrix/runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "backends/backend.h"
#include "matrix/cell_processes.h"
#include "matrix/files.h"
#include "matrix/gpu_processes.h"
#include "matrix/graphs.h"
#include "matrix/progress.h"
#include "matrix/schedule.h"
#include "matrix/summary.h"
#include "process/child_process.h"
#include "process/visible_devices.h"
#include "store/store.h"

namespace gpuwatch::matrix {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The cells are the matrix's own descendants, so they are looked for in its
// own /proc (GPUWATCH_PROCFS_ROOT reads another root's metrics; it names no
// process the matrix could signal).
const fs::path kOwnProcfs = "/proc";

std::atomic<int> g_stop_signal{0};
std::atomic<int> g_stop_count{0};  // a second Ctrl-C is forwarded too: for a command that ignored the first

extern "C" void on_stop_signal(int sig) {
  g_stop_signal.store(sig);
  g_stop_count.fetch_add(1);
}

// The GPUs cells may get: every GPU, less those the matrix's own
// CUDA_VISIBLE_DEVICES (HIP_, ROCR_, ZE_AFFINITY_MASK) hide, so that a
// matrix inside a Slurm allocation stays on its GPUs.
std::vector<int> gpu_pool(const std::vector<DeviceInfo>& devices, const GpuVisibilityVariables& variables) {
  const GpuVisibility vis = resolve_gpu_visibility(variables, devices);
  std::vector<int> pool;
  for (const DeviceInfo& d : devices) {
    const bool hidden = vis.constrains_any() && vis.resolved && vis.constrains(d.backend) &&
                        std::find(vis.gpus.begin(), vis.gpus.end(), d.index) == vis.gpus.end();
    if (!hidden) pool.push_back(d.index);
  }
  return pool;
}

// The recorder's run: record stores its own pid with the run, which tells
// this cell's run from any other of the same name.
std::string find_run_id(const fs::path& store_path, const std::string& name, pid_t recorder) {
  try {
    auto store = Store::open(store_path, true);
    const auto runs = store->list_runs();
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
      if (it->name == name && it->recorder_pid == recorder) return it->id;
    }
  } catch (const std::exception&) {  // no store yet: the recorder never began a run
  }
  return {};
}

std::string seconds_text(double s) { return fmt::format("{:g}s", s); }

struct Finished {
  std::size_t cell;
  ChildOutcome outcome;
  std::vector<LeftoverProcess> leftovers;
};

// Children's exits, reported by one waiting thread per running cell.
class ExitQueue {
 public:
  void push(Finished f) {
    {
      std::lock_guard lock(mutex_);
      items_.push_back(std::move(f));
    }
    cv_.notify_one();
  }
  // Waits at most `timeout` for an exit; whatever has arrived.
  std::deque<Finished> wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return !items_.empty(); });
    return std::exchange(items_, {});
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Finished> items_;
};

// A cell while it runs: its recorder, what proves its processes, and how far
// a stop has gone (SIGTERM to the recorder, then SIGKILL to the cell's
// processes, then to the recorder).
struct Running {
  pid_t pid = 0;
  std::thread waiter;
  Clock::time_point started;
  CellTag tag;
  GpuPids gpus_before;
  std::optional<Clock::time_point> stop_sent;
  bool timed_out = false;
  int kill_stage = 0;  // 1: the cell's processes SIGKILLed, 2: the recorder too
};

class Runner {
 public:
  Runner(const RunnerOptions& o, const GridPlan& plan, std::vector<CellResult> results, BackendSet backends,
         std::size_t per_cell)
      : o_(o), plan_(plan), results_(std::move(results)), view_(std::move(backends)),
        pool_(gpu_pool(view_.devices(), o.visibility)), per_cell_(per_cell), tty_(isatty(STDERR_FILENO) != 0), exe_(self_exe()),
        grace_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.def.stop_grace_s))) {}

  // Only on an error that ends the matrix early: the cells are stopped
  // (SIGTERM, SIGKILL after the grace) and waited for, as the waiting
  // threads must end before they are destroyed.
  ~Runner() {
    for (auto& [i, r] : running_) kill(r.pid, SIGTERM);
    const auto deadline = Clock::now() + grace_;
    while (!running_.empty() && Clock::now() < deadline) {
      for (const Finished& f : exits_.wait(std::chrono::milliseconds(100))) forget(f.cell);
    }
    for (auto& [i, r] : running_) {
      kill_cell_processes(kOwnProcfs, r.tag, static_cast<std::uint32_t>(r.pid));
      kill(r.pid, SIGKILL);
    }
    for (auto& [i, r] : running_) r.waiter.join();
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  int run() {
    // cairo now: its warning, if any, before the first progress line.
    pictures_available();
    std::size_t next = 0;
    int forwarded = 0;
    auto last_line = Clock::now();
    while (true) {
      const int sig = g_stop_signal.load();
      if (sig != 0 && g_stop_count.load() > forwarded) {
        forwarded = g_stop_count.load();
        forward_stop(sig);
      }
      while (sig == 0 && running_.size() < static_cast<std::size_t>(o_.def.parallel) && next < plan_.size()) {
        if (results_[next].state == CellState::Done || (o_.only_cell && *o_.only_cell != next)) {
          ++next;
          continue;
        }
        auto gpus = pool_.take(per_cell_);
        if (!gpus) break;  // wait for a cell to give its GPUs back
        start(next, std::move(*gpus));
        ++next;
        show_progress();
      }
      if (running_.empty() && (sig != 0 || next >= plan_.size())) break;
      for (Finished& f : exits_.wait(std::chrono::milliseconds(200))) {
        finish(f, sig != 0 || g_stop_signal.load() != 0);
        show_progress();
      }
      enforce_deadlines();
      if (tty_ && Clock::now() - last_line > std::chrono::milliseconds(500)) {
        show_progress();
        last_line = Clock::now();
      }
    }
    if (tty_) fmt::print(stderr, "\n");
    const int sig = g_stop_signal.load();
    if (o_.only_cell) return one_cell_exit(sig);
    write_summary(o_.dir, results_, {o_.store_path});
    progress_line(fmt::format("{}: summary in {}", render_progress_line(progress()), (o_.dir / "summary.txt").string()));
    if (sig != 0) return 128 + sig;
    for (const CellResult& r : results_) {
      if (r.state != CellState::Done) return 1;
    }
    return 0;
  }

 private:
  // A Slurm task's exit status is what sacct and `scontrol show job` show
  // as its ExitCode: the cell's own, as `record`'s is its command's, so that
  // a task whose command exited 3 reads 3 there, not 1.
  int one_cell_exit(int sig) const {
    const CellResult& r = results_[*o_.only_cell];
    progress_line(fmt::format("matrix: cell {} {}", r.name, to_string(r.state)));
    if (sig != 0) return 128 + sig;
    if (r.state == CellState::Done) return 0;
    return r.exit_status && *r.exit_status > 0 && *r.exit_status < 256 ? *r.exit_status : 1;
  }

  // record forwards the signal to its command's group and saves the run;
  // enforce_deadlines() escalates when that does not end the cell.
  void forward_stop(int sig) {
    for (auto& [i, r] : running_) {
      kill(r.pid, sig);
      if (!r.stop_sent) {
        r.stop_sent = Clock::now();
        write_stopping(i, r, sig);
      }
    }
    progress_line(fmt::format("stopping: signal {} sent to {} running cell{}", sig, running_.size(),
                              running_.size() == 1 ? "" : "s"));
  }

  // The cell's files say `interrupted` as soon as it is told to stop, so that
  // a process killed outright meanwhile does not leave it `running` for good:
  // a Slurm task gets SIGKILL KillWait (30 s by default) after scancel's or
  // the time limit's SIGTERM, its run-cell too. finish() then writes how the
  // cell really ended.
  void write_stopping(std::size_t i, const Running& r, int sig) const {
    CellResult shown = results_[i];
    shown.state = CellState::Interrupted;
    shown.failure = fmt::format("stopped by signal {} (SIG{}), and killed before its end was written (e.g. by "
                                "Slurm's SIGKILL, KillWait after scancel or the time limit)",
                                sig, sigabbrev_np(sig));
    shown.end_unix_s = unix_now();
    shown.duration_s = std::chrono::duration<double>(Clock::now() - r.started).count();
    write_cell(o_.dir, plan_.cell(i), shown);
  }

  // --cell-timeout, and a stop the cell ignores: SIGTERM to the recorder at
  // the timeout; after the grace SIGKILL to every other process of the cell
  // (the recorder then stores the run and exits); after a second grace
  // SIGKILL to the recorder too.
  void enforce_deadlines() {
    const auto now = Clock::now();
    for (auto& [i, r] : running_) {
      const std::string& name = results_[i].name;
      if (o_.def.cell_timeout_s && !r.stop_sent &&
          now - r.started >= std::chrono::duration<double>(*o_.def.cell_timeout_s)) {
        r.timed_out = true;
        r.stop_sent = now;
        kill(r.pid, SIGTERM);
        progress_line(fmt::format("matrix: cell {} timed out after {} (--cell-timeout): SIGTERM", name,
                                  seconds_text(*o_.def.cell_timeout_s)));
      }
      if (!r.stop_sent) continue;
      if (r.kill_stage == 0 && now - *r.stop_sent >= grace_) {
        r.kill_stage = 1;
        const std::size_t n = kill_cell_processes(kOwnProcfs, r.tag, static_cast<std::uint32_t>(r.pid));
        progress_line(fmt::format("matrix: cell {} still runs {} after it was stopped: SIGKILL to its {} process{}",
                                  name, seconds_text(o_.def.stop_grace_s), n, n == 1 ? "" : "es"));
      } else if (r.kill_stage == 1 && now - *r.stop_sent >= 2 * grace_) {
        r.kill_stage = 2;
        kill(r.pid, SIGKILL);
        progress_line(fmt::format("matrix: cell {}: its recorder still runs: SIGKILL", name));
      }
    }
  }

  // Starts cell i; on failure to start, the cell is failed and its GPUs given back.
  void start(std::size_t i, std::vector<int> gpus) {
    const Cell cell = plan_.cell(i);
    CellResult& r = results_[i];
    // What an earlier run of the cell left in its result (resumed) goes.
    CellResult fresh;
    fresh.name = std::move(r.name);
    fresh.config = std::move(r.config);
    fresh.rep = r.rep;
    fresh.values = std::move(r.values);
    r = std::move(fresh);
    r.state = CellState::Running;
    r.gpus = gpus;
    r.start_unix_s = unix_now();
    fs::create_directories(o_.dir / cell.dir);
    const std::string log = (o_.dir / cell.dir / "output.log").string();
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(fmt::format("{}: {}", log, std::strerror(errno)));
    // --output-dir: the seeds' files of the cell beside its output.log
    // (gpu_stats_<cell>_<time>.json, _multi_gpu.json, _summary.txt).
    std::vector<std::string> argv = {exe_, "record", "--name", cell.name, "--interval", fmt::format("{}", o_.def.interval_s),
                                     "--store", o_.store_path.string(), "--output-dir", (o_.dir / cell.dir).string(),
                                     "--"};
    argv.insert(argv.end(), cell.command.begin(), cell.command.end());
    Running& run = running_[i];
    run.started = Clock::now();
    run.tag.marker = fmt::format("{}.{}.{}", getpid(), i, std::chrono::system_clock::now().time_since_epoch().count());
    run.gpus_before = view_.pids_on(gpus);
    auto env = visible_devices_env(gpus, view_.devices());
    env.emplace_back("GPUWATCH_MATRIX_CELL", cell.name);
    env.emplace_back(kCellIdVariable, run.tag.marker);
    try {
      const ChildProcess child = ChildProcess::spawn(argv, o_.environment, env, {fd, fd, false, /*new_session=*/true});
      ::close(fd);
      write_cell(o_.dir, cell, r);
      run.pid = child.pid();
      run.tag.session = static_cast<std::uint32_t>(child.pid());
      const CellTag tag = run.tag;
      const auto grace = std::chrono::duration_cast<std::chrono::milliseconds>(grace_);
      run.waiter = std::thread([this, i, child, tag, grace] {
        std::vector<LeftoverProcess> leftovers;
        // While the recorder is a zombie its pid, the session's id, is
        // still taken: nothing else can be in that session.
        const ChildOutcome outcome = child.wait([&] {
          leftovers = end_cell_processes(kOwnProcfs, tag, tag.session, grace);
        });
        exits_.push({i, outcome, std::move(leftovers)});
      });
    } catch (const std::exception& e) {
      ::close(fd);
      running_.erase(i);
      pool_.give_back(gpus);
      r.state = CellState::Failed;
      r.failure = fmt::format("could not start: {}", e.what());
      r.end_unix_s = unix_now();
      r.duration_s = 0.0;
      write_cell(o_.dir, cell, r);
    }
  }

  // The waiting thread has ended: joined and forgotten.
  void forget(std::size_t cell) {
    auto it = running_.find(cell);
    it->second.waiter.join();
    running_.erase(it);
  }

  void finish(Finished& f, bool stopping) {
    const Cell cell = plan_.cell(f.cell);
    CellResult& r = results_[f.cell];
    Running& run = running_.at(f.cell);
    const pid_t pid = run.pid;
    const bool timed_out = run.timed_out;
    const bool killed = run.kill_stage > 0;
    r.duration_s = std::chrono::duration<double>(Clock::now() - run.started).count();
    // Before the GPUs go to the next cell: what appeared on them and stayed.
    std::map<std::uint32_t, std::string> names;
    r.gpu_processes_after = new_gpu_processes(run.gpus_before, view_.pids_on(r.gpus, &names), names);
    forget(f.cell);
    pool_.give_back(r.gpus);
    r.leftovers = std::move(f.leftovers);
    r.end_unix_s = unix_now();
    const int status = f.outcome.status_code();
    r.exit_status = status;
    r.run_id = find_run_id(o_.store_path, cell.name, pid);
    if (timed_out) {
      r.state = CellState::TimedOut;
      r.failure = fmt::format("timed out after {} (--cell-timeout): stopped with SIGTERM{}, exit status {}",
                              seconds_text(*o_.def.cell_timeout_s),
                              killed ? fmt::format(", SIGKILL {} later", seconds_text(o_.def.stop_grace_s)) : "",
                              status);
    } else if (status == 0) {
      r.state = CellState::Done;  // finished, even if a stop came meanwhile
    } else if (stopping) {
      r.state = CellState::Interrupted;
      r.failure = fmt::format("interrupted (exit status {}{})", status, killed ? ", SIGKILL after the grace" : "");
    } else {
      r.state = CellState::Failed;
      r.failure = f.outcome.signal ? fmt::format("killed by signal {}", *f.outcome.signal)
                                   : fmt::format("exit status {}", status);
      if (status == 127) r.failure += " (the command could not be run)";
    }
    write_cell(o_.dir, cell, r);
    report_left_behind(cell, r);
    // The cell's timeline beside its seed files; a picture that cannot be
    // drawn is a warning, the cell stays as it ended.
    if (!r.run_id.empty() && pictures_available()) write_cell_plot(o_.dir / cell.dir, o_.store_path, r.run_id);
  }

  // What the cell left behind, on stderr and at the end of its output.log.
  void report_left_behind(const Cell& cell, const CellResult& r) const {
    std::string text;
    if (!r.leftovers.empty()) {
      text += fmt::format("gpuwatch matrix: cell {} left {} process{} running, ended: {}\n", cell.name,
                          r.leftovers.size(), r.leftovers.size() == 1 ? "" : "es", describe_leftovers(r));
    }
    if (!r.gpu_processes_after.empty()) {
      text += fmt::format("gpuwatch matrix: cell {}: new on its GPUs after it ended, not provably its own, left "
                          "running: {}\n", cell.name, describe_gpu_processes_after(r));
    }
    if (text.empty()) return;
    progress_line(text.substr(0, text.size() - 1));
    const std::string log = (o_.dir / cell.dir / "output.log").string();
    const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return;
    const ssize_t ignored = ::write(fd, text.data(), text.size());
    (void)ignored;
    ::close(fd);
  }

  Progress progress() const { return compute_progress(results_, unix_now(), o_.def.parallel); }

  // On a terminal one line redrawn in place; elsewhere a line per change.
  void show_progress() {
    const std::string line = render_progress_line(progress());
    if (tty_) {
      fmt::print(stderr, "\r\033[K{}", line);
    } else if (line != last_plain_) {
      fmt::print(stderr, "{}\n", line);
      last_plain_ = line;
    }
    std::fflush(stderr);
  }

  void progress_line(const std::string& text) const {
    fmt::print(stderr, "{}{}\n", tty_ ? "\r\033[K" : "", text);
    std::fflush(stderr);
  }

  const RunnerOptions& o_;
  const GridPlan& plan_;
  std::vector<CellResult> results_;
  GpuProcessView view_;
  GpuPool pool_;
  std::size_t per_cell_;
  bool tty_;
  std::string exe_;
  Clock::duration grace_;
  ExitQueue exits_;
  std::map<std::size_t, Running> running_;
  std::string last_plain_;
};

// Cells run in sessions of their own, in the background: one that read the
// terminal would wait for good. They read nothing instead, as the matrix
// itself needs no input.
void stdin_from_dev_null() {
  if (isatty(STDIN_FILENO) == 0) return;
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) return;
  dup2(null_fd, STDIN_FILENO);
  ::close(null_fd);
}

}  // namespace

int run_matrix(const RunnerOptions& o) {
  const GridPlan plan(o.def.grid);
  if (o.only_cell && *o.only_cell >= plan.size()) {
    throw GridError(fmt::format("the matrix has cells 0 to {}, not {}", plan.size() - 1, *o.only_cell));
  }
  BackendSet backends = open_backends(o.paths);
  const std::size_t per_cell =
      gpus_per_cell(o.def.parallel, o.def.gpus_per_cell, gpu_pool(backends.devices, o.visibility).size());
  prepare_matrix_dir(o.dir, o.def, o.resume);
  std::vector<CellResult> results = read_cells(o.dir, plan);
  // Resumed: done cells stay; the others (missing, failed, interrupted,
  // timed out, or left running by a matrix that was killed outright) run
  // again. A new matrix starts every cell afresh.
  for (CellResult& r : results) {
    if (!o.resume || r.state != CellState::Done) r.state = CellState::Pending;
  }
  g_stop_signal.store(0);
  g_stop_count.store(0);
  stdin_from_dev_null();
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {}, old_hup {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  Runner runner(o, plan, std::move(results), std::move(backends), per_cell);
  const int code = runner.run();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  return code;
}

int run_cell(RunnerOptions o, const fs::path& dir, std::size_t index) {
  o.dir = dir;
  o.def = read_matrix_def(dir);
  o.def.parallel = 1;  // one cell: it gets --gpus-per-cell GPUs, or every GPU the task has
  o.resume = true;
  o.only_cell = index;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::strcpy(host, "localhost");
  fs::create_directories(dir / "stores");
  o.store_path = fs::absolute(dir / "stores" / (safe_dir_name(host) + ".db"));
  return run_matrix(o);
}

}  // namespace gpuwatch::matrix
