#include "process/child_process.h"

#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace gpuwatch {

namespace {

// Makes `group` the terminal's foreground group. A background group doing so
// gets SIGTTOU, which would stop the recorder for the rest of the run, so it
// is blocked for the call (POSIX: the call then goes through).
void give_terminal_to(pid_t group) {
  sigset_t ttou;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &ttou, &old);
  tcsetpgrp(STDIN_FILENO, group);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace

ChildProcess ChildProcess::spawn(const std::vector<std::string>& argv, const std::vector<std::string>& inherited,
                                 const std::vector<std::pair<std::string, std::string>>& extra_env,
                                 ChildOutput output) {
  if (argv.empty()) throw std::runtime_error("no command given");
  // exec failure travels back through a close-on-exec pipe: an empty read
  // means exec succeeded.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment is built before fork: setenv in the child of a
  // threaded process could wait forever for a lock another thread held.
  std::vector<std::string> env_strings;
  for (const std::string& e : inherited) {
    const std::string_view entry(e);
    const std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : extra_env) replaced = replaced || k == key;
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [k, v] : extra_env) env_strings.push_back(k + "=" + v);
  std::vector<char*> env;
  for (auto& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  const bool take_terminal = output.may_take_terminal && !output.new_session && isatty(STDIN_FILENO) != 0 &&
                             tcgetpgrp(STDIN_FILENO) == getpgrp();

  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    close(fds[0]);
    if (output.new_session) {
      setsid();
    } else {
      setpgid(0, 0);
    }
    if (take_terminal) {
      signal(SIGTTOU, SIG_IGN);
      tcsetpgrp(STDIN_FILENO, getpid());
      signal(SIGTTOU, SIG_DFL);
    }
    // The recorder blocks signals in its threads; the command must not inherit that.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (output.stdout_fd >= 0) dup2(output.stdout_fd, STDOUT_FILENO);
    if (output.stderr_fd >= 0) dup2(output.stderr_fd, STDERR_FILENO);
    execvpe(args[0], args.data(), env.data());
    const int err = errno;
    ssize_t ignored = write(fds[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  // Also from the parent, so there is no window where the group does not
  // exist yet; not for a new session, which setsid makes (a group leader
  // could not call it).
  if (!output.new_session) setpgid(pid, pid);
  // The child may already have taken the terminal (under load it often runs
  // first): the recorder is then a background group.
  if (take_terminal) give_terminal_to(pid);
  close(fds[1]);
  int err = 0;
  ssize_t n;
  do {
    n = read(fds[0], &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  close(fds[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    const ChildProcess failed(pid, take_terminal);
    failed.wait();
    throw SpawnError(fmt::format("cannot run '{}': {}", argv[0], std::strerror(err)));
  }
  return ChildProcess(pid, take_terminal);
}

void signal_process_group(pid_t leader, int signal) {
  if (kill(-leader, signal) != 0) kill(leader, signal);
}

ChildOutcome ChildProcess::wait(const std::function<void()>& before_reap) const {
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) < 0) {
    if (errno != EINTR) return {};
  }
  if (before_reap) before_reap();
  if (owns_terminal_) give_terminal_to(getpgrp());
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) return {};
  }
  ChildOutcome outcome;
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

ForeignWait wait_for_foreign_exit(pid_t pid, const std::atomic<bool>& stop_flag) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return ForeignWait::NoSuchProcess;
  const auto pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  ForeignWait result = ForeignWait::Stopped;
  while (!stop_flag.load(std::memory_order_acquire)) {
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      if (poll(&p, 1, 200) > 0) {
        result = ForeignWait::Exited;
        break;
      }
    } else {
      // Kernels before 5.3 have no pidfd: poll for the pid instead.
      if (kill(pid, 0) != 0 && errno == ESRCH) {
        result = ForeignWait::Exited;
        break;
      }
      usleep(200'000);
    }
  }
  if (pidfd >= 0) close(pidfd);
  return result;
}

}  // namespace gpuwatch
