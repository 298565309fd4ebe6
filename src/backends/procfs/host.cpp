// HostReader: CPU and memory from /proc/stat and /proc/meminfo, and the process
// tree of one pid. The tree is walked through /proc/PID/task/TID/children,
// which touches only the tree's own processes; on kernels without those files
// it falls back to one scan of every /proc/[0-9]*/stat per read (monitors are
// known to burn whole cores on that). Either way files are read with raw
// openat/read into one reused buffer: no iostreams, no per-process strings.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <limits>
#include <memory>
#include <unordered_set>
#include <utility>

#include "backends/procfs/host.h"
#include "backends/procfs/process_owner.h"
#include "backends/procfs/read_at.h"
#include "base/unique_fd.h"

namespace gpuwatch {
namespace {

// Process directories are canonical decimal pids; "self", "sys", "0042" are not.
std::optional<std::uint32_t> pid_of_entry(std::string_view name) {
  if (name.empty() || name.size() > 10 || name.front() == '0') return std::nullopt;
  std::uint32_t pid = 0;
  const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc{} || ptr != name.data() + name.size()) return std::nullopt;
  return pid;
}

// Calls fn(pid) for every numeric entry of the directory at dir_fd/path.
// Returns false if the directory cannot be opened (errno tells why).
template <typename Fn>
bool for_each_pid_entry(int dir_fd, const char* path, Fn&& fn) {
  // A descriptor of its own: fdopendir takes ownership of it.
  const int fd = ::openat(dir_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  struct CloseDir {
    void operator()(DIR* d) const { ::closedir(d); }
  };
  const std::unique_ptr<DIR, CloseDir> dir(::fdopendir(fd));
  if (!dir) {
    ::close(fd);
    return false;
  }
  while (const dirent* entry = ::readdir(dir.get())) {
    if (const auto pid = pid_of_entry(entry->d_name)) fn(::dirfd(dir.get()), *pid);
  }
  return true;
}

}  // namespace

HostReader::HostReader(std::filesystem::path procfs_root, long ticks_per_second, long page_size)
    : root_(std::move(procfs_root)),
      ticks_per_second_(ticks_per_second > 0 ? ticks_per_second : sysconf_or(_SC_CLK_TCK, 100)),
      page_size_(page_size > 0 ? page_size : sysconf_or(_SC_PAGESIZE, 4096)) {}

void HostReader::set_tree_root(std::uint32_t pid) {
  tree_root_ = pid;
  tree_root_start_.reset();
  forget_tree();
}

void HostReader::forget_tree() {
  last_tree_time_.reset();
  tree_before_.clear();
  tree_pids_.clear();
}

HostSample HostReader::read(Timestamp time) {
  HostSample out;
  out.time = time;
  // One descriptor for the root; every file below is opened relative to it.
  const UniqueFd dir(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  read_cpu(dir.get(), out);
  read_memory(dir.get(), out);
  if (tree_root_ != 0) read_tree(dir.get(), out, time);
  return out;
}

void HostReader::read_cpu(int dir_fd, HostSample& out) {
  const auto text = read_at(dir_fd, "stat", buf_);
  auto stat = text ? parse_proc_stat(*text) : std::nullopt;
  // A failed read keeps the previous counters: the next good read then
  // reports the average over the longer span, which is still true.
  if (!stat) return;
  if (last_stat_) {
    if (const auto p = cpu_percent(last_stat_->all, stat->all)) {
      out.values.set(HostMetric::CpuPercent, *p);
    }
    out.core_percent.assign(stat->cores.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 0; i < stat->cores.size() && i < last_stat_->cores.size(); ++i) {
      if (const auto p = cpu_percent(last_stat_->cores[i], stat->cores[i])) {
        out.core_percent[i] = *p;
      }
    }
  }
  last_stat_ = std::move(stat);
}

void HostReader::read_memory(int dir_fd, HostSample& out) {
  const auto text = read_at(dir_fd, "meminfo", buf_);
  const auto mem = text ? parse_meminfo(*text) : std::nullopt;
  if (!mem) return;
  out.values.set(HostMetric::MemTotalBytes, static_cast<double>(mem->total_bytes));
  if (mem->available_bytes) {
    const auto avail = *mem->available_bytes;
    const auto used = mem->total_bytes > avail ? mem->total_bytes - avail : 0;
    out.values.set(HostMetric::MemUsedBytes, static_cast<double>(used));
  }
}

void HostReader::scan_processes(int dir_fd) {
  procs_.clear();
  if (dir_fd < 0) return;
  for_each_pid_entry(dir_fd, ".", [&](int, std::uint32_t pid) {
    // Either read can fail because the process exited after readdir: skip it.
    const auto text = read_at(dir_fd, PidPath(pid, "stat").c_str(), buf_);
    const auto st = text ? parse_pid_stat(*text) : std::nullopt;
    if (!st) return;
    procs_.push_back(Proc{st->pid, st->ppid, st->start_ticks,
                          saturating_add(st->utime_ticks, st->stime_ticks), st->rss_pages, false});
  });
}

// Reads the stat of the tree's processes only, following the children lists
// of every thread (a child forked by a worker thread is listed under that
// thread). Returns false when the kernel has no children files.
bool HostReader::walk_children(int dir_fd) {
  procs_.clear();
  if (dir_fd < 0) return true;
  // Far beyond any training job; bounds the walk on a corrupt tree.
  constexpr std::size_t kMaxTreeProcesses = 65536;
  std::vector<std::uint32_t> queue{tree_root_};
  std::unordered_set<std::uint32_t> queued{tree_root_};
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const std::uint32_t pid = queue[i];
    const auto text = read_at(dir_fd, PidPath(pid, "stat").c_str(), buf_);
    const auto st = text ? parse_pid_stat(*text) : std::nullopt;
    if (!st) continue;  // exited meanwhile
    procs_.push_back(Proc{st->pid, st->ppid, st->start_ticks, saturating_add(st->utime_ticks, st->stime_ticks),
                          st->rss_pages, false});
    bool unsupported = false;
    const bool listed = for_each_pid_entry(dir_fd, PidPath(pid, "task").c_str(), [&](int task_fd, std::uint32_t tid) {
      const auto children = read_at(task_fd, PidPath(tid, "children").c_str(), children_buf_);
      if (!children) {
        unsupported = unsupported || (tid == pid && errno == ENOENT);
        return;
      }
      std::string_view rest = *children;
      while (!rest.empty()) {
        const auto space = rest.find_first_of(" \n");
        if (const auto child = pid_of_entry(rest.substr(0, space))) {
          if (queue.size() < kMaxTreeProcesses && queued.insert(*child).second) queue.push_back(*child);
        }
        rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      }
    });
    if (!listed) unsupported = errno == ENOENT;
    // No task dirs or children files on the first walk: not a kernel we can
    // walk. Later, the root just exited; keep walking next time.
    if (i == 0 && unsupported && !children_files_) return false;
  }
  return true;
}

void HostReader::read_tree(int dir_fd, HostSample& out, Timestamp time) {
  tree_pids_.clear();
  tree_now_.clear();
  // An unreadable root leaves no processes: no tree.
  if (children_files_.value_or(true)) {
    children_files_ = walk_children(dir_fd);
  }
  if (!*children_files_) scan_processes(dir_fd);

  // Children by parent: sort once, then each lookup is a binary search.
  std::sort(procs_.begin(), procs_.end(),
            [](const Proc& a, const Proc& b) { return a.ppid < b.ppid; });
  const auto root = std::find_if(procs_.begin(), procs_.end(),
                                 [&](const Proc& p) { return p.pid == tree_root_; });
  if (root == procs_.end() || (tree_root_start_ && *tree_root_start_ != root->start_ticks)) {
    // The root exited, or its pid now names an unrelated process: no tree.
    forget_tree();
    return;
  }
  tree_root_start_ = root->start_ticks;

  const std::uint64_t rss_pages = gather_tree(*root);
  read_tree_io(dir_fd);
  set_tree_rates(out, time);
  out.values.set(HostMetric::TreeProcessCount, static_cast<double>(tree_now_.size()));
  out.values.set(HostMetric::TreeRssBytes,
                 static_cast<double>(rss_pages) * static_cast<double>(page_size_));
  std::swap(tree_before_, tree_now_);
  last_tree_time_ = time;
}

// The root and its descendants into tree_pids_ and tree_now_ (procs_ sorted
// by parent).
std::uint64_t HostReader::gather_tree(Proc& root) {
  std::uint64_t rss_pages = 0;
  auto add_to_tree = [&](Proc& p) {
    p.in_tree = true;
    tree_pids_.push_back(p.pid);
    tree_now_.push_back(PidCounters{p.pid, p.start_ticks, p.cpu_ticks, std::nullopt});
    rss_pages = saturating_add(rss_pages, p.rss_pages);
  };
  add_to_tree(root);
  // Breadth first; the in_tree mark ends cycles that a corrupt tree could hold.
  for (std::size_t i = 0; i < tree_now_.size(); ++i) {
    const auto parent = tree_now_[i].pid;
    auto [first, last] = std::equal_range(
        procs_.begin(), procs_.end(), Proc{0, parent, 0, 0, 0, false},
        [](const Proc& a, const Proc& b) { return a.ppid < b.ppid; });
    for (auto it = first; it != last; ++it) {
      if (!it->in_tree) add_to_tree(*it);
    }
  }
  return rss_pages;
}

// Each process's bytes read so far; then tree_now_ sorted by pid.
void HostReader::read_tree_io(int dir_fd) {
  for (auto& c : tree_now_) {
    const auto text = read_at(dir_fd, PidPath(c.pid, "io").c_str(), buf_);
    if (text) c.read_bytes = parse_io_read_bytes(*text);
  }
  std::sort(tree_now_.begin(), tree_now_.end(),
            [](const PidCounters& a, const PidCounters& b) { return a.pid < b.pid; });
}

// The tree's CPU and read rates since the last read, from tree_before_ to
// tree_now_.
void HostReader::set_tree_rates(HostSample& out, Timestamp time) const {
  // A pid not seen before, or seen with another start time (the pid was
  // reused), is a process that started since the last read: all of its
  // counters accrued in this interval, so its baseline is zero.
  std::uint64_t cpu_ticks = 0;
  std::uint64_t read_bytes = 0;
  bool reads_known = true;
  for (const auto& c : tree_now_) {
    const auto it = std::lower_bound(
        tree_before_.begin(), tree_before_.end(), c.pid,
        [](const PidCounters& a, std::uint32_t pid) { return a.pid < pid; });
    const PidCounters* before =
        it != tree_before_.end() && it->pid == c.pid && it->start_ticks == c.start_ticks ? &*it
                                                                                        : nullptr;
    const std::uint64_t cpu_base = before ? before->cpu_ticks : 0;
    cpu_ticks = saturating_add(cpu_ticks, c.cpu_ticks > cpu_base ? c.cpu_ticks - cpu_base : 0);
    // One unreadable io file makes the sum a guess; report none instead.
    if (!c.read_bytes || (before && !before->read_bytes)) {
      reads_known = false;
      continue;
    }
    const std::uint64_t read_base = before ? *before->read_bytes : 0;
    read_bytes = saturating_add(read_bytes, *c.read_bytes > read_base ? *c.read_bytes - read_base : 0);
  }
  if (!last_tree_time_ || time.mono_ns <= last_tree_time_->mono_ns) return;
  const double seconds = static_cast<double>(time.mono_ns - last_tree_time_->mono_ns) / 1e9;
  const double cpu_seconds =
      static_cast<double>(cpu_ticks) / static_cast<double>(ticks_per_second_);
  out.values.set(HostMetric::TreeCpuPercent, 100.0 * cpu_seconds / seconds);
  if (reads_known) {
    out.values.set(HostMetric::TreeReadBytesPerSec, static_cast<double>(read_bytes) / seconds);
  }
}

std::string HostReader::process_name(std::uint32_t pid) const { return read_process_name(root_, pid); }

void HostReader::describe(GpuProcess& process) {
  process.name = process_name(process.pid);
  const UniqueFd dir(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  process.attribution = read_process_attribution(dir.get(), process.pid, buf_);
  if (!process.name.empty()) return;
  if (!child_pid_namespace_) child_pid_namespace_ = procfs_is_child_pid_namespace(dir.get(), buf_);
  process.other_pid_namespace = *child_pid_namespace_;
}

std::string read_process_name(const std::filesystem::path& procfs_root, std::uint32_t pid) {
  std::string buf;
  const auto path = procfs_root / std::to_string(pid) / "stat";
  const auto text = read_at(AT_FDCWD, path.c_str(), buf);
  if (!text) return {};
  auto st = parse_pid_stat(*text);
  return st ? std::move(st->comm) : std::string{};
}

}  // namespace gpuwatch
