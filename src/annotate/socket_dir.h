// The private directory that holds a recorder's annotation socket, and the
// removal of those that killed recorders left behind. A recorder removes its
// own directory on the way out, but SIGKILL, the OOM killer or a power cut
// leave it in $XDG_RUNTIME_DIR or $TMPDIR. Each directory carries an owner
// file naming the recorder (host, boot, pid and start time), so that a later
// recorder removes a directory only when it can prove its owner dead, never
// a live recorder's, another host's or anything that is not gpuwatch's.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "base/process_identity.h"
#include "base/unique_fd.h"

namespace gpuwatch {

struct SocketDirOwner {
  std::string host;
  std::string boot_id;  // empty: unknown
  ProcessIdentity process;

  // This process on this machine, read under `procfs_root`.
  static SocketDirOwner current(const std::filesystem::path& procfs_root);
};

// The directory names are "gpuwatch-" and mkdtemp's six characters.
inline constexpr std::string_view kSocketDirPrefix = "gpuwatch-";
inline constexpr std::string_view kSocketDirOwnerFile = "owner";
inline constexpr std::string_view kSocketFileName = "annotations.sock";

// The owner file's text and back. The parser is fuzzed; it accepts only what
// format_socket_dir_owner writes.
std::string format_socket_dir_owner(const SocketDirOwner& owner);
std::optional<SocketDirOwner> parse_socket_dir_owner(std::string_view text);

// A directory made by create_socket_dir, and the proof that its recorder
// lives: an open-file-description lock on its owner file, held through
// `owner_lock` until that is closed, dropped by the kernel however the
// recorder dies. A pid alone proves nothing across PID namespaces (a
// recorder in a container on this host, issue 22); the lock does.
struct OwnedSocketDir {
  std::filesystem::path path;
  UniqueFd owner_lock;
};

// Creates <base>/gpuwatch-XXXXXX (mode 0700) with its owner file, locked.
// Throws std::runtime_error.
OwnedSocketDir create_socket_dir(const std::filesystem::path& base, const SocketDirOwner& owner);

// Removes a directory made by create_socket_dir: the socket, the owner file,
// the directory. Quietly leaves whatever is not there or not empty.
void remove_socket_dir(const std::filesystem::path& dir);

// Removes the socket directories under `base` that are this user's, hold
// nothing but a socket and an owner file, and whose owner recorder is proven
// dead: nobody holds the owner file's lock, it ran on this host, and either
// the boot id changed or its pid is not the process that started at its
// start time. Never throws. Returns how many
// it removed.
std::size_t remove_stale_socket_dirs(const std::filesystem::path& base, const SocketDirOwner& here,
                                     const std::filesystem::path& procfs_root);

}  // namespace gpuwatch
