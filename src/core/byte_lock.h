// One-byte open-file-description locks (F_OFD_*): the proof that a process
// lives, for a recorder's run in the store and for its annotation socket's
// directory. The kernel drops them when the process dies, however it dies
// and whatever its PID namespace; and they belong to the open file
// description that took them, not to the process (POSIX locks vanish when the
// process closes any descriptor of the file, which SQLite does). The holder
// takes a write lock; anyone who can open the file, read-only too, may ask.
#pragma once

#include <fcntl.h>

#include <cstdint>

namespace gpuwatch {

namespace byte_lock_detail {
inline struct flock one_byte(short type, std::int64_t offset) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(offset);
  fl.l_len = 1;
  return fl;
}
}  // namespace byte_lock_detail

// Takes a write lock on byte `offset` through `fd` (writable) without
// waiting. False with errno set: EAGAIN or EACCES when another holds it,
// EINVAL where the kernel or file system has no OFD locks.
inline bool lock_byte(int fd, std::int64_t offset) {
  struct flock fl = byte_lock_detail::one_byte(F_WRLCK, offset);
  return ::fcntl(fd, F_OFD_SETLK, &fl) == 0;
}

inline void unlock_byte(int fd, std::int64_t offset) {
  struct flock fl = byte_lock_detail::one_byte(F_UNLCK, offset);
  (void)::fcntl(fd, F_OFD_SETLK, &fl);
}

enum class ByteLock {
  Held,     // another open file description holds it: its process lives
  Free,     // nobody does
  Unknown,  // the kernel could not be asked
};

// Asks as a reader, which a read-only descriptor may do; the holder's write
// lock conflicts with it.
inline ByteLock byte_lock(int fd, std::int64_t offset) {
  struct flock fl = byte_lock_detail::one_byte(F_RDLCK, offset);
  if (::fcntl(fd, F_OFD_GETLK, &fl) != 0) return ByteLock::Unknown;
  return fl.l_type == F_UNLCK ? ByteLock::Free : ByteLock::Held;
}

}  // namespace gpuwatch
