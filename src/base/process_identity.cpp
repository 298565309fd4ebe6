#include "base/process_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <limits>

#include "base/unique_fd.h"
#include "core/lines.h"
#include "core/whole_number.h"

namespace gpuwatch {
namespace {

// A stat line is a few hundred bytes; a file past this is not procfs.
constexpr std::size_t kMaxStatBytes = 8192;

// The whole file (up to kMaxStatBytes), or nullopt when it cannot be read.
std::optional<std::string> read_small(const std::filesystem::path& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return std::nullopt;
  std::string out;
  std::array<char, 1024> buf{};
  bool ok = true;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    if (out.size() + static_cast<std::size_t>(n) > kMaxStatBytes) {
      ok = false;
      break;
    }
    out.append(buf.data(), static_cast<std::size_t>(n));
  }
  if (!ok) return std::nullopt;
  return out;
}

std::filesystem::path stat_path(const std::filesystem::path& root, std::uint32_t pid) {
  return root / std::to_string(pid) / "stat";
}

}  // namespace

std::optional<std::uint64_t> process_start_ticks(const std::filesystem::path& procfs_root, std::uint32_t pid) {
  if (pid == 0) return std::nullopt;
  const auto text = read_small(stat_path(procfs_root, pid));
  if (!text) return std::nullopt;
  const auto st = parse_pid_stat(*text);
  // A stat that names another pid is not this process's.
  if (!st || st->pid != pid) return std::nullopt;
  return st->start_ticks;
}

ProcessIdentity current_process(const std::filesystem::path& procfs_root) {
  ProcessIdentity self;
  self.pid = static_cast<std::uint32_t>(::getpid());
  self.start_ticks = process_start_ticks(procfs_root, self.pid);
  return self;
}

bool process_alive(const std::filesystem::path& procfs_root, const ProcessIdentity& who) {
  if (who.pid == 0 || who.pid > kMaxPid) return false;
  struct stat dir {};
  if (::stat((procfs_root / std::to_string(who.pid)).c_str(), &dir) != 0) return errno != ENOENT && errno != ENOTDIR;
  const auto text = read_small(stat_path(procfs_root, who.pid));
  if (!text) return true;
  // A zombie has stopped writing for good; only its parent has yet to reap it.
  if (const auto state = parse_pid_state(*text); state && (*state == 'Z' || *state == 'X')) return false;
  if (!who.start_ticks) return true;
  const auto st = parse_pid_stat(*text);
  return !st || st->start_ticks == *who.start_ticks;
}

std::string read_boot_id(const std::filesystem::path& procfs_root) {
  auto text = read_small(procfs_root / "sys" / "kernel" / "random" / "boot_id");
  if (!text) return {};
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  return *text;
}

std::optional<std::uint32_t> parse_pid(std::string_view text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  std::uint32_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  constexpr std::uint32_t kMaxPidT = 0x7fff'ffff;
  if (ec != std::errc{} || ptr != text.data() + text.size() || v == 0 || v > kMaxPidT) return std::nullopt;
  return v;
}

std::optional<PidStat> parse_pid_stat(std::string_view text) {
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  auto head = text.substr(0, open);
  const auto pid_token = take_token(head);
  const auto pid = parse_whole_number<std::uint32_t>(pid_token);
  if (!pid || !take_token(head).empty()) return std::nullopt;

  // Fields after the comm, numbered as proc(5) numbers the whole line.
  constexpr int kLastField = 24;  // rss
  std::uint64_t field_value[kLastField + 1] = {};
  auto rest = text.substr(close + 1);
  for (int field = 3; field <= kLastField; ++field) {
    auto token = take_token(rest);
    if (token.empty()) return std::nullopt;
    if (field != 4 && field != 5 && field != 6 && field != 14 && field != 15 && field != 22 && field != 24) continue;
    // rss is a signed long in the kernel's format: never negative in
    // practice, but a negative count must read as 0 rather than wrap.
    const bool negative = field == 24 && token.starts_with('-');
    if (negative) token.remove_prefix(1);
    const auto v = parse_whole_number<std::uint64_t>(token);
    if (!v) return std::nullopt;
    field_value[field] = negative ? 0 : *v;
  }
  for (const int pid_field : {4, 5, 6}) {  // ppid, pgrp, session: pid_t
    if (field_value[pid_field] > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  }
  PidStat st;
  st.pid = *pid;
  st.comm.assign(text.substr(open + 1, close - open - 1));
  st.ppid = static_cast<std::uint32_t>(field_value[4]);
  st.pgrp = static_cast<std::uint32_t>(field_value[5]);
  st.session = static_cast<std::uint32_t>(field_value[6]);
  st.utime_ticks = field_value[14];
  st.stime_ticks = field_value[15];
  st.start_ticks = field_value[22];
  st.rss_pages = field_value[24];
  return st;
}

std::optional<char> parse_pid_state(std::string_view stat_text) {
  const auto close = stat_text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  auto rest = stat_text.substr(close + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.empty() || rest.front() < 'A' || rest.front() > 'z') return std::nullopt;
  return rest.front();
}

}  // namespace gpuwatch
