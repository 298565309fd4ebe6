#include "import/spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "import/import.h"

namespace gpuwatch {

namespace {

// Writes and sequential reads go a MiB at a time: few system calls, little memory.
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

// A file in `dir` that no name points to: O_TMPFILE where the file system
// has it, else a name removed at once.
int unnamed_file(const std::filesystem::path& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
#endif
  std::string name = (dir / "gpuwatch-import-XXXXXX").string();
  const int named = ::mkostemp(name.data(), O_CLOEXEC);
  if (named >= 0) ::unlink(name.c_str());
  return named;
}

}  // namespace

SpillFile::SpillFile(const std::filesystem::path& dir) : dir_(dir) {
  fd_.reset(unnamed_file(dir));
  if (!fd_.valid()) fail("create", errno);
  pending_.reserve(kBufferBytes);
}

void SpillFile::fail(const char* what, int err) const {
  throw ImportError(fmt::format("cannot {} the temporary file that holds the samples until the whole file is read, "
                                "in {}: {} (set TMPDIR to a directory with room)",
                                what, dir_.string(), std::strerror(err)));
}

void SpillFile::append(const void* data, std::size_t n) {
  if (n == 0) return;
  pending_.append(static_cast<const char*>(data), n);
  size_ += n;
  if (fd_.valid() && pending_.size() >= kBufferBytes) flush();
}

void SpillFile::flush() {
  std::size_t done = 0;
  while (done < pending_.size()) {
    const ssize_t n = ::pwrite(fd_.get(), pending_.data() + done, pending_.size() - done,
                               static_cast<off_t>(written_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write", n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  written_ += done;
  pending_.clear();
}

std::size_t SpillFile::read_at(std::uint64_t offset, void* out, std::size_t n) {
  if (offset >= size_) return 0;
  n = static_cast<std::size_t>(std::min<std::uint64_t>(n, size_ - offset));
  if (!fd_.valid()) {
    std::memcpy(out, pending_.data() + offset, n);
    return n;
  }
  if (!pending_.empty()) flush();
  std::size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_.get(), static_cast<char*>(out) + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) fail("read", got < 0 ? errno : EIO);
    done += static_cast<std::size_t>(got);
  }
  return n;
}

bool SpillFile::Reader::read(void* out, std::size_t n) {
  if (n == 0) return true;
  if (buffer_.size() - used_ < n) {
    buffer_.erase(0, used_);
    used_ = 0;
    const std::size_t have = buffer_.size();
    // No more than the file holds: a small spill is read with a small buffer.
    const std::uint64_t left = file_.size() - std::min(file_.size(), offset_ + have);
    if (have + left < n) return false;
    buffer_.resize(have + static_cast<std::size_t>(std::min<std::uint64_t>(std::max(buffer_bytes_, n), left)));
    const std::size_t got = file_.read_at(offset_ + have, buffer_.data() + have, buffer_.size() - have);
    buffer_.resize(have + got);
    if (buffer_.size() < n) return false;
  }
  std::memcpy(out, buffer_.data() + used_, n);
  used_ += n;
  offset_ += n;
  return true;
}

}  // namespace gpuwatch
