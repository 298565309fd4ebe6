#include "backends/procfs/process_owner.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <string_view>

#include "backends/procfs/cgroup_parse.h"
#include "backends/procfs/read_at.h"

namespace gpuwatch {
namespace {

// The initial PID namespace's inode number (include/linux/proc_ns.h,
// PROC_PID_INIT_INO = 0xEFFFFFFC), the same on every kernel since 3.8.
constexpr std::string_view kInitialPidNamespace = "pid:[4026531836]";

}  // namespace

ProcessAttribution read_process_attribution(int root_fd, std::uint32_t pid, std::string& buf) {
  ProcessAttribution out;
  if (const auto text = read_at(root_fd, PidPath(pid, "cgroup").c_str(), buf)) out = parse_cgroup(*text);
  if (const auto text = read_at(root_fd, PidPath(pid, "environ").c_str(), buf)) apply_slurm_environment(*text, out);
  return out;
}

bool procfs_is_child_pid_namespace(int root_fd, std::string& buf) {
  std::array<char, 64> link{};
  const ssize_t n = ::readlinkat(root_fd, "self/ns/pid", link.data(), link.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= link.size()) return false;  // no such link: say nothing
  if (std::string_view(link.data(), static_cast<std::size_t>(n)) == kInitialPidNamespace) return false;
  const auto status = read_at(root_fd, "self/status", buf);
  return status && parse_status_nspid(*status).size() == 1;
}

}  // namespace gpuwatch
