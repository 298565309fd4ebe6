#include "base/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gpuwatch {

namespace {
[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path, int err) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(err));
}
}  // namespace

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const WriteChunk&)>& produce) {
  std::filesystem::path tmp = path;
  tmp += ".tmp-" + std::to_string(getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", tmp, errno);
  try {
    produce([&](std::string_view chunk) {
      while (!chunk.empty()) {
        const ssize_t n = write(fd, chunk.data(), chunk.size());
        if (n < 0) {
          if (errno == EINTR) continue;
          fail("cannot write", tmp, errno);
        }
        chunk.remove_prefix(static_cast<std::size_t>(n));
      }
    });
    if (fsync(fd) != 0) fail("cannot sync", tmp, errno);
  } catch (...) {
    close(fd);
    unlink(tmp.c_str());
    throw;
  }
  if (close(fd) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    fail("cannot close", tmp, err);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    fail("cannot rename onto", path, err);
  }
}

}  // namespace gpuwatch
