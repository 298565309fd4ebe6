#!/usr/bin/env python3
"""Where the resident memory of a live terminal view goes: gpuwatch top (as is, with glibc's
malloc held to one arena, without the run panel) and nvtop, each alone on a 120x40
pseudo-terminal for 8 s; then VmHWM, RssAnon/RssFile, threads, and Rss per mapping.

    python3 scripts/gpu-verify/top_rss.py GPUWATCH [NVTOP]"""
import os
import pty
import signal
import sys
import time
import fcntl
import struct
import termios
import select
from collections import Counter


def breakdown(pid):
    status = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            status[key] = value.strip()
    per_mapping = Counter()
    name = "[anon]"
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if "-" in parts[0] and not parts[0].endswith(":"):
                name = parts[5] if len(parts) > 5 else "[anon]"
            elif parts[0] == "Rss:":
                per_mapping[os.path.basename(name)] += int(parts[1])
    return status, per_mapping


def run(label, argv, env):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    until = time.monotonic() + 8
    while time.monotonic() < until:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                break
    status, per_mapping = breakdown(pid)
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
    print(f"== {label}: VmHWM {status.get('VmHWM')} VmRSS {status.get('VmRSS')} RssAnon {status.get('RssAnon')}"
          f" RssFile {status.get('RssFile')} threads {status.get('Threads')}")
    for mapping, kib in per_mapping.most_common(14):
        print(f"   {kib:7d} KiB  {mapping}")


gw = sys.argv[1]
base = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
run("gpuwatch top --interval 1", [gw, "top", "--interval", "1"], base)
run("gpuwatch top --interval 1, MALLOC_ARENA_MAX=1", [gw, "top", "--interval", "1"], dict(base, MALLOC_ARENA_MAX="1"))
run("gpuwatch top --interval 1 --no-run", [gw, "top", "--interval", "1", "--no-run"], base)
if len(sys.argv) > 2:
    run("nvtop -d 10", [sys.argv[2], "-d", "10"], base)
