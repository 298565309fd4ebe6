// Host metrics from procfs: CPU (total and per core), memory, and the CPU,
// RSS and reads of a process tree. Everything is read under a root passed in.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/process_identity.h"
#include "core/sample.h"

namespace gpuwatch {

// --- Pure parsers (fuzzed; never throw, return nullopt on malformed input) ---

struct CpuTimes {
  std::uint64_t busy = 0;   // user+nice+system+irq+softirq+steal (guest is inside user)
  std::uint64_t total = 0;  // busy + idle + iowait
};
struct ProcStat {
  CpuTimes all;
  // Indexed by CPU number. /proc/stat omits offline CPUs, so a gap is left
  // as {0, 0} rather than shifting later cores into the wrong slot.
  std::vector<CpuTimes> cores;
};
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// Busy share of the ticks elapsed between two readings, 0..100; nullopt when
// either side is an offline gap ({0, 0}), no tick elapsed, or the counters
// went backwards (iowait may, per proc(5)).
std::optional<double> cpu_percent(const CpuTimes& before, const CpuTimes& after);

struct MemInfo {
  std::uint64_t total_bytes = 0;
  std::optional<std::uint64_t> available_bytes;  // MemAvailable: kernels >= 3.14
};
std::optional<MemInfo> parse_meminfo(std::string_view text);


// read_bytes from /proc/PID/io (unreadable for other users' processes).
std::optional<std::uint64_t> parse_io_read_bytes(std::string_view text);

// A process's name (comm, from procfs_root/PID/stat; the same 15 characters
// as /proc/PID/comm), empty if it is gone. For backends whose driver gives
// pids without names.
std::string read_process_name(const std::filesystem::path& procfs_root, std::uint32_t pid);

// --- Stateful reader: turns counters into rates between two reads ---

class HostReader {
 public:
  // ticks_per_second and page_size of 0 mean "ask sysconf"; tests pass fixed
  // values so fixture arithmetic holds on any machine.
  explicit HostReader(std::filesystem::path procfs_root, long ticks_per_second = 0,
                      long page_size = 0);

  // Root of the process tree to follow; 0 means none. Forgets earlier counters.
  void set_tree_root(std::uint32_t pid);

  // Fills values and per-core usage. Rates are computed from the timestamps
  // passed in, so the first call (and the first after set_tree_root) has no
  // CPU% or read rate yet. core_percent holds NaN for a core that was offline
  // in either read. Tree metrics count live processes only: ticks of a child
  // that exited between two reads are lost, as in top.
  HostSample read(Timestamp time);

  // The pids currently in the tree, root first, as of the last read().
  [[nodiscard]] const std::vector<std::uint32_t>& tree_pids() const { return tree_pids_; }

  // Name of a process (comm), empty if gone.
  [[nodiscard]] std::string process_name(std::uint32_t pid) const;

  // Fills what procfs says of a process a GPU driver lists: its name, its
  // owner (process_owner.h), and whether a missing pid is of another PID
  // namespace rather than gone.
  void describe(GpuProcess& process);

 private:
  struct Proc {  // one /proc/PID/stat of the current scan
    std::uint32_t pid = 0;
    std::uint32_t ppid = 0;
    std::uint64_t start_ticks = 0;
    std::uint64_t cpu_ticks = 0;
    std::uint64_t rss_pages = 0;
    bool in_tree = false;
  };
  struct PidCounters {  // what the next read needs to difference against
    std::uint32_t pid = 0;
    std::uint64_t start_ticks = 0;
    std::uint64_t cpu_ticks = 0;
    std::optional<std::uint64_t> read_bytes;
  };
  void read_cpu(int dir_fd, HostSample& out);
  void read_memory(int dir_fd, HostSample& out);
  void read_tree(int dir_fd, HostSample& out, Timestamp time);
  std::uint64_t gather_tree(Proc& root);  // returns the tree's resident pages
  void read_tree_io(int dir_fd);
  void set_tree_rates(HostSample& out, Timestamp time) const;
  void scan_processes(int dir_fd);
  bool walk_children(int dir_fd);
  void forget_tree();

  std::filesystem::path root_;
  long ticks_per_second_;
  long page_size_;
  std::uint32_t tree_root_ = 0;
  std::optional<std::uint64_t> tree_root_start_;  // a reused root pid is not our root
  std::optional<ProcStat> last_stat_;
  std::optional<Timestamp> last_tree_time_;
  std::vector<PidCounters> tree_before_;  // sorted by pid
  std::vector<PidCounters> tree_now_;
  std::vector<Proc> procs_;
  std::vector<std::uint32_t> tree_pids_;
  std::optional<bool> children_files_;  // does this kernel have task/*/children?
  std::optional<bool> child_pid_namespace_;  // procfs_is_child_pid_namespace, asked once
  std::string buf_;  // file contents, reused across reads
  std::string children_buf_;
};

}  // namespace gpuwatch
