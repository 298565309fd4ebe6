// Starting and watching the command that `record` wraps. The child runs in a
// process group of its own so that a signal forwarded to the group reaches
// DataLoader workers and other grandchildren too.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpuwatch {

// The command could not be started (not found, not executable).
class SpawnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ChildOutcome {
  std::optional<int> exit_code;
  std::optional<int> signal;
  // The shell convention: the exit code, or 128 + the signal number.
  [[nodiscard]] int status_code() const { return signal ? 128 + *signal : exit_code.value_or(0); }
};

// Where the command's stdout and stderr go (-1 keeps gpuwatch's own), and
// whether it may take the terminal (see spawn).
struct ChildOutput {
  int stdout_fd = -1;
  int stderr_fd = -1;
  bool may_take_terminal = true;  // false for helpers that run side by side (bench workers)
  // A session of its own (setsid) rather than only a process group: every
  // process it starts stays in that session unless it calls setsid itself,
  // so the session id (the child's pid) finds them all when the child is
  // gone (matrix cells). No controlling terminal: may_take_terminal is moot.
  bool new_session = false;
};

class ChildProcess {
 public:
  // Forks and execs argv[0] (PATH search). Throws SpawnError with the
  // reason (e.g. "cannot run 'foo': No such file or directory") if exec fails.
  // When gpuwatch runs in the terminal's foreground, the command's group
  // becomes the foreground group, so that it can read the terminal (a login
  // prompt, breakpoint()) and Ctrl-C, Ctrl-\ and Ctrl-Z reach it directly.
  // The child's environment is `inherited` (NAME=VALUE entries: gpuwatch's
  // own, as cli/ read it) with `extra_env` set over it.
  static ChildProcess spawn(const std::vector<std::string>& argv, const std::vector<std::string>& inherited,
                            const std::vector<std::pair<std::string, std::string>>& extra_env,
                            ChildOutput output = {});

  [[nodiscard]] pid_t pid() const { return pid_; }
  // Blocks until the child exits. before_reap runs while the exited child is
  // still a zombie, so its pid cannot have been reused yet: the place to stop
  // signalling it. Gives the terminal back to gpuwatch's group.
  ChildOutcome wait(const std::function<void()>& before_reap = {}) const;

 private:
  ChildProcess(pid_t pid, bool owns_terminal) : pid_(pid), owns_terminal_(owns_terminal) {}
  pid_t pid_;
  bool owns_terminal_;
};

// Sends a signal to the process group led by `leader` (falls back to the
// process alone if the group is gone). Async-signal-safe.
void signal_process_group(pid_t leader, int signal);

enum class ForeignWait {
  NoSuchProcess,  // it was not there to begin with
  Exited,         // it exited while we watched
  Stopped,        // stop_flag was set first: it may well still run
};
// Blocks until the process `pid` (not our child) exits or stop_flag is set
// (checked at least every 200 ms).
ForeignWait wait_for_foreign_exit(pid_t pid, const std::atomic<bool>& stop_flag);

}  // namespace gpuwatch
