// The process that carries a recorded command's output to the terminal when
// `--annotate-regex` reads it. It is a process of its own, forked from the
// recorder before the command starts, so that the command outlives its
// watcher in every mode: were the recorder to pass the bytes on itself, its
// death (SIGKILL, the OOM killer) would close the pipe, and the command would
// die of SIGPIPE at its next line (issue 22: 3 runs of 8).
//
// The forwarder passes every byte on unchanged, and a copy to the recorder,
// which scans the lines. It never waits for the recorder: a copy that does not
// fit the pipe is dropped (annotations lost, never the job's output), and a
// recorder gone only ends the copies. It ignores SIGINT, SIGTERM and SIGHUP
// (the recorder forwards those to the command, whose last words must still
// reach the terminal) and exits when the command's pipes close, or, once the
// recorder says the command exited, when they have been quiet for a moment
// or a short grace has passed (a leftover grandchild may hold them open).
//
// Only async-signal-safe calls run in it: it is forked from a process with
// threads, and never execs.
#pragma once

#include <sys/types.h>

namespace gpuwatch {

struct ForwarderFds {
  int command_stdout = -1;  // read: what the command writes as its fd 1
  int command_stderr = -1;  // read: ... as its fd 2
  int forward_stdout = -1;  // write: where those bytes go (our fd 1)
  int forward_stderr = -1;  // write: (our fd 2)
  int copy_stdout = -1;     // write, non-blocking: the recorder's copy of fd 1's bytes
  int copy_stderr = -1;     // write, non-blocking: ... of fd 2's
  int finish = -1;          // read: a byte when the command exited; end of file when the recorder died
};

// Forks the forwarder. In the child: closes every other file descriptor,
// forwards, and _exits. Returns the child's pid, or -1 with errno set.
pid_t start_output_forwarder(const ForwarderFds& fds);

}  // namespace gpuwatch
