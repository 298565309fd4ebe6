// ProcessDetailsReader: stat, status and cmdline of a few given pids, read
// through one descriptor of each process's directory, so that a process
// that exits mid-read (its pid perhaps reused at once) makes the reads fail
// rather than mix two processes' files.
#include "backends/procfs/process_details.h"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <utility>

#include "backends/procfs/host.h"
#include "backends/procfs/read_at.h"
#include "base/unique_fd.h"

namespace gpuwatch {
namespace {

// ENOENT: no directory (any more). ESRCH: reaped while its directory was open.
bool vanished(int err) { return err == ENOENT || err == ESRCH; }

struct UserLookup {
  std::string name;
  bool settled = false;  // a transient failure (NSS server down) is retried next time
};

UserLookup look_up_user(std::uint32_t uid) {
  std::string buf(static_cast<std::size_t>(sysconf_or(_SC_GETPW_R_SIZE_MAX, 1024)), '\0');
  for (;;) {
    passwd entry{};
    passwd* found = nullptr;
    const int err = ::getpwuid_r(static_cast<uid_t>(uid), &entry, buf.data(), buf.size(), &found);
    if (err == ERANGE && buf.size() < (std::size_t{1} << 20)) {
      buf.resize(buf.size() * 2);
      continue;
    }
    // No entry is a definite answer: the uid of a container's user, say.
    if (err == 0 && found != nullptr && found->pw_name != nullptr && found->pw_name[0] != '\0') {
      return {found->pw_name, true};
    }
    return {std::to_string(uid), err == 0 || err == ENOENT || err == ESRCH};
  }
}

}  // namespace

ProcessDetailsReader::ProcessDetailsReader(std::filesystem::path procfs_root, long ticks_per_second,
                                           long page_size)
    : root_(std::move(procfs_root)),
      ticks_per_second_(ticks_per_second > 0 ? ticks_per_second : sysconf_or(_SC_CLK_TCK, 100)),
      page_size_(page_size > 0 ? page_size : sysconf_or(_SC_PAGESIZE, 4096)) {}

std::vector<ProcessDetails> ProcessDetailsReader::read(std::span<const std::uint32_t> pids,
                                                       Timestamp time) {
  // 0 = no interval to measure over: first read, or a clock that did not advance.
  double seconds = 0;
  if (last_time_ && time.mono_ns > last_time_->mono_ns) {
    seconds = static_cast<double>(time.mono_ns - last_time_->mono_ns) / 1e9;
  }
  const UniqueFd root(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  now_.clear();
  std::vector<ProcessDetails> out;
  out.reserve(pids.size());
  for (const auto pid : pids) out.push_back(read_one(root.get(), pid, seconds));
  std::sort(now_.begin(), now_.end(),
            [](const Counters& a, const Counters& b) { return a.pid < b.pid; });
  std::swap(before_, now_);
  last_time_ = time;
  return out;
}

ProcessDetails ProcessDetailsReader::read_one(int root_fd, std::uint32_t pid, double seconds) {
  ProcessDetails d;
  d.pid = pid;
  const auto gone = [&] {
    d = ProcessDetails{};
    d.pid = pid;
    d.gone = true;
    return d;
  };
  // An unopenable root (EBADF) says nothing about the process: not gone, just unknown.
  const UniqueFd dir(::openat(root_fd, PidPath(pid, "").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return vanished(errno) ? gone() : d;

  std::optional<PidStat> st;
  if (const auto text = read_at(dir.get(), "stat", buf_)) {
    st = parse_pid_stat(*text);
  } else if (vanished(errno)) {
    return gone();
  }
  if (const auto text = read_at(dir.get(), "status", buf_)) {
    d.uid = parse_status_uid(*text);
  } else if (vanished(errno)) {
    return gone();
  }
  if (const auto text = read_at(dir.get(), "cmdline", buf_)) {
    d.command = parse_cmdline(*text);
  } else if (vanished(errno)) {
    return gone();
  }

  if (d.uid) d.user = user_name(*d.uid);
  // Kernel threads and zombies have no arguments; ps shows them like this.
  if (d.command.empty() && st) d.command = "[" + parse_cmdline(st->comm, 64) + "]";
  if (!st || st->pid != pid) return d;

  d.start_ticks = st->start_ticks;
  std::uint64_t rss = 0;
  if (!__builtin_mul_overflow(st->rss_pages, static_cast<std::uint64_t>(page_size_), &rss)) {
    d.rss_bytes = rss;
  }
  const Counters c{pid, st->start_ticks, saturating_add(st->utime_ticks, st->stime_ticks)};
  const auto it = std::lower_bound(before_.begin(), before_.end(), pid,
                                   [](const Counters& a, std::uint32_t p) { return a.pid < p; });
  // Another start time: the pid now names another process, whose ticks all
  // accrued before we first saw it.
  if (seconds > 0 && it != before_.end() && it->pid == pid && it->start_ticks == c.start_ticks) {
    const std::uint64_t ticks = c.cpu_ticks > it->cpu_ticks ? c.cpu_ticks - it->cpu_ticks : 0;
    d.cpu_percent =
        100.0 * (static_cast<double>(ticks) / static_cast<double>(ticks_per_second_)) / seconds;
  }
  now_.push_back(c);
  return d;
}

std::string ProcessDetailsReader::user_name(std::uint32_t uid) {
  if (const auto it = users_.find(uid); it != users_.end()) return it->second;
  auto found = look_up_user(uid);
  if (found.settled) users_.emplace(uid, found.name);
  return std::move(found.name);
}

}  // namespace gpuwatch
