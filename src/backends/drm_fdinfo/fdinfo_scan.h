// Which processes use which DRM device, and how much, from /proc/PID/fdinfo:
// every DRM client (one struct drm_file, named by drm-pdev and drm-client-id)
// once, with the pid that holds it and its engine use since the previous
// scan. Used by the amdgpu backend now and the Intel backends next.
//
// Only what the caller may read: without root, other users' /proc/PID/fd
// cannot be listed. Those processes are counted as hidden, so that a view
// can say that other users' processes are not shown instead of showing
// fewer processes than the GPU runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/drm_fdinfo/fdinfo_parse.h"
#include "core/sample.h"

namespace gpuwatch {

// One engine class's use by one client between two scans, in percent of the
// whole class (divided by its capacity), 0..100.
struct DrmEngineUse {
  std::string name;
  double percent = 0;
};

struct DrmClient {
  std::uint32_t pid = 0;  // the lowest pid that holds it (a forked child shares its parent's)
  DrmFdinfo info;         // this scan's counters and memory
  // Per engine class that has counters in both this scan and the previous
  // one; empty on the first scan that sees the client (no rate yet, not 0).
  std::vector<DrmEngineUse> engine_use;

  [[nodiscard]] std::optional<double> use_percent(std::string_view engine) const;
};

struct DrmScan {
  Timestamp time;
  std::vector<DrmClient> clients;  // sorted by pdev, then client id
  // Processes whose fds could not be listed (other users', without root).
  // They may or may not use a GPU: nobody can tell without their fds.
  std::size_t hidden_processes = 0;
  // Processes whose fd directories this scan listed (the costly part).
  std::size_t listed_processes = 0;
};

class DrmFdinfoScanner {
 public:
  explicit DrmFdinfoScanner(std::filesystem::path procfs_root);

  // Reads every visible DRM client. Rates are measured against the previous
  // scan over the time between the two timestamps (monotonic clock).
  DrmScan scan(Timestamp time);

 private:
  // What a process's fd directory held at its last listing.
  struct ProcessFds {
    std::vector<int> drm_fds;        // fds whose link target is under /dev/dri/
    std::uint32_t listed_scan = 0;   // scan_count_ when listed
    std::int64_t fd_count = 0;       // open fds when listed
    bool hidden = false;             // the listing was refused
  };
  // The previous scan's counters of one client, kept at the largest value
  // seen: the spec allows a counter to step back briefly.
  struct Counters {
    std::int64_t mono_ns = 0;
    std::map<std::string, DrmEngine, std::less<>> engines;
  };
  using ClientKey = std::pair<std::string, std::uint64_t>;  // pdev, client id

  bool needs_listing(int proc_fd, std::uint32_t pid, const ProcessFds* cached) const;
  ProcessFds list_fds(int proc_fd, std::uint32_t pid);
  // Reads the cached fds' fdinfo; false when one is gone or no longer DRM.
  bool read_clients(int proc_fd, std::uint32_t pid, const ProcessFds& fds, std::map<ClientKey, DrmClient>& found);
  void measure(DrmClient& client, const ClientKey& key, Timestamp time, std::map<ClientKey, Counters>& next);

  std::filesystem::path root_;
  std::uint32_t scan_count_ = 0;
  std::unordered_map<std::uint32_t, ProcessFds> processes_;
  std::map<ClientKey, Counters> before_;
  std::string buf_;
};

}  // namespace gpuwatch
