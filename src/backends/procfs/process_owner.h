// Who owns a process that holds GPU memory, read under a procfs root:
// /proc/PID/cgroup (world-readable) and /proc/PID/environ (readable by its
// owner and root only; unreadable means no array ids, never an error).
#pragma once

#include <cstdint>
#include <string>

#include "core/process_attribution.h"

namespace gpuwatch {

// The attribution of pid under the procfs directory open at root_fd; empty
// when its files cannot be read. `buf` is reused across calls.
ProcessAttribution read_process_attribution(int root_fd, std::uint32_t pid, std::string& buf);

// Whether the procfs open at root_fd is the view of a PID namespace below
// the host's (gpuwatch in a container without the host's pids): a pid the
// GPU driver gives (always the host's) that is not found there is then a
// process of another namespace, not one that exited. Its reader's own entry
// ("self") tells: a namespace other than the initial one (the kernel's fixed
// inode number, PROC_PID_INIT_INO), and one pid only in its "NSpid:" line
// (a host /proc mounted into a container lists two or more: the host's pid
// first).
bool procfs_is_child_pid_namespace(int root_fd, std::string& buf);

}  // namespace gpuwatch
