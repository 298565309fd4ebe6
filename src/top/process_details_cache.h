// What procfs says of the processes a GPU driver lists, for top's process
// table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "backends/procfs/process_details.h"
#include "core/sample.h"

namespace gpuwatch {

// What procfs says of the processes the driver lists, read again only when
// the driver's list is new (the slow cadence, a second by default), not at
// every tick: CPU % is then measured over a second, as htop does, instead of
// in 10 % steps at 0.1 s, and the ticks between read no procfs files.
class ProcessDetailsCache {
 public:
  explicit ProcessDetailsCache(const std::filesystem::path& procfs_root) : reader_(procfs_root) {}

  const std::vector<ProcessDetails>& details(const std::vector<GpuProcess>& on_gpus,
                                             const std::optional<Timestamp>& listed, Timestamp now) {
    // `listed`: when the driver's list was read; the same list is answered
    // from the cache.
    const std::optional<std::int64_t> listed_ns = listed ? std::optional(listed->mono_ns) : std::nullopt;
    if (read_once_ && listed_ns && listed_ns == listed_ns_) return details_;
    std::vector<std::uint32_t> pids;
    for (const GpuProcess& p : on_gpus) pids.push_back(p.pid);
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    details_ = reader_.read(pids, now);
    listed_ns_ = listed_ns;
    read_once_ = true;
    return details_;
  }

 private:
  ProcessDetailsReader reader_;
  std::vector<ProcessDetails> details_;
  std::optional<std::int64_t> listed_ns_;
  bool read_once_ = false;
};

}  // namespace gpuwatch
