#include "matrix/runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "backends/backend.h"
#include "matrix/files.h"
#include "matrix/graphs.h"
#include "matrix/progress.h"
#include "matrix/schedule.h"
#include "matrix/slurm.h"
#include "record/child_process.h"
#include "record/visible_devices.h"
#include "store/store.h"

namespace gpuwatch::matrix {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::atomic<int> g_stop_signal{0};
std::atomic<int> g_stop_count{0};  // a second Ctrl-C is forwarded too: for a command that ignored the first

extern "C" void on_stop_signal(int sig) {
  g_stop_signal.store(sig);
  g_stop_count.fetch_add(1);
}

// The GPUs cells may get: every GPU, less those the matrix's own
// CUDA_VISIBLE_DEVICES (HIP_, ROCR_, ZE_AFFINITY_MASK) hide, so that a
// matrix inside a Slurm allocation stays on its GPUs.
std::vector<int> gpu_pool(const std::vector<DeviceInfo>& devices) {
  const GpuVisibility vis = resolve_gpu_visibility(GpuVisibilityVariables::from_environment(), devices);
  std::vector<int> pool;
  for (const DeviceInfo& d : devices) {
    const bool hidden = vis.constrains_any() && vis.resolved && vis.constrains(d.backend) &&
                        std::find(vis.gpus.begin(), vis.gpus.end(), d.index) == vis.gpus.end();
    if (!hidden) pool.push_back(d.index);
  }
  return pool;
}

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("gpuwatch") : p.string();
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

struct Finished {
  std::size_t cell;
  ChildOutcome outcome;
};

// Children's exits, reported by one waiting thread per running cell.
class ExitQueue {
 public:
  void push(Finished f) {
    {
      std::lock_guard lock(mutex_);
      items_.push_back(f);
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

struct Running {
  pid_t pid = 0;
  std::thread waiter;
};

class Runner {
 public:
  Runner(const RunnerOptions& o, std::vector<Cell> cells, std::vector<CellResult> results,
         std::vector<DeviceInfo> devices, std::size_t per_cell)
      : o_(o), cells_(std::move(cells)), results_(std::move(results)), devices_(std::move(devices)),
        pool_(gpu_pool(devices_)), per_cell_(per_cell), tty_(isatty(STDERR_FILENO) != 0), exe_(self_exe()) {}

  // Only on an error that ends the matrix early: the cells are stopped and
  // waited for, as the waiting threads must end before they are destroyed.
  ~Runner() {
    for (auto& [i, r] : running_) {
      if (!r.waiter.joinable()) continue;
      kill(r.pid, SIGTERM);
      r.waiter.join();
    }
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  int run() {
    // cairo now: its warning, if any, before the first progress line.
    pictures_available();
    std::size_t next = 0;
    std::size_t running = 0;
    int forwarded = 0;
    auto last_line = Clock::now();
    while (true) {
      const int sig = g_stop_signal.load();
      if (sig != 0 && g_stop_count.load() > forwarded) {
        // record forwards it to its command's group and saves the run.
        for (const auto& [i, r] : running_) kill(r.pid, sig);
        forwarded = g_stop_count.load();
        progress_line(fmt::format("stopping: signal {} sent to {} running cell{}", sig, running,
                                  running == 1 ? "" : "s"));
      }
      while (sig == 0 && running < static_cast<std::size_t>(o_.def.parallel) && next < cells_.size()) {
        if (results_[next].state == CellState::Done || (o_.only_cell && *o_.only_cell != next)) {
          ++next;
          continue;
        }
        auto gpus = pool_.take(per_cell_);
        if (!gpus) break;  // wait for a cell to give its GPUs back
        if (start(next, std::move(*gpus))) ++running;
        ++next;
        show_progress();
      }
      if (running == 0 && (sig != 0 || next >= cells_.size())) break;
      for (const Finished& f : exits_.wait(std::chrono::milliseconds(200))) {
        finish(f, sig != 0 || g_stop_signal.load() != 0);
        --running;
        show_progress();
      }
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
  int one_cell_exit(int sig) const {
    const CellResult& r = results_[*o_.only_cell];
    progress_line(fmt::format("matrix: cell {} {}", r.name, to_string(r.state)));
    if (sig != 0) return 128 + sig;
    return r.state == CellState::Done ? 0 : 1;
  }

  // Starts cell i; false (the cell failed) when it cannot be started.
  bool start(std::size_t i, std::vector<int> gpus) {
    const Cell& cell = cells_[i];
    CellResult& r = results_[i];
    r.state = CellState::Running;
    r.gpus = gpus;
    r.start_unix_s = unix_now();
    r.end_unix_s.reset();
    r.duration_s.reset();
    r.exit_status.reset();
    r.failure.clear();
    r.run_id.clear();
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
    auto env = visible_devices_env(gpus, devices_);
    env.emplace_back("GPUWATCH_MATRIX_CELL", cell.name);
    starts_[i] = Clock::now();
    try {
      const ChildProcess child = ChildProcess::spawn(argv, env, {fd, fd, false});
      ::close(fd);
      write_cell(o_.dir, cell, r);
      running_[i].pid = child.pid();
      running_[i].waiter = std::thread([this, i, child] { exits_.push({i, child.wait()}); });
      return true;
    } catch (const std::exception& e) {
      ::close(fd);
      pool_.give_back(gpus);
      r.state = CellState::Failed;
      r.failure = fmt::format("could not start: {}", e.what());
      r.end_unix_s = unix_now();
      r.duration_s = 0.0;
      write_cell(o_.dir, cell, r);
      return false;
    }
  }

  void finish(const Finished& f, bool stopping) {
    const Cell& cell = cells_[f.cell];
    CellResult& r = results_[f.cell];
    auto it = running_.find(f.cell);
    const pid_t pid = it->second.pid;
    it->second.waiter.join();
    running_.erase(it);
    pool_.give_back(r.gpus);
    r.end_unix_s = unix_now();
    r.duration_s = std::chrono::duration<double>(Clock::now() - starts_[f.cell]).count();
    const int status = f.outcome.status_code();
    r.exit_status = status;
    r.run_id = find_run_id(o_.store_path, cell.name, pid);
    if (status == 0) {
      r.state = CellState::Done;  // finished, even if a stop came meanwhile
    } else if (stopping) {
      r.state = CellState::Interrupted;
      r.failure = fmt::format("interrupted (exit status {})", status);
    } else {
      r.state = CellState::Failed;
      r.failure = f.outcome.signal ? fmt::format("killed by signal {}", *f.outcome.signal)
                                   : fmt::format("exit status {}", status);
      if (status == 127) r.failure += " (the command could not be run)";
    }
    write_cell(o_.dir, cell, r);
    // The cell's timeline beside its seed files; a picture that cannot be
    // drawn is a warning, the cell stays as it ended.
    if (!r.run_id.empty() && pictures_available()) write_cell_plot(o_.dir / cell.dir, o_.store_path, r.run_id);
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
  std::vector<Cell> cells_;
  std::vector<CellResult> results_;
  std::vector<DeviceInfo> devices_;
  GpuPool pool_;
  std::size_t per_cell_;
  bool tty_;
  std::string exe_;
  ExitQueue exits_;
  std::map<std::size_t, Running> running_;
  std::map<std::size_t, Clock::time_point> starts_;
  std::string last_plain_;
};

void prepare_dir(const RunnerOptions& o) {
  if (o.resume) return;  // matrix.json is there: the caller read the grid from it
  if (fs::exists(o.dir / "matrix.json")) {
    throw std::runtime_error(fmt::format("{} already holds a matrix: use --resume {} to go on with it", o.dir.string(),
                                         o.dir.string()));
  }
  fs::create_directories(o.dir);
  write_matrix_def(o.dir, o.def);
}

}  // namespace

int run_matrix(const RunnerOptions& o) {
  std::vector<Cell> cells = expand_grid(o.def.grid);
  if (o.only_cell && *o.only_cell >= cells.size()) {
    throw GridError(fmt::format("the matrix has cells 0 to {}, not {}", cells.size() - 1, *o.only_cell));
  }
  std::vector<DeviceInfo> devices = open_backends(SystemPaths::from_environment()).devices;
  const std::size_t per_cell = gpus_per_cell(o.def.parallel, o.def.gpus_per_cell, gpu_pool(devices).size());
  prepare_dir(o);
  std::vector<CellResult> results = read_cells(o.dir, cells);
  // Resumed: done cells stay; the others (missing, failed, interrupted, or
  // left running by a matrix that was killed outright) run again.
  if (!o.resume) {
    for (CellResult& r : results) r.state = CellState::Pending;
  }
  for (CellResult& r : results) {
    if (r.state != CellState::Done) r.state = CellState::Pending;
  }
  g_stop_signal.store(0);
  g_stop_count.store(0);
  // Cells run in process groups of their own, in the background: one that
  // read the terminal would be stopped (SIGTTIN) for good. They read
  // nothing instead, as the matrix itself needs no input.
  if (isatty(STDIN_FILENO) != 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd >= 0) {
      dup2(null_fd, STDIN_FILENO);
      ::close(null_fd);
    }
  }
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {}, old_hup {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  Runner runner(o, std::move(cells), std::move(results), std::move(devices), per_cell);
  const int code = runner.run();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  return code;
}

fs::path write_slurm_matrix(const RunnerOptions& o) {
  SlurmJob job;
  job.cells = expand_grid(o.def.grid);
  job.dir = fs::absolute(o.dir).lexically_normal().string();
  job.exe = self_exe();
  job.job_name = "gpuwatch-matrix-" + safe_dir_name(fs::path(job.dir).filename().string());
  job.gpus_per_cell = o.def.gpus_per_cell;
  prepare_dir(o);
  const fs::path script = o.dir / "slurm.sbatch";
  write_text_file(script, render_slurm_script(job));
  fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
  return script;
}

int run_cell(const fs::path& dir, std::size_t index) {
  RunnerOptions o;
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

std::vector<fs::path> collect_stores(const fs::path& dir, const fs::path& store) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / "stores", ec)) {
    if (entry.path().extension() == ".db") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  if (fs::exists(store, ec)) out.push_back(store);
  return out;
}

int collect_matrix(const fs::path& dir, const std::vector<fs::path>& stores) {
  const MatrixDef def = read_matrix_def(dir);
  const std::vector<CellResult> cells = read_cells(dir, expand_grid(def.grid));
  write_summary(dir, cells, stores);
  fmt::print(stderr, "{}: summary in {}\n", render_progress_line(compute_progress(cells, unix_now(), def.parallel)),
             (dir / "summary.txt").string());
  return std::all_of(cells.begin(), cells.end(), [](const CellResult& c) { return c.state == CellState::Done; }) ? 0 : 1;
}

}  // namespace gpuwatch::matrix
