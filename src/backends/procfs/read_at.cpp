#include "backends/procfs/read_at.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/unique_fd.h"

namespace gpuwatch {
namespace {

// /proc/stat of an 8192-CPU machine is about 1.5 MB; anything past this is
// not a procfs file and is treated as unreadable.
constexpr std::size_t kMaxFileBytes = std::size_t{16} << 20;

}  // namespace

std::optional<std::string_view> read_at(int dir_fd, const char* path, std::string& buf) {
  if (dir_fd < 0 && dir_fd != AT_FDCWD) {
    errno = EBADF;
    return std::nullopt;
  }
  const UniqueFd fd(::openat(dir_fd, path, O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  if (buf.size() < 4096) buf.resize(4096);
  std::size_t used = 0;
  for (;;) {
    if (used == buf.size()) {
      if (buf.size() >= kMaxFileBytes) return std::nullopt;
      buf.resize(buf.size() * 2);
    }
    const ssize_t n = ::read(fd.get(), buf.data() + used, buf.size() - used);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    used += static_cast<std::size_t>(n);
  }
  return std::string_view(buf.data(), used);
}

long sysconf_or(int name, long fallback) {
  const long v = ::sysconf(name);
  return v > 0 ? v : fallback;
}

}  // namespace gpuwatch
