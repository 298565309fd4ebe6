#include "matrix/cell_processes.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "backends/procfs/host.h"
#include "base/process_identity.h"
#include "backends/procfs/read_at.h"
#include "base/unique_fd.h"
#include "core/whole_number.h"

namespace gpuwatch::matrix {

namespace {

using Clock = std::chrono::steady_clock;

// How often the processes are looked for again while they are ended, and
// how long those still there after SIGKILL get (a process in the kernel's
// uninterruptible sleep takes a moment).
constexpr auto kPoll = std::chrono::milliseconds(50);
constexpr auto kAfterKill = std::chrono::seconds(1);

bool environ_has(std::string_view environ_text, std::string_view entry) {
  while (!environ_text.empty()) {
    const auto end = environ_text.find('\0');
    if (environ_text.substr(0, end) == entry) return true;
    if (end == std::string_view::npos) break;
    environ_text.remove_prefix(end + 1);
  }
  return false;
}

// Sends `sig` to the process found as `p`, if it is still that process: the
// pidfd is opened first, then the start time checked, so that a pid reused
// since the scan is never signalled. False when it is gone.
bool signal_found(const std::filesystem::path& procfs_root, const CellProcess& p, int sig) {
  const UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, p.pid, 0)));
  if (pidfd.get() < 0 && errno != ENOSYS) return false;  // ESRCH: gone
  if (process_start_ticks(procfs_root, p.pid) != p.start_ticks) return false;
  // Kernels before 5.3 have no pidfd: the check above, then kill, leaves a
  // window of microseconds.
  const long rc = pidfd.get() >= 0 ? syscall(SYS_pidfd_send_signal, pidfd.get(), sig, nullptr, 0) : kill(p.pid, sig);
  return rc == 0;
}

}  // namespace

std::optional<std::string> cell_membership(std::string_view stat_text, std::string_view environ_text,
                                           const CellTag& tag) {
  const auto st = parse_pid_stat(stat_text);
  const auto state = parse_pid_state(stat_text);
  if (!st || !state || *state == 'Z' || *state == 'X') return std::nullopt;
  if (tag.session != 0 && st->session == tag.session) return "session";
  if (!tag.marker.empty() && environ_has(environ_text, fmt::format("{}={}", kCellIdVariable, tag.marker))) {
    return "environment";
  }
  return std::nullopt;
}

std::vector<CellProcess> find_cell_processes(const std::filesystem::path& procfs_root, const CellTag& tag,
                                             std::uint32_t except) {
  std::vector<CellProcess> out;
  const UniqueFd root(::open(procfs_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return out;
  const auto self = static_cast<std::uint32_t>(getpid());
  std::string stat_buf;
  std::string environ_buf;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(procfs_root, ec)) {
    const auto pid = parse_whole_number<std::uint32_t>(entry.path().filename().string());
    if (!pid || *pid == except || *pid == self) continue;
    const auto stat_text = read_at(root.get(), PidPath(*pid, "stat").c_str(), stat_buf);
    if (!stat_text) continue;
    const auto environ_text = read_at(root.get(), PidPath(*pid, "environ").c_str(), environ_buf);
    auto found_by = cell_membership(*stat_text, environ_text.value_or(""), tag);
    if (!found_by) continue;
    const auto st = parse_pid_stat(*stat_text);
    out.push_back({*pid, st->start_ticks, st->comm, std::move(*found_by)});
  }
  return out;
}

std::vector<LeftoverProcess> end_cell_processes(const std::filesystem::path& procfs_root, const CellTag& tag,
                                                std::uint32_t except, std::chrono::milliseconds grace) {
  struct Signalled {
    CellProcess process;
    int signal = 0;
  };
  std::map<std::pair<std::uint32_t, std::uint64_t>, Signalled> seen;
  // One round: each process found gets `sig` unless it had it already;
  // true while any is left.
  const auto round = [&](int sig) {
    const std::vector<CellProcess> found = find_cell_processes(procfs_root, tag, except);
    for (const CellProcess& p : found) {
      Signalled& s = seen[{p.pid, p.start_ticks}];
      if (s.signal == sig) continue;
      if (signal_found(procfs_root, p, sig)) s = {p, sig};
    }
    return !found.empty();
  };
  const auto rounds_until = [&](int sig, Clock::time_point deadline) {
    bool left = round(sig);
    while (left && Clock::now() < deadline) {
      std::this_thread::sleep_for(kPoll);
      left = round(sig);
    }
    return left;
  };
  if (rounds_until(SIGTERM, Clock::now() + grace)) rounds_until(SIGKILL, Clock::now() + kAfterKill);
  std::vector<LeftoverProcess> out;
  const std::vector<CellProcess> survivors = find_cell_processes(procfs_root, tag, except);
  for (const auto& entry : seen) {  // no structured binding: clang before 16 cannot capture one
    const Signalled& s = entry.second;
    if (s.signal == 0) continue;  // gone before any signal reached it: it ended on its own
    const bool survived = std::any_of(survivors.begin(), survivors.end(), [&](const CellProcess& p) {
      return p.pid == s.process.pid && p.start_ticks == s.process.start_ticks;
    });
    out.push_back({s.process.pid, s.process.name, s.process.found_by,
                   survived ? std::string() : std::string(s.signal == SIGKILL ? "SIGKILL" : "SIGTERM")});
  }
  return out;
}

std::size_t kill_cell_processes(const std::filesystem::path& procfs_root, const CellTag& tag, std::uint32_t except) {
  std::size_t n = 0;
  for (const CellProcess& p : find_cell_processes(procfs_root, tag, except)) {
    if (signal_found(procfs_root, p, SIGKILL)) ++n;
  }
  return n;
}

}  // namespace gpuwatch::matrix
