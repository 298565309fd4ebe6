// The proof that a run's recorder lives: a lock the recorder holds on one
// byte of the store file for as long as the run is open, which the kernel
// drops when the process dies, however it dies and whatever its PID
// namespace (a recorder in a container shows a pid that means another
// process here). An open-file-description lock (F_OFD_SETLK), not a POSIX
// one: POSIX locks belong to the process and vanish when it closes any
// descriptor of the file, which SQLite does; OFD locks belong to the one
// descriptor that took them. Any process that can open the file for reading
// can ask whether the byte is locked (F_OFD_GETLK) without taking it.
//
// The descriptors used here are opened once per file and process and never
// closed while the file exists: closing a descriptor of the store file would
// drop the POSIX locks SQLite holds on it in this process (SQLite's "howtocorrupt"
// page, 2.2). They are opened close-on-exec, so the recorded command does not
// inherit the lock; a child forked WITHOUT exec does, and keeps the run looking
// alive while it lives.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace gpuwatch {

// Where the locks live: far past SQLite's lock bytes (from 1 GiB, a few
// hundred bytes), never written or read; locking a byte does not grow the file.
inline constexpr std::int64_t kRecorderLockBase = std::int64_t{1} << 40;

// A lock this process holds; given back when released or destroyed.
class HeldRecorderLock {
 public:
  HeldRecorderLock(int fd, std::int64_t offset) : fd_(fd), offset_(offset) {}
  ~HeldRecorderLock() { release(); }
  HeldRecorderLock(HeldRecorderLock&& other) noexcept;
  HeldRecorderLock& operator=(HeldRecorderLock&& other) noexcept;
  HeldRecorderLock(const HeldRecorderLock&) = delete;
  HeldRecorderLock& operator=(const HeldRecorderLock&) = delete;

  // The byte locked, stored with the run.
  [[nodiscard]] std::int64_t offset() const { return offset_; }
  // Gives the lock back: the run's end is stored, or it never began.
  void release() noexcept;

 private:
  int fd_ = -1;  // one of the never-closed descriptors
  std::int64_t offset_ = 0;
};

// Takes a lock for the run in row `row_id` of the store file `store`, through
// this process's writable descriptor of it. nullopt when the kernel or file
// system has no OFD locks or no candidate byte is free: the run is then told
// alive by its pid and heartbeat, as runs recorded before locks were.
std::optional<HeldRecorderLock> take_recorder_lock(const std::filesystem::path& store, std::int64_t row_id);

enum class RecorderLock {
  Held,     // a live process holds it: the recorder
  Free,     // nobody does: the recorder is gone
  Unknown,  // the file cannot be opened or asked
};

// Whether byte `offset` of `store` is locked, asked through a read-only
// descriptor (so it works on a store this user may only read, and sees a
// lock this very process holds through its writable one).
RecorderLock probe_recorder_lock(const std::filesystem::path& store, std::int64_t offset);

// Hands over a descriptor of `store` this process just created the file with
// (O_RDWR), to be used by take_recorder_lock rather than closed: closing it
// could drop SQLite's locks once a connection has the file open.
void adopt_store_descriptor(int fd);

}  // namespace gpuwatch
