// What a top-like table shows for the processes that hold GPU memory: owner,
// command line, CPU share and resident memory. The pids come from the GPU
// driver; everything else is read under a procfs root passed in. The files
// read (stat, status, cmdline) are world-readable, so other users' processes
// are covered too.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/sample.h"

namespace gpuwatch {

struct ProcessDetails {
  std::uint32_t pid = 0;
  std::optional<std::uint32_t> uid;  // real uid
  // Login name of uid; the uid as text when it has none; empty when uid is unknown.
  std::string user;
  // Arguments joined by spaces; "[comm]" when there are none (kernel thread,
  // zombie); empty when the process is gone.
  std::string command;
  // Share of one core (can exceed 100) since the previous read() that saw
  // the same process; absent on first sight.
  std::optional<double> cpu_percent;
  std::optional<std::uint64_t> rss_bytes;
  // Clock ticks since boot when it started: with the pid, names this process
  // and no later one that reuses the pid.
  std::optional<std::uint64_t> start_ticks;
  bool gone = false;  // no such process (any more)
};

// --- Pure parsers (fuzzed; never throw) ---

// The real uid: the first number of the "Uid:" line of /proc/PID/status.
std::optional<std::uint32_t> parse_status_uid(std::string_view status_text);

// /proc/PID/cmdline as one line for a terminal: NUL separators become spaces
// (trailing ones are dropped), control characters and bytes that are not
// UTF-8 become '?', and the result is cut to at most max_bytes between
// characters.
std::string parse_cmdline(std::string_view raw, std::size_t max_bytes = 4096);

// --- Stateful reader: CPU % is the difference between two reads ---

class ProcessDetailsReader {
 public:
  // ticks_per_second and page_size of 0 mean "ask sysconf"; tests pass fixed
  // values so fixture arithmetic holds on any machine.
  explicit ProcessDetailsReader(std::filesystem::path procfs_root, long ticks_per_second = 0,
                                long page_size = 0);

  // One entry per pid, in the order given. CPU % is measured against the
  // previous call's counters over the time between the two timestamps; a
  // process not in `pids` is forgotten, so it has none when it comes back.
  std::vector<ProcessDetails> read(std::span<const std::uint32_t> pids, Timestamp time);

 private:
  struct Counters {  // what the next read differences against
    std::uint32_t pid = 0;
    std::uint64_t start_ticks = 0;  // tells a reused pid apart
    std::uint64_t cpu_ticks = 0;
  };
  ProcessDetails read_one(int root_fd, std::uint32_t pid, double seconds);
  std::string user_name(std::uint32_t uid);

  std::filesystem::path root_;
  long ticks_per_second_;
  long page_size_;
  std::optional<Timestamp> last_time_;
  std::vector<Counters> before_;  // sorted by pid
  std::vector<Counters> now_;
  std::unordered_map<std::uint32_t, std::string> users_;  // uid -> name, never evicted: few uids
  std::string buf_;  // file contents, reused across reads
};

}  // namespace gpuwatch
