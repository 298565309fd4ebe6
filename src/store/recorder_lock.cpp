#include "store/recorder_lock.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <compare>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "core/byte_lock.h"

namespace gpuwatch {
namespace {

// Row ids are spread over 2^32 bytes; a byte already held (a run deleted with
// --force whose row id was reused while its recorder still runs) moves the
// next run to the same place in the next 2^32.
constexpr std::int64_t kRowSpan = std::int64_t{1} << 32;
constexpr int kCandidates = 16;

// A file's identity. While a descriptor of it is open its inode stays
// allocated, deleted or not, so a key held here never names a newer file.
struct FileKey {
  dev_t dev = 0;
  ino_t ino = 0;
  bool writable = false;
  auto operator<=>(const FileKey&) const = default;
};

struct Descriptor {
  int fd = -1;
  std::set<std::int64_t> held;  // bytes locked through it
};

// This process's descriptors of store files, one read-only and one writable
// per file, opened on first use and closed only once the file is deleted and
// no lock is held through them (see the header for why).
class Descriptors {
 public:
  // Never destroyed: a destructor run at exit could close a descriptor while
  // another static still has an SQLite connection to the file.
  static Descriptors& instance() {
    static auto* const d = new Descriptors;
    return *d;
  }

  std::mutex mutex;

  // The rest: callers hold `mutex`. nullptr when the file cannot be opened.
  Descriptor* find(const std::filesystem::path& path, bool writable) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
      if (const auto it = open_.find({st.st_dev, st.st_ino, writable}); it != open_.end()) return &it->second;
    }
    const int fd = ::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return nullptr;
    return add(fd, writable);
  }

  Descriptor* add(int fd, bool writable) {
    close_deleted();
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      spare_.push_back(fd);
      return nullptr;
    }
    const auto [it, added] = open_.try_emplace(FileKey{st.st_dev, st.st_ino, writable}, Descriptor{fd, {}});
    // The path named another file when stat looked; this one is known already.
    if (!added) spare_.push_back(fd);
    return &it->second;
  }

  Descriptor* by_fd(int fd) {
    for (auto& [key, d] : open_) {
      if (d.fd == fd) return &d;
    }
    return nullptr;
  }

 private:
  static bool deleted(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 && st.st_nlink == 0;
  }

  // Keeps the table as small as the store files that still exist (a test
  // suite creates hundreds).
  void close_deleted() {
    for (auto it = open_.begin(); it != open_.end();) {
      if (it->second.held.empty() && deleted(it->second.fd)) {
        ::close(it->second.fd);
        it = open_.erase(it);
      } else {
        ++it;
      }
    }
    std::erase_if(spare_, [](int fd) {
      if (!deleted(fd)) return false;
      ::close(fd);
      return true;
    });
  }

  std::map<FileKey, Descriptor> open_;
  std::vector<int> spare_;  // duplicates, kept open for the same reason
};

}  // namespace

HeldRecorderLock::HeldRecorderLock(HeldRecorderLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), offset_(other.offset_) {}

HeldRecorderLock& HeldRecorderLock::operator=(HeldRecorderLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    offset_ = other.offset_;
  }
  return *this;
}

void HeldRecorderLock::release() noexcept {
  if (fd_ < 0) return;
  auto& all = Descriptors::instance();
  std::lock_guard lock(all.mutex);
  unlock_byte(fd_, offset_);
  if (Descriptor* d = all.by_fd(fd_)) d->held.erase(offset_);
  fd_ = -1;
}

std::optional<HeldRecorderLock> take_recorder_lock(const std::filesystem::path& store, std::int64_t row_id) {
  auto& all = Descriptors::instance();
  std::lock_guard lock(all.mutex);
  Descriptor* d = all.find(store, true);
  if (d == nullptr) return std::nullopt;
  for (int k = 0; k < kCandidates; ++k) {
    const std::int64_t offset = kRecorderLockBase + (row_id & (kRowSpan - 1)) + k * kRowSpan;
    if (d->held.contains(offset)) continue;  // this process's own: it would not conflict
    if (lock_byte(d->fd, offset)) {
      d->held.insert(offset);
      return HeldRecorderLock(d->fd, offset);
    }
    if (errno != EAGAIN && errno != EACCES) return std::nullopt;  // EINVAL: no OFD locks here
  }
  return std::nullopt;
}

RecorderLock probe_recorder_lock(const std::filesystem::path& store, std::int64_t offset) {
  if (offset < 0) return RecorderLock::Unknown;
  auto& all = Descriptors::instance();
  std::lock_guard lock(all.mutex);
  Descriptor* d = all.find(store, false);
  if (d == nullptr) return RecorderLock::Unknown;
  switch (byte_lock(d->fd, offset)) {
    case ByteLock::Held: return RecorderLock::Held;
    case ByteLock::Free: return RecorderLock::Free;
    case ByteLock::Unknown: break;
  }
  return RecorderLock::Unknown;
}

void adopt_store_descriptor(int fd) {
  auto& all = Descriptors::instance();
  std::lock_guard lock(all.mutex);
  (void)all.add(fd, true);
}

}  // namespace gpuwatch
