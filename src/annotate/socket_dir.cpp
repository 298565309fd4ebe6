#include "annotate/socket_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "core/byte_lock.h"
#include "base/host_name.h"
#include "core/lines.h"
#include "base/unique_fd.h"

namespace gpuwatch {
namespace {

constexpr std::string_view kOwnerHeader = "gpuwatch socket directory";
constexpr std::size_t kMaxOwnerBytes = 1024;
constexpr std::size_t kMkdtempSuffix = 6;

// "<key> <value>" with a value of 1..max_size characters that `allowed` takes.
template <typename Allowed>
std::optional<std::string_view> owner_field(std::string_view& text, std::string_view key, std::size_t max_size,
                                            Allowed allowed) {
  if (text.find('\n') == std::string_view::npos) return std::nullopt;
  auto line = take_line(text);
  if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != ' ') return std::nullopt;
  line.remove_prefix(key.size() + 1);
  if (line.empty() || line.size() > max_size) return std::nullopt;
  for (const char c : line) {
    if (!allowed(c)) return std::nullopt;
  }
  return line;
}

bool is_host_char(char c) { return c > ' ' && c < 0x7f; }
bool is_boot_char(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-'; }
bool is_digit_or_dash(char c) { return (c >= '0' && c <= '9') || c == '-'; }

std::optional<std::string> read_owner_file(int dir_fd) {
  const UniqueFd fd(::openat(dir_fd, std::string(kSocketDirOwnerFile).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (st.st_size < 0 || static_cast<std::size_t>(st.st_size) > kMaxOwnerBytes) return std::nullopt;
  std::array<char, kMaxOwnerBytes + 1> buf{};
  std::size_t used = 0;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf.data() + used, buf.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
    if (used > kMaxOwnerBytes) return std::nullopt;
  }
  return std::string(buf.data(), used);
}

// Whether the directory holds an owner file and nothing but it and a socket.
bool holds_only_ours(int dir_fd) {
  const int listing = ::dup(dir_fd);
  if (listing < 0) return false;
  DIR* d = ::fdopendir(listing);
  if (d == nullptr) {
    ::close(listing);
    return false;
  }
  bool owner = false;
  bool only_ours = true;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    if (name == kSocketDirOwnerFile) {
      owner = true;
    } else if (name != kSocketFileName) {
      only_ours = false;
    }
  }
  ::closedir(d);
  return owner && only_ours;
}

bool owner_is_dead(const SocketDirOwner& owner, const SocketDirOwner& here, const std::filesystem::path& procfs_root) {
  // A directory on a shared /tmp may be another host's: its pids mean nothing here.
  if (owner.host.empty() || owner.host != here.host) return false;
  if (!owner.boot_id.empty() && !here.boot_id.empty() && owner.boot_id != here.boot_id) return true;
  return !process_alive(procfs_root, owner.process);
}

// Whether a live process holds the owner file's lock (create_socket_dir).
bool owner_file_locked(int dir_fd) {
  const UniqueFd fd(::openat(dir_fd, std::string(kSocketDirOwnerFile).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return false;
  return byte_lock(fd.get(), 0) == ByteLock::Held;
}

void unlink_quietly(int dir_fd, std::string_view name, int flags) {
  (void)::unlinkat(dir_fd, std::string(name).c_str(), flags);
}

}  // namespace

SocketDirOwner SocketDirOwner::current(const std::filesystem::path& procfs_root) {
  SocketDirOwner me;
  me.host = host_name();
  me.boot_id = read_boot_id(procfs_root);
  me.process = current_process(procfs_root);
  return me;
}

std::string format_socket_dir_owner(const SocketDirOwner& owner) {
  const auto or_dash = [](const std::string& s, auto ok) {
    if (s.empty() || s.size() > 255) return std::string("-");
    for (const char c : s) {
      if (!ok(c)) return std::string("-");
    }
    return s;
  };
  return fmt::format("{}\nhost {}\nboot {}\npid {}\nstart {}\n", kOwnerHeader, or_dash(owner.host, is_host_char),
                     or_dash(owner.boot_id, is_boot_char), owner.process.pid,
                     owner.process.start_ticks ? fmt::format("{}", *owner.process.start_ticks) : "-");
}

std::optional<SocketDirOwner> parse_socket_dir_owner(std::string_view text) {
  if (text.size() > kMaxOwnerBytes || text.find('\n') == std::string_view::npos ||
      take_line(text) != kOwnerHeader) {
    return std::nullopt;
  }
  const auto host = owner_field(text, "host", 255, is_host_char);
  const auto boot = owner_field(text, "boot", 64, is_boot_char);
  const auto pid_text = owner_field(text, "pid", 10, is_digit_or_dash);
  const auto start = owner_field(text, "start", 20, is_digit_or_dash);
  if (!host || !boot || !pid_text || !start || !text.empty()) return std::nullopt;
  const auto pid = parse_pid(*pid_text);
  if (!pid) return std::nullopt;
  SocketDirOwner owner;
  if (*host != "-") owner.host = *host;
  if (*boot != "-") owner.boot_id = *boot;
  owner.process.pid = *pid;
  if (*start != "-") {
    std::uint64_t ticks = 0;
    const auto [ptr, ec] = std::from_chars(start->data(), start->data() + start->size(), ticks);
    if (ec != std::errc{} || ptr != start->data() + start->size()) return std::nullopt;
    owner.process.start_ticks = ticks;
  }
  return owner;
}

OwnedSocketDir create_socket_dir(const std::filesystem::path& base, const SocketDirOwner& owner) {
  std::string templ = (base / (std::string(kSocketDirPrefix) + std::string(kMkdtempSuffix, 'X'))).string();
  if (::mkdtemp(templ.data()) == nullptr) {
    throw std::runtime_error(fmt::format("cannot create a directory in {}: {}", base.string(), std::strerror(errno)));
  }
  const std::filesystem::path dir = templ;
  const std::string text = format_socket_dir_owner(owner);
  const std::string owner_path = (dir / kSocketDirOwnerFile).string();
  UniqueFd fd(::open(owner_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0 || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    const int err = errno;
    remove_socket_dir(dir);
    throw std::runtime_error(fmt::format("cannot write {}: {}", owner_path, std::strerror(err)));
  }
  // Without OFD locks (old kernels, some file systems) the pid check alone
  // judges, as before.
  (void)lock_byte(fd.get(), 0);
  return {dir, std::move(fd)};
}

void remove_socket_dir(const std::filesystem::path& dir) {
  std::error_code ignored;
  std::filesystem::remove(dir / kSocketFileName, ignored);
  std::filesystem::remove(dir / kSocketDirOwnerFile, ignored);
  std::filesystem::remove(dir, ignored);
}

std::size_t remove_stale_socket_dirs(const std::filesystem::path& base, const SocketDirOwner& here,
                                     const std::filesystem::path& procfs_root) {
  DIR* listing = ::opendir(base.c_str());
  if (listing == nullptr) return 0;
  std::vector<std::string> candidates;
  while (const dirent* e = ::readdir(listing)) {
    const std::string_view name(e->d_name);
    if (name.starts_with(kSocketDirPrefix) && name.size() == kSocketDirPrefix.size() + kMkdtempSuffix) {
      candidates.emplace_back(name);
    }
  }
  const int base_fd = ::dirfd(listing);
  std::size_t removed = 0;
  for (const std::string& name : candidates) {
    struct stat st {};
    // Only a real directory of ours, private as mkdtemp makes it.
    if (::fstatat(base_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
      continue;
    }
    const UniqueFd dir(::openat(base_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat opened {};
    if (dir.get() < 0 || ::fstat(dir.get(), &opened) != 0 || opened.st_ino != st.st_ino || opened.st_dev != st.st_dev) {
      continue;  // swapped under us
    }
    if (!holds_only_ours(dir.get())) continue;
    const auto text = read_owner_file(dir.get());
    const auto owner = text ? parse_socket_dir_owner(*text) : std::nullopt;
    if (!owner || owner_file_locked(dir.get()) || !owner_is_dead(*owner, here, procfs_root)) continue;
    unlink_quietly(dir.get(), kSocketFileName, 0);
    unlink_quietly(dir.get(), kSocketDirOwnerFile, 0);
    if (::unlinkat(base_fd, name.c_str(), AT_REMOVEDIR) == 0) ++removed;
  }
  ::closedir(listing);
  return removed;
}

}  // namespace gpuwatch
